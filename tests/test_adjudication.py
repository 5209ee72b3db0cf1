"""Disagreement queue worst first; accept or edit sets gold; every decision kept with who and when."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.adjudication import accept, decisions, disagreement_queue, edit, gold_count, sync_agreed
from db.models import AnnotationAssignment, Revision
from db.tagging import assign_annotators, open_item, save_annotation
from tests.tagging_fixtures import add_sentence, add_translation, add_user, project_id

A = "लेकिन स्टाफ़ सर्विस बहुत बुरी थी।"  # लेकिन स्टाफ़ सर्विस बहुत बुरी थी ।
B = "खाना और माहौल अच्छा था।"  # खाना और माहौल अच्छा था ।


@pytest.fixture
def world(engine):
    ids = {
        "asha": add_user(engine, "asha", "translator"),
        "meera": add_user(engine, "meera", "annotator"),
        "kiran": add_user(engine, "kiran", "annotator"),
        "lead": add_user(engine, "lena", "lead"),
    }
    s1 = add_sentence(engine, "1", "But the staff service was very bad.", ["staff service"], ordinal=1)
    s2 = add_sentence(engine, "2", "Food and ambience were good.", ["Food", "ambience"], ordinal=2)
    ids["t1"] = add_translation(engine, s1, "aware", ids["asha"], A)
    ids["t2"] = add_translation(engine, s2, "aware", ids["asha"], B)
    assign_annotators(engine, project_id(engine))
    return ids


def submit(engine, user, translation_id, tags):
    view = open_item(engine, user, translation_id)
    save_annotation(engine, user, view.item_id, tags, not any(t != "O" for t in tags), None, "submit")
    return view.item_id


def test_queue_holds_only_disagreements_worst_first_with_each_annotators_spans(engine, world):
    i1 = submit(engine, world["meera"], world["t1"], ["O", "B", "I", "O", "O", "O", "O"])
    submit(engine, world["kiran"], world["t1"], ["O", "B", "O", "O", "O", "O", "O"])  # 1 of 7 differs
    i2 = submit(engine, world["meera"], world["t2"], ["B", "O", "B", "O", "O", "O"])
    assert [e.item_id for e in disagreement_queue(engine, project_id(engine))] == [i1]  # t2 is not complete
    submit(engine, world["kiran"], world["t2"], ["O"] * 6)  # 2 of 6 differ
    queue = disagreement_queue(engine, project_id(engine))
    assert [e.item_id for e in queue] == [i2, i1]
    assert {v.annotator: v.spans for v in queue[1].versions} == {"meera": [(1, 3)], "kiran": [(1, 2)]}
    assert queue[0].versions[1].no_aspects


def test_accepting_a_version_sets_gold_and_leaves_the_queue(engine, world):
    item = submit(engine, world["meera"], world["t1"], ["O", "B", "I", "O", "O", "O", "O"])
    submit(engine, world["kiran"], world["t1"], ["O", "B", "O", "O", "O", "O", "O"])
    entry = disagreement_queue(engine, project_id(engine))[0]
    chosen = next(v for v in entry.versions if v.annotator == "meera")
    decision = accept(engine, item, chosen.annotation_id, world["lead"], note="multi-word term")
    assert (decision.source, decision.tags, decision.decided_by) == ("accepted", chosen.tags, "lena")
    assert disagreement_queue(engine, project_id(engine)) == []
    resolved = disagreement_queue(engine, project_id(engine), include_resolved=True)
    assert resolved[0].gold.accepted_annotation_id == chosen.annotation_id


def test_edits_append_and_the_latest_decision_is_in_force(engine, world):
    item = submit(engine, world["meera"], world["t1"], ["O", "B", "I", "O", "O", "O", "O"])
    submit(engine, world["kiran"], world["t1"], ["O", "B", "O", "O", "O", "O", "O"])
    first = accept(engine, item, disagreement_queue(engine, project_id(engine))[0].versions[0].annotation_id,
                   world["lead"])
    second = edit(engine, item, ["O", "B", "B", "O", "O", "O", "O"], world["lead"])
    history = decisions(engine, item)
    assert [d.id for d in history] == [first.id, second.id]
    assert [d.source for d in history] == ["accepted", "edited"]
    assert all(d.decided_by == "lena" and d.created_at is not None for d in history)
    with Session(engine) as session:
        actions = session.scalars(select(Revision.action).where(Revision.entity == "adjudication")).all()
    assert actions == ["adjudicate", "adjudicate"]


@pytest.mark.parametrize(
    ("tags", "message"),
    [(["O", "I", "O", "O", "O", "O", "O"], "I follows O"), (["O"], "1 tags for 7 tokens")],
)
def test_edited_gold_must_be_valid_bio_over_the_frozen_tokens(engine, world, tags, message):
    item = submit(engine, world["meera"], world["t1"], ["O", "B", "I", "O", "O", "O", "O"])
    with pytest.raises(ValueError, match=message):
        edit(engine, item, tags, world["lead"])


def test_only_a_lead_sets_gold(engine, world):
    item = submit(engine, world["meera"], world["t1"], ["O", "B", "I", "O", "O", "O", "O"])
    with pytest.raises(PermissionError):
        edit(engine, item, ["O"] * 7, world["meera"])


def test_agreed_items_become_gold_and_sync_is_idempotent(engine, world):
    tags = ["B", "O", "B", "O", "O", "O"]
    item = submit(engine, world["meera"], world["t2"], tags)
    submit(engine, world["kiran"], world["t2"], tags)
    assert [(d.source, d.tags, d.decided_by) for d in decisions(engine, item)] == [("agreed", tags, None)]
    assert sync_agreed(engine, project_id(engine)) == 0
    assert gold_count(engine, project_id(engine)) == (1, 1)


def test_reassigned_annotators_do_not_hold_up_completion(engine, world):
    tags = ["B", "O", "B", "O", "O", "O"]
    item = submit(engine, world["meera"], world["t2"], tags)
    from db.engine import transaction

    with transaction(engine) as session:
        row = session.scalars(select(AnnotationAssignment).where(
            AnnotationAssignment.user_id == world["kiran"], AnnotationAssignment.translation_id == world["t2"])).one()
        row.status = "reassigned"
    assert sync_agreed(engine, project_id(engine)) == 1
    assert decisions(engine, item)[-1].source == "agreed"
