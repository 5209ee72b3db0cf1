"""The model in the loop on a small hand-built project: after enough gold the CRF (trained off the request path)
suggests spans in aspect-blind translations; a suggestion is no tag until accepted; accepting one stores exactly
that span; the save records what was shown; the review-suspects list finds a planted wrong gold item."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.suggestions import SHOWN_KEY
from db.engine import transaction
from db.gold import gold_in_force
from db.model_store import forget_checks, gold_items, gold_stamp, retrain_if_due, review_suspects
from db.suggestion_model import model_info, suggestion_figures
from db.models import Annotation, Revision
from db.project_settings import load_settings, settings_in
from db.settings_change import save_settings
from db.assignment import assign_annotators
from db.tagging import stored_annotation
from db.workflows import kick, open_item, run_jobs_until_idle, save_annotation
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    change_settings,
    project_id,
    set_project,
)

WORDS = ["यह", "था", "बहुत", "अच्छा", "बुरा", "और", "पर", "काफ़ी"]
ASPECTS = ["खाना", "स्टाफ़", "पिज़्ज़ा", "सेवा"]


def _toy(n: int, seed: int = 3) -> list[tuple[list[str], list[str]]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        tokens, tags = [], []
        for _ in range(rng.randint(4, 8)):
            if rng.random() < 0.3:
                tokens.append(rng.choice(ASPECTS))
                tags.append("B")
            else:
                tokens.append(rng.choice(WORDS))
                tags.append("O")
        out.append((tokens, tags))
    return out




def _project_with_gold(engine, data, min_gold=10, every=5):
    """One annotator per item; every aware translation tagged and submitted (automatic gold)."""
    set_project(engine, annotators_per_item=1)
    # the model's suggestions alone: the loanword rule of the projection would find पिज़्ज़ा first
    change_settings(engine, suggest_min_gold=min_gold, suggest_retrain_every=every, suggest_from_transliteration=False)
    asha = add_user(engine, "asha", "translator")
    meera = add_user(engine, "meera", "annotator")
    for i, (tokens, tags) in enumerate(data):
        s = add_sentence(engine, f"s{i}", f"Sentence {i}.", ordinal=i)
        add_translation(engine, s, "aware", asha, " ".join(tokens), minutes=i)
    assign_annotators(engine, project_id(engine))
    with Session(engine) as session:
        from db.models import Translation

        tids = session.scalars(select(Translation.id).order_by(Translation.id)).all()
    for tid, (tokens, tags) in zip(tids, data):
        view = open_item(engine, meera, tid)
        assert view.tokens == tokens
        save_annotation(engine, meera, view.item_id, tags, not any(t != "O" for t in tags), None, "submit")
    return asha, meera


def _blind(engine, asha, meera, text):
    s = add_sentence(engine, "blind1", "The pizza was very good.", ["pizza"], ordinal=999)
    tid = add_translation(engine, s, "blind", asha, text, minutes=999)  # blind: no aspect map
    assign_annotators(engine, project_id(engine))
    return tid


def test_after_enough_gold_a_blind_translation_gets_model_suggestions_and_accepting_one_stores_that_span(any_engine):
    engine = any_engine
    asha, meera = _project_with_gold(engine, _toy(30), min_gold=20, every=5)
    assert retrain_if_due(engine, project_id(engine))
    info = model_info(engine, project_id(engine))
    assert info.gold_count == 30 and "crf=sklearn-crfsuite" in info.signature
    assert not retrain_if_due(engine, project_id(engine))  # no new gold: no new model

    tid = _blind(engine, asha, meera, "यह पिज़्ज़ा बहुत अच्छा था")
    def golds():
        return {i: g.gold for i, g in gold_in_force(engine, project_id(engine)).items()}

    gold_before = golds()
    view = open_item(engine, meera, tid)
    assert [(s.span, s.term[:5]) for s in view.suggestions] == [((1, 2), "model")]
    assert 0.5 < view.suggestions[0].confidence <= 1.0
    # shown, not stored: no annotation, no tags, no gold changed
    assert stored_annotation(engine, meera, view.item_id) is None
    assert view.annotation.tags == ["O"] * 5
    assert golds() == {**gold_before, view.item_id: None}

    state = save_annotation(engine, meera, view.item_id, ["O", "B", "O", "O", "O"], False, None, "submit")
    assert state.spans == [(1, 2)]
    assert stored_annotation(engine, meera, view.item_id).tags == ["O", "B", "O", "O", "O"]
    with Session(engine) as session:
        payload = session.scalars(select(Revision.payload).where(Revision.entity == "annotation")
                                  .order_by(Revision.id.desc())).first()
    assert [r[:2] for r in payload[SHOWN_KEY]] == [[1, 2]]

    quality, seen = suggestion_figures(engine, project_id(engine))
    assert (quality.shown, quality.accepted, quality.judged, quality.correct) == (1, 1, 1, 1)
    assert seen.statement() == "annotators saw model suggestions on 1 of 31 items"


def test_opening_an_item_keeps_a_draft_unchanged_and_a_rejected_suggestion_is_no_tag(engine):
    asha, meera = _project_with_gold(engine, _toy(30), min_gold=20)
    retrain_if_due(engine, project_id(engine))
    tid = _blind(engine, asha, meera, "यह खाना और सेवा अच्छा था")
    view = open_item(engine, meera, tid)
    assert {s.span for s in view.suggestions} == {(1, 2), (3, 4)}
    draft = save_annotation(engine, meera, view.item_id, ["O"] * 6, False, None, "autosave", rejected=[(3, 4)])
    again = open_item(engine, meera, tid)
    assert again.annotation.tags == ["O"] * 6 and again.annotation.rejected == ((3, 4),)
    with Session(engine) as session:
        assert session.scalars(select(Annotation.tags).where(Annotation.id == draft.annotation_id)).one() == ["O"] * 6
    done = save_annotation(engine, meera, view.item_id, ["O", "B", "O", "O", "O", "O"], False, draft.version,
                           "submit", rejected=[(3, 4)])
    quality, _ = suggestion_figures(engine, project_id(engine))
    assert done.spans == [(1, 2)]
    assert (quality.shown, quality.accepted) == (2, 1)


def test_no_model_below_the_threshold_and_none_when_the_lead_switches_suggestions_off(engine):
    asha, meera = _project_with_gold(engine, _toy(12), min_gold=20)
    assert not retrain_if_due(engine, project_id(engine))
    assert model_info(engine, project_id(engine)) is None
    change_settings(engine, suggest_min_gold=10)
    assert load_settings(engine, project_id(engine)).suggest_min_gold == 10
    assert retrain_if_due(engine, project_id(engine))
    change_settings(engine, model_suggestions=False)
    tid = _blind(engine, asha, meera, "यह पिज़्ज़ा बहुत अच्छा था")
    assert open_item(engine, meera, tid).suggestions == []
    save_annotation(engine, meera, open_item(engine, meera, tid).item_id, ["O", "B", "O", "O", "O"], False, None,
                    "submit")
    assert suggestion_figures(engine, project_id(engine))[1].statement() == \
        "annotators saw no model suggestions (13 items tagged)"


def test_settings_round_trip_and_are_refused_below_one(any_engine):
    pid = project_id(any_engine)
    current = load_settings(any_engine, pid)
    assert (current.model_suggestions, current.suggest_min_gold, current.suggest_retrain_every) == (True, 200, 50)
    changed = save_settings(any_engine, pid, replace(current, model_suggestions=False, suggest_retrain_every=7), None)
    assert changed == {"model_suggestions": [True, False], "suggest_retrain_every": [50, 7]}
    assert load_settings(any_engine, pid) == replace(current, model_suggestions=False, suggest_retrain_every=7)
    with pytest.raises(ValueError, match="at least one gold item"):
        save_settings(any_engine, pid, replace(current, suggest_min_gold=0), None)


def test_an_item_opening_enqueues_a_retrain_job_when_gold_crossed_the_threshold(engine):
    from db import jobs

    asha, meera = _project_with_gold(engine, _toy(25), min_gold=20, every=5)
    forget_checks()
    pid = project_id(engine)
    with transaction(engine) as session:  # as open_item calls it: inside its transaction, never waiting
        job_id = kick(session, pid, settings_in(session, pid))
        assert kick(session, pid, settings_in(session, pid)) is None  # checked just now
    assert job_id is not None and jobs.get(engine, job_id).state == "queued"
    forget_checks()
    with transaction(engine) as session:  # checked again (another server): the same job, not a second one
        assert kick(session, pid, settings_in(session, pid)) == job_id
    assert model_info(engine, pid) is None  # nothing trained in the request
    assert run_jobs_until_idle(engine) == [job_id]
    assert model_info(engine, pid).gold_count == 25
    assert jobs.get(engine, job_id).result == {"stored": True, "gold_count": 25}


def test_review_suspects_lists_a_planted_wrong_gold_item_first(any_engine):
    data = _toy(40)
    data.append((["यह", "पिज़्ज़ा", "बहुत", "अच्छा"], ["O", "O", "O", "O"]))  # पिज़्ज़ा is an aspect everywhere else
    _project_with_gold(any_engine, data, min_gold=1000)
    stamp = gold_stamp(any_engine, project_id(any_engine))
    assert len(gold_items(any_engine, project_id(any_engine))) == 41
    found = review_suspects(any_engine, project_id(any_engine), min_confidence=0.8)
    assert found and found[0].sentence_key == "restaurant/train/s40"
    assert (found[0].token_index, found[0].token, found[0].gold, found[0].predicted) == (1, "पिज़्ज़ा", "O", "B")
    assert all(a.confidence >= b.confidence for a, b in zip(found, found[1:]))
    assert gold_stamp(any_engine, project_id(any_engine)) == stamp  # reading changes nothing
