"""The Assignments page's lists, on SQLite and PostgreSQL: the sentences not yet assigned per phase and the
overdue tasks are the Home page's rules over the same rows (the counts agree), and reassigning moves a task."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.assignment import assign_translations, overdue_work, reassign_tasks, unassigned_in_phase
from db.models import AnnotationAssignment, TranslationAssignment
from db.work_queue import lead_work_queue
from tests.support.assign_fixtures import NOW, build
from tests.support.tagging_fixtures import project_id


@pytest.fixture
def world(any_engine):
    ids = build(any_engine)
    ids["engine"] = any_engine
    ids["pid"] = project_id(any_engine)
    return ids


def test_the_lists_hold_what_the_home_page_counts(world):
    engine, pid, s = world["engine"], world["pid"], world["s"]
    assert [r.sentence_pk for r in unassigned_in_phase(engine, pid, "blind")] == [s[3]]
    assert [r.sentence_pk for r in unassigned_in_phase(engine, pid, "aware")] == [s[1], s[2], s[3]]
    assert unassigned_in_phase(engine, pid, "blind")[0].key == "restaurant/train/4"
    late = overdue_work(engine, pid, "translation", now=NOW)
    assert [(t.task_id, t.person, t.sentence_pk, t.phase, t.status) for t in late] == [
        (world["late_asha"], "asha", s[0], "aware", "draft"), (world["late_ravi"], "ravi", s[1], "blind", "assigned")]
    tagging = overdue_work(engine, pid, "tagging", now=NOW)
    assert [(t.task_id, t.person, t.key, t.phase) for t in tagging] == [
        (world["late_meera"], "meera", "restaurant/train/1", "blind")]
    queue = lead_work_queue(engine, pid, now=NOW, count_disagreements=False)
    assert dict(queue.unassigned) == {"blind": 1, "aware": 3}
    assert (queue.overdue_translators.tasks, queue.overdue_annotators.tasks) == (len(late), len(tagging))
    with pytest.raises(ValueError, match="kind"):
        overdue_work(engine, pid, "reviewing")
    with pytest.raises(ValueError, match="phase"):
        unassigned_in_phase(engine, pid, "both")


def test_assigning_one_phase_leaves_the_other_alone(world):
    engine, pid, s = world["engine"], world["pid"], world["s"]
    summary = assign_translations(engine, pid, [s[1], s[2], s[3]], world["lead"], 1, phases=("aware",))
    assert summary.created == 3
    assert unassigned_in_phase(engine, pid, "aware") == []
    assert [r.sentence_pk for r in unassigned_in_phase(engine, pid, "blind")] == [s[3]]


def test_reassigning_an_overdue_translation_task_gives_it_to_someone_else(world):
    engine, pid, s = world["engine"], world["pid"], world["s"]
    done = reassign_tasks(engine, "translation", [world["late_ravi"]], world["lead"])
    assert (done.moved, done.created, done.short) == (1, 1, 0)
    with Session(engine) as session:
        rows = session.execute(select(TranslationAssignment.user_id, TranslationAssignment.status)
                               .where(TranslationAssignment.sentence_id == s[1])
                               .order_by(TranslationAssignment.id)).all()
    # uma holds no active task (hers on s4 was reassigned); asha holds two: uma is the least loaded
    assert [tuple(r) for r in rows] == [(world["ravi"], "reassigned"), (world["uma"], "assigned")]
    assert [t.task_id for t in overdue_work(engine, pid, "translation", now=NOW)] == [world["late_asha"]]
    # A task no longer open is left alone.
    assert reassign_tasks(engine, "translation", [world["late_ravi"]], world["lead"]).moved == 0


def test_reassigning_an_overdue_tagging_task_tops_the_item_up_with_another_annotator(world):
    engine, pid = world["engine"], world["pid"]
    done = reassign_tasks(engine, "tagging", [world["late_meera"]], world["lead"])
    assert (done.moved, done.created, done.short) == (1, 1, 0)
    with Session(engine) as session:
        rows = session.execute(select(AnnotationAssignment.user_id, AnnotationAssignment.status)
                               .where(AnnotationAssignment.translation_id == world["t1"])
                               .order_by(AnnotationAssignment.id)).all()
    assert [tuple(r) for r in rows] == [(world["meera"], "reassigned"), (world["kiran"], "assigned"),
                                        (world["neha"], "assigned")]
    assert overdue_work(engine, pid, "tagging", now=NOW) == []
