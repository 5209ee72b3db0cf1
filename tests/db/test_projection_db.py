"""Projection suggestions through the database: a blind item arrives pre-tagged from the maps of its aware sisters,
an aware item with an incomplete map gets the rest projected, each source can be switched off, a save records
what was shown per source, and the figures per source come out of the stored saves."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.suggestions import ACCEPTED_KEY, KEYS_KEY, SUGGESTIONS_KEY
from db.engine import transaction
from db.models import GlossaryTerm, Revision
from db.projection import projection_inputs, shown_records, suggestion_figures
from db.assignment import assign_annotators
from db.tagging import stored_annotation
from db.workflows import open_item, save_annotation
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    change_settings,
    project_id,
    set_project,
)

SENTENCE = "The staff were nice, the miso soup was great but the seats were dirty."
ASPECTS = ["staff", "miso soup", "seats"]
BLIND_NEHA = "कर्मचारी अच्छे थे, मिसो सूप बढ़िया था पर सीटों पर दाग थे।"
BLIND_OM = "स्टाफ़ बढ़िया था और सूप भी।"
AWARE_KIRAN = "स्टाफ़ अच्छा था, मिसो सूप लाजवाब पर सीटें गंदी थीं।"




@pytest.fixture
def sisters(any_engine):
    """One sentence: two aware translations with complete maps, a third with only "staff" mapped, two blind."""
    engine = any_engine
    set_project(engine, annotators_per_item=1)
    change_settings(engine, model_suggestions=False)
    asha, ravi, kiran = (add_user(engine, n, "translator") for n in ("asha", "ravi", "kiran"))
    neha, om = (add_user(engine, n, "translator") for n in ("neha", "om"))
    meera = add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "s1", SENTENCE, ASPECTS)
    add_translation(engine, s, "aware", asha, "स्टाफ़ अच्छा था, मिसो सूप बढ़िया था पर सीटें गंदी थीं।",
                    aspect_map={"staff": "स्टाफ़", "miso soup": "मिसो सूप", "seats": "सीटें"})
    add_translation(engine, s, "aware", ravi, "स्टाफ अच्छा था और मिसो सूप भी, पर सीटें गंदी थीं।",
                    aspect_map={"staff": "स्टाफ", "miso soup": "मिसो सूप", "seats": "सीटें"}, minutes=1)
    kiran_tid = add_translation(engine, s, "aware", kiran, AWARE_KIRAN, aspect_map={"staff": "स्टाफ़"}, minutes=2)
    neha_tid = add_translation(engine, s, "blind", neha, BLIND_NEHA, minutes=3)
    om_tid = add_translation(engine, s, "blind", om, BLIND_OM, minutes=4)
    assign_annotators(engine, project_id(engine))
    return engine, meera, {"kiran": kiran_tid, "neha": neha_tid, "om": om_tid}


def _found(view):
    return [(s.span, s.source, s.term) for s in view.suggestions]


def test_a_blind_item_arrives_pre_tagged_from_its_aware_sisters(sisters):
    engine, meera, tids = sisters
    view = open_item(engine, meera, tids["neha"])
    # कर्मचारी is a synonym the maps do not know: no span for "staff"; सीटों is सीटें inflected
    assert _found(view) == [((4, 6), "aware", "miso soup"), ((9, 10), "aware", "seats")]
    assert [s.confidence for s in view.suggestions] == [0.95, 0.85]
    assert view.annotation.tags == ["O"] * len(view.tokens)  # suggestions are no tags
    assert stored_annotation(engine, meera, view.item_id) is None
    om = open_item(engine, meera, tids["om"])
    assert _found(om) == [((0, 1), "aware", "staff")]  # सूप alone is not मिसो सूप


def test_an_aware_item_with_an_incomplete_map_gets_the_rest_projected(sisters):
    engine, meera, tids = sisters
    view = open_item(engine, meera, tids["kiran"])
    assert _found(view) == [((0, 1), "map", "staff"), ((4, 6), "aware", "miso soup"), ((8, 9), "aware", "seats")]


@pytest.fixture
def loaded_model():
    """The phonetic model in this process (the app loads it in the background; a test that counts on the
    loanword rule's spans loads it first)."""
    from db.typing_model import warm_model

    warm_model()


def test_an_items_first_open_never_waits_for_the_phonetic_model(sisters):
    import threading

    from corpus.romanization import load_model

    engine, meera, tids = sisters
    change_settings(engine, suggest_from_aware=False, suggest_from_glossary=False)
    load_model.cache_clear()  # as in a server that has not loaded it yet
    first = open_item(engine, meera, tids["neha"])
    assert first.suggestions == []  # no loanword spans yet, and no wait for the model
    loading = [t for t in threading.enumerate() if t.name == "projection-model-load"]
    assert len(loading) == 1
    loading[0].join(timeout=300)
    assert load_model.cache_info().currsize == 1
    assert [(s.span, s.source) for s in open_item(engine, meera, tids["neha"]).suggestions] == \
        [((4, 6), "transliteration"), ((9, 10), "transliteration")]


def test_each_source_switches_off(sisters, loaded_model):
    engine, meera, tids = sisters
    change_settings(engine, suggest_from_aware=False, suggest_from_glossary=False)
    # the loanword rule alone: मिसो सूप and सीट (from "seats") are how Hindi writes them
    assert [(s.span, s.source) for s in open_item(engine, meera, tids["neha"]).suggestions] == \
        [((4, 6), "transliteration"), ((9, 10), "transliteration")]
    change_settings(engine, suggest_from_transliteration=False, suggest_from_glossary=True)
    with transaction(engine) as session:
        session.add(GlossaryTerm(project_id=project_id(engine), english="miso soup", hindi="मिसो सूप"))
    assert [(s.span, s.source) for s in open_item(engine, meera, tids["neha"]).suggestions] == [((4, 6), "glossary")]
    change_settings(engine, suggest_from_glossary=False)
    assert open_item(engine, meera, tids["neha"]).suggestions == []


def test_projection_inputs_name_every_aspect_with_each_aware_rendering(sisters):
    engine, meera, tids = sisters
    view = open_item(engine, meera, tids["om"])
    with Session(engine) as session:
        inputs = projection_inputs(session, view.item_id)
        assert [a.term for a in inputs.aspects] == ASPECTS
        assert inputs.aspects[0].renderings == ("स्टाफ़", "स्टाफ")


def test_accepting_the_suggestions_stores_them_and_the_save_records_them_per_source(sisters):
    engine, meera, tids = sisters
    view = open_item(engine, meera, tids["neha"])
    tags = ["O"] * len(view.tokens)
    tags[4], tags[5], tags[9] = "B", "I", "B"
    state = save_annotation(engine, meera, view.item_id, tags, False, None, "submit",
                            shown=shown_records(view.suggestions), keys=2)
    assert state.spans == [s.span for s in view.suggestions]
    with Session(engine) as session:
        payload = session.scalars(select(Revision.payload).where(Revision.entity == "annotation")
                                  .order_by(Revision.id.desc())).first()
    assert payload[SUGGESTIONS_KEY] == [[4, 6, "aware", 0.95], [9, 10, "aware", 0.85]]
    assert payload[ACCEPTED_KEY] == {"aware": 2}
    assert payload[KEYS_KEY] == 2

    om = open_item(engine, meera, tids["om"])
    save_annotation(engine, meera, om.item_id, ["O"] * len(om.tokens), True, None, "submit",
                    shown=shown_records(om.suggestions), keys=3)  # rejected the one suggestion
    report = suggestion_figures(engine, project_id(engine))
    aware = report.row("aware")
    assert (aware.shown, aware.accepted, aware.judged, aware.correct, aware.gold) == (3, 2, 3, 2, 2)
    assert (aware.precision, aware.recall) == (2 / 3, 1.0)
    assert report.keys_with == 2.5 and report.keys_without is None
    assert report.exposure_statement().startswith("annotators saw suggestions on 2 of 2 items")
