"""AppTest: a blind item on Tag aspects arrives with the spans its aware sisters mapped, dashed and no tags; accepting
them and submitting stores them and records what was shown per source and the editor's keys; the dashboard shows
the suggestions' figures per source beside the kappa; Project settings switches a source off."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.suggestions import ACCEPTED_KEY, KEYS_KEY, SUGGESTIONS_KEY
from db.users import create_user
from db.models import Annotation, Revision
from db.project_settings import load_settings
from db.assignment import assign_annotators
from tests.support.app_pages import open_page
from tests.support.span_editor_driver import commit, editor_data
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id, set_project

ENGLISH = "The staff were nice and the miso soup was great."
BLIND = "कर्मचारी अच्छे थे और मिसो सूप बढ़िया था।"  # कर्मचारी अच्छे थे और मिसो सूप बढ़िया था ।


@pytest.fixture
def blind_item(app_engine):
    engine = app_engine
    set_project(engine, annotators_per_item=1)
    asha, ravi, neha = (add_user(engine, n, "translator") for n in ("asha", "ravi", "neha"))
    meera = add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "s1", ENGLISH, ["staff", "miso soup"])
    add_translation(engine, s, "aware", asha, "स्टाफ़ अच्छा था और मिसो सूप बढ़िया था।",
                    aspect_map={"staff": "स्टाफ़", "miso soup": "मिसो सूप"})
    add_translation(engine, s, "aware", ravi, "स्टाफ अच्छा था, मिसो सूप लाजवाब।",
                    aspect_map={"staff": "स्टाफ", "miso soup": "मिसो सूप"}, minutes=1)
    tid = add_translation(engine, s, "blind", neha, BLIND, minutes=2)
    assign_annotators(engine, project_id(engine))
    return engine, meera, tid


def test_a_blind_item_arrives_pre_tagged_and_accepting_all_then_submitting_stores_them(blind_item):
    engine, meera, tid = blind_item
    at = open_page(engine, meera, "pages/tag.py", query={"item": str(tid)})
    data = editor_data(at, "tag_editor")
    assert [(s["span"], s["source"], s["term"]) for s in data["suggestions"]] == [([4, 6], "aware", "miso soup")]
    assert "aware translations' aspect maps" in data["suggestions"][0]["title"]
    assert data["spans"] == []  # a suggestion is no tag
    commit(at, "tag_editor", "accept", spans=[(4, 6)], keys=1)
    commit(at, "tag_editor", "submit", spans=[(4, 6)], keys=2)
    with Session(engine) as session:
        annotation = session.scalars(select(Annotation).where(Annotation.annotator_id == meera)).one()
        payload = session.scalars(select(Revision.payload).where(Revision.entity == "annotation")
                                  .order_by(Revision.id.desc())).first()
    assert (annotation.status, annotation.tags) == ("submitted", ["O", "O", "O", "O", "B", "I", "O", "O", "O"])
    assert payload[SUGGESTIONS_KEY] == [[4, 6, "aware", 0.95]]
    assert payload[ACCEPTED_KEY] == {"aware": 1}
    assert payload[KEYS_KEY] == 2


def test_the_dashboard_shows_the_suggestions_figures_per_source_beside_the_kappa(blind_item):
    engine, meera, tid = blind_item
    at = open_page(engine, meera, "pages/tag.py", query={"item": str(tid)})
    commit(at, "tag_editor", "submit", spans=[(4, 6)], keys=2)
    create_user(engine, "lead", {"lead"}, "lead-password")
    dash = open_page(engine, "lead", "pages/dashboard.py")
    said = [c.value for c in dash.caption if c.value.startswith("Suggestions and kappa: ")]
    assert said == ["Suggestions and kappa: annotators saw suggestions on 1 of 1 items (recorded; agreement there "
                    "may be inflated)."]
    (figures,) = [d.value for d in dash.dataframe if "acceptance" in d.value.columns]
    rows = figures.set_index("source")
    assert list(rows.index) == ["aware sisters' maps", "all sources"]
    assert rows.loc["aware sisters' maps", ["shown", "acceptance", "precision", "recall"]].tolist() == \
        [1, "1.000", "1.000", "1.000"]
    assert any("Keys and clicks per submitted item: 2.0 with suggestions (1 annotations)" in c.value
               for c in dash.caption)


def test_project_settings_switch_a_projection_source_off(blind_item):
    engine, meera, tid = blind_item
    admin = add_user(engine, "ada", "admin")
    at = open_page(engine, admin, "pages/settings.py")
    at.checkbox(key="settings_suggest_from_aware").uncheck()
    next(b for b in at.button if b.label == "Save settings").click().run()
    assert not at.exception
    settings = load_settings(engine, project_id(engine))
    assert (settings.suggest_from_aware, settings.suggest_from_glossary, settings.suggest_from_transliteration) == \
        (False, True, True)
    # the transliteration rule still finds मिसो सूप, the maps no longer count (with the model loaded: the app
    # loads it in the background and an item opened before that simply lacks these spans)
    from db.typing_model import warm_model

    warm_model()
    tag = open_page(engine, meera, "pages/tag.py", query={"item": str(tid)})
    assert [s["source"] for s in editor_data(tag, "tag_editor")["suggestions"]] == ["transliteration"]
