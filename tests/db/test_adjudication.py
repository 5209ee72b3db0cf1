"""Disagreement queue worst first; accept or edit sets gold; every decision kept with who and when."""

from __future__ import annotations

import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from db.adjudication import StaleDecision, accept, edit, sync_agreed, sync_and_count
from db.disagreement_queue import (
    decisions,
    disagreement_queue,
    disagreements,
    gold_count,
    item_entry,
    open_disagreement_count,
)
from db.engine import transaction
from db.gold import item_states
from db.models import Adjudication, Annotation, AnnotationAssignment, Revision
from db.assignment import assign_annotators
from db.workflows import open_item, save_annotation
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    project_id,
    set_project,
)
from tests.support.databases import built_copy, replace_with_copy

A = "लेकिन स्टाफ़ सर्विस बहुत बुरी थी।"  # लेकिन स्टाफ़ सर्विस बहुत बुरी थी ।
B = "खाना और माहौल अच्छा था।"  # खाना और माहौल अच्छा था ।


def make_world(engine):
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


@pytest.fixture(scope="module")
def built_world(migrated_sqlite, tmp_path_factory):
    """``make_world`` run once per module on SQLite; each test's ``world`` is a copy of it."""
    return built_copy(migrated_sqlite, tmp_path_factory.mktemp("world"), make_world)


@pytest.fixture
def world(engine, built_world):
    path, ids = built_world
    replace_with_copy(engine, path)
    return dict(ids)


@pytest.fixture
def any_world(any_engine):
    ids = make_world(any_engine)
    ids["omar"] = add_user(any_engine, "omar", "lead")
    ids["engine"] = any_engine
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
    decision = accept(engine, item, chosen.annotation_id, world["lead"], expected=None, note="multi-word term")
    assert (decision.source, decision.tags, decision.decided_by) == ("accepted", chosen.tags, "lena")
    assert disagreement_queue(engine, project_id(engine)) == []
    resolved = disagreement_queue(engine, project_id(engine), include_resolved=True)
    assert resolved[0].gold.accepted_annotation_id == chosen.annotation_id


def test_edits_append_and_the_latest_decision_is_in_force(engine, world):
    item = submit(engine, world["meera"], world["t1"], ["O", "B", "I", "O", "O", "O", "O"])
    submit(engine, world["kiran"], world["t1"], ["O", "B", "O", "O", "O", "O", "O"])
    first = accept(engine, item, disagreement_queue(engine, project_id(engine))[0].versions[0].annotation_id,
                   world["lead"], expected=None)
    second = edit(engine, item, ["O", "B", "B", "O", "O", "O", "O"], world["lead"], expected=first.id)
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
        edit(engine, item, tags, world["lead"], expected=None)


def test_only_a_lead_sets_gold(engine, world):
    item = submit(engine, world["meera"], world["t1"], ["O", "B", "I", "O", "O", "O", "O"])
    with pytest.raises(PermissionError):
        edit(engine, item, ["O"] * 7, world["meera"], expected=None)


def test_an_admin_without_the_lead_role_sets_no_gold(engine, world):
    item = submit(engine, world["meera"], world["t1"], ["O", "B", "I", "O", "O", "O", "O"])
    with pytest.raises(PermissionError):
        edit(engine, item, ["O"] * 7, add_user(engine, "root", "admin"), expected=None)
    edit(engine, item, ["O"] * 7, add_user(engine, "chief", "admin", "lead"), expected=None)


def test_agreed_items_become_gold_and_sync_is_idempotent(engine, world):
    tags = ["B", "O", "B", "O", "O", "O"]
    item = submit(engine, world["meera"], world["t2"], tags)
    submit(engine, world["kiran"], world["t2"], tags)
    assert [(d.source, d.tags, d.decided_by) for d in decisions(engine, item)] == [("agreed", tags, None)]
    assert sync_agreed(engine, project_id(engine)) == 0
    assert gold_count(engine, project_id(engine)) == (1, 1)


def reassign(engine, translation_id, old, new):
    with transaction(engine) as session:
        row = session.scalars(select(AnnotationAssignment).where(
            AnnotationAssignment.user_id == old, AnnotationAssignment.translation_id == translation_id)).one()
        row.status = "reassigned"
        if new is not None:
            session.add(AnnotationAssignment(user_id=new, translation_id=translation_id))


def test_reassigned_annotators_do_not_hold_up_completion(engine, world):
    tags = ["B", "O", "B", "O", "O", "O"]
    item = submit(engine, world["meera"], world["t2"], tags)
    nila = add_user(engine, "nila", "annotator")
    reassign(engine, world["t2"], world["kiran"], nila)
    submit(engine, nila, world["t2"], tags)
    assert [(d.source, d.tags) for d in decisions(engine, item)] == [("agreed", tags)]


def test_a_lone_version_is_not_agreement_when_the_project_asks_for_two(engine, world):
    tags = ["B", "O", "B", "O", "O", "O"]
    item = submit(engine, world["meera"], world["t2"], tags)
    reassign(engine, world["t2"], world["kiran"], None)  # complete with one version, but nobody agreed
    assert sync_agreed(engine, project_id(engine)) == 0
    assert decisions(engine, item) == [] and gold_count(engine, project_id(engine)) == (0, 1)


def test_with_one_annotator_per_item_the_single_version_is_gold_labelled_single(engine):
    set_project(engine, annotators_per_item=1)
    asha, meera = add_user(engine, "asha", "translator"), add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "1", "Food and ambience were good.", ["Food", "ambience"], ordinal=1)
    t = add_translation(engine, s, "aware", asha, B)
    assign_annotators(engine, project_id(engine))
    tags = ["B", "O", "B", "O", "O", "O"]
    item = submit(engine, meera, t, tags)
    assert [(d.source, d.tags, d.decided_by) for d in decisions(engine, item)] == [("single", tags, None)]
    assert gold_count(engine, project_id(engine)) == (1, 1)


def edit_submitted(engine, user, translation_id, tags):
    """An annotator changes tags they already submitted (the save path calls the automatic rule)."""
    view = open_item(engine, user, translation_id)
    save_annotation(engine, user, view.item_id, tags, not any(t != "O" for t in tags), view.annotation.version,
                    "submit")
    return view.item_id


def test_agreed_gold_is_withdrawn_when_an_annotator_edits_away_and_history_keeps_it(engine, world):
    agreed, changed = ["B", "O", "B", "O", "O", "O"], ["B", "O", "O", "O", "O", "O"]
    pid = project_id(engine)
    item = submit(engine, world["meera"], world["t2"], agreed)
    submit(engine, world["kiran"], world["t2"], agreed)
    assert gold_count(engine, pid) == (1, 1)
    edit_submitted(engine, world["kiran"], world["t2"], changed)
    assert gold_count(engine, pid) == (0, 1)
    queue = disagreement_queue(engine, pid)
    assert [e.item_id for e in queue] == [item] and queue[0].gold is None and not queue[0].resolved
    assert [(d.source, d.tags, d.decided_by) for d in decisions(engine, item)] == [
        ("agreed", agreed, None), ("withdrawn", None, None)
    ]
    assert sync_agreed(engine, pid) == 0  # withdrawn once, not again
    with Session(engine) as session:
        actions = session.scalars(select(Revision.action).where(Revision.entity == "adjudication")
                                  .order_by(Revision.id)).all()
    assert actions == ["auto", "withdraw"]


def test_agreeing_again_on_other_tags_makes_the_new_tags_gold(engine, world):
    first, second = ["B", "O", "B", "O", "O", "O"], ["B", "O", "O", "O", "O", "O"]
    item = submit(engine, world["meera"], world["t2"], first)
    submit(engine, world["kiran"], world["t2"], first)
    edit_submitted(engine, world["kiran"], world["t2"], second)
    edit_submitted(engine, world["meera"], world["t2"], second)
    assert [(d.source, d.tags) for d in decisions(engine, item)] == [
        ("agreed", first), ("withdrawn", None), ("agreed", second)
    ]
    assert gold_count(engine, project_id(engine)) == (1, 1)
    assert disagreement_queue(engine, project_id(engine), include_resolved=True) == []


def test_a_leads_decision_is_not_withdrawn_when_annotators_edit(engine, world):
    item = submit(engine, world["meera"], world["t1"], ["O", "B", "I", "O", "O", "O", "O"])
    submit(engine, world["kiran"], world["t1"], ["O", "B", "O", "O", "O", "O", "O"])
    decision = edit(engine, item, ["O", "B", "I", "O", "O", "O", "O"], world["lead"], expected=None)
    edit_submitted(engine, world["kiran"], world["t1"], ["O", "B", "I", "O", "O", "O", "B"])
    edit_submitted(engine, world["kiran"], world["t1"], ["O", "B", "I", "O", "O", "O", "O"])  # now all agree
    assert [d.id for d in decisions(engine, item)] == [decision.id]
    assert gold_count(engine, project_id(engine)) == (1, 1)


def disagree(engine, world):
    item = submit(engine, world["meera"], world["t1"], ["O", "B", "I", "O", "O", "O", "O"])
    submit(engine, world["kiran"], world["t1"], ["O", "B", "O", "O", "O", "O", "O"])
    return item


def test_a_second_lead_deciding_on_what_they_loaded_is_refused_with_both_versions(any_world):
    engine, world = any_world["engine"], any_world
    item = disagree(engine, world)
    loaded_by_lena = item_entry(engine, item)
    loaded_by_omar = item_entry(engine, item)
    assert loaded_by_lena.gold is None and loaded_by_omar.gold is None
    meera = next(v for v in loaded_by_lena.versions if v.annotator == "meera")
    lenas = accept(engine, item, meera.annotation_id, world["lead"], expected=None)
    with pytest.raises(StaleDecision, match="lena set gold") as refused:
        edit(engine, item, ["O", "B", "O", "B", "O", "O", "O"], world["omar"], expected=None)
    assert refused.value.expected_id is None
    assert (refused.value.current.id, refused.value.current.decided_by, refused.value.current.spans) == (
        lenas.id, "lena", [(1, 3)]
    )
    assert [d.id for d in decisions(engine, item)] == [lenas.id]  # nothing replaced lena's decision
    # omar has now seen lena's decision and decides again against it
    omars = edit(engine, item, ["O", "B", "O", "B", "O", "O", "O"], world["omar"], expected=lenas.id)
    assert [(d.decided_by, d.source) for d in decisions(engine, item)] == [("lena", "accepted"), ("omar", "edited")]
    with pytest.raises(StaleDecision):
        accept(engine, item, meera.annotation_id, world["lead"], expected=lenas.id)
    assert item_entry(engine, item).gold.id == omars.id


def test_deciding_against_automatic_gold_that_was_withdrawn_is_refused(any_world):
    engine, world = any_world["engine"], any_world
    tags = ["B", "O", "B", "O", "O", "O"]
    item = submit(engine, world["meera"], world["t2"], tags)
    submit(engine, world["kiran"], world["t2"], tags)
    agreed = item_entry(engine, item).gold
    assert agreed.source == "agreed"
    edit_submitted(engine, world["kiran"], world["t2"], ["O"] * 6)
    with pytest.raises(StaleDecision, match="no longer has gold") as refused:
        edit(engine, item, tags, world["lead"], expected=agreed.id)
    assert (refused.value.expected_id, refused.value.current) == (agreed.id, None)
    assert edit(engine, item, tags, world["lead"], expected=None).source == "edited"


def test_leads_racing_on_one_item_leave_one_decision_and_refuse_the_other(any_world):
    import threading

    engine, world = any_world["engine"], any_world
    item = disagree(engine, world)
    barrier = threading.Barrier(2)
    outcomes = {}

    def decide(lead, tags):
        barrier.wait()
        try:
            outcomes[lead] = edit(engine, item, tags, world[lead], expected=None).id
        except StaleDecision as exc:
            outcomes[lead] = exc

    threads = [threading.Thread(target=decide, args=(lead, tags)) for lead, tags in
               (("lead", ["O", "B", "I", "O", "O", "O", "O"]), ("omar", ["O", "B", "O", "O", "O", "O", "O"]))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    refused = [o for o in outcomes.values() if isinstance(o, StaleDecision)]
    assert len(refused) == 1 and len(decisions(engine, item)) == 1
    assert refused[0].current.id == decisions(engine, item)[0].id


def open_items(engine) -> list[int]:
    """The open disagreements, worst first, as the queue, its lines (what the pages list) and the Home
    count see them: they must agree."""
    pid = project_id(engine)
    every = disagreement_queue(engine, pid, include_resolved=True)
    assert [(d.item_id, d.sentence_key, d.phase, d.translator, d.disagreement, d.resolved)
            for d in disagreements(engine, pid)] == [
        (e.item_id, e.sentence_key, e.phase, e.translator, e.disagreement, e.resolved) for e in every]
    queue = [e.item_id for e in disagreement_queue(engine, pid)]
    assert queue == [e.item_id for e in every if not e.resolved]
    assert open_disagreement_count(engine, pid) == len(queue)
    return queue


def test_the_open_count_is_the_queue_without_the_items_a_lead_settled(any_world):
    engine, world = any_world["engine"], any_world
    assert open_items(engine) == []
    t1 = disagree(engine, world)
    t2 = submit(engine, world["meera"], world["t2"], ["B", "O", "B", "O", "O", "O"])
    assert open_items(engine) == [t1]  # t2 waits for kiran
    submit(engine, world["kiran"], world["t2"], ["O"] * 6)
    assert open_items(engine) == [t2, t1]  # 2 of 6 tokens differ, then 1 of 7
    meera = next(v for v in item_entry(engine, t1).versions if v.annotator == "meera")
    accepted = accept(engine, t1, meera.annotation_id, world["lead"], expected=None)
    assert open_items(engine) == [t2]
    # kiran edits after the lead decided: the decision stands, but the item asks for a look again
    edit_submitted(engine, world["kiran"], world["t1"], ["O", "B", "I", "O", "O", "O", "B"])
    assert open_items(engine) == [t2, t1]
    assert item_entry(engine, t1).gold.id == accepted.id
    edit(engine, t2, ["B", "O", "O", "O", "O", "O"], world["lead"], expected=None)
    assert open_items(engine) == [t1]
    assert [e.item_id for e in disagreement_queue(engine, project_id(engine), include_resolved=True)] == [t2, t1]


def test_versions_stored_in_another_spelling_of_the_same_tags_agree(any_world):
    """The queue asks SQL only for items whose stored tags differ as text; the rule then decides on the
    tags themselves, so the same tags written with other spacing are agreement, and gold."""
    engine, world = any_world["engine"], any_world
    tags = ["B", "O", "B", "O", "O", "O"]
    item = submit(engine, world["meera"], world["t2"], tags)
    submit(engine, world["kiran"], world["t2"], tags)
    value = "CAST(:tags AS JSON)" if engine.dialect.name == "postgresql" else ":tags"
    with transaction(engine) as session:
        session.execute(text(f"UPDATE annotations SET tags = {value} WHERE item_id = :item AND annotator_id = :who"),
                        {"tags": '["B","O","B","O","O","O"]', "item": item, "who": world["kiran"]})
    pid = project_id(engine)
    with Session(engine) as session:
        spelled = session.scalars(select(Annotation.tags).where(Annotation.item_id == item)).all()
        every, differing = item_states(session, pid), item_states(session, pid, differing_only=True)
    assert spelled == [tags, tags]
    assert list(differing) == [item]  # differently spelled in SQL ...
    assert all(getattr(differing[item], name) == getattr(every[item], name) for name in (
        "annotation_ids", "annotators", "versions", "assignees", "latest", "latest_id", "translation_id"))
    assert open_items(engine) == [] and disagreement_queue(engine, pid, include_resolved=True) == []
    assert gold_count(engine, pid) == (1, 1)  # ... and agreed gold by the rule


def test_sync_and_count_writes_what_sync_writes_and_counts_the_gold_after_it(any_world):
    """The Adjudication page's one read after a change: agreement whose decision is missing (rows made
    outside the app) is written, and counted as gold already."""
    engine, world = any_world["engine"], any_world
    pid = project_id(engine)
    tags = ["B", "O", "B", "O", "O", "O"]
    agreed = submit(engine, world["meera"], world["t2"], tags)
    submit(engine, world["kiran"], world["t2"], tags)
    disagree(engine, world)
    with transaction(engine) as session:
        session.execute(Revision.__table__.delete().where(Revision.entity == "adjudication"))
        session.execute(Adjudication.__table__.delete())
    assert gold_count(engine, pid) == (1, 2)  # the rule's gold, not written yet
    assert sync_and_count(engine, pid) == (1, 1, 2)
    assert [(d.source, d.tags) for d in decisions(engine, agreed)] == [("agreed", tags)]
    assert sync_and_count(engine, pid) == (0, 1, 2) and sync_agreed(engine, pid) == 0
