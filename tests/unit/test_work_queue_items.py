"""The work queue's rules give the items the Home page counts: the Assignments and Final translations pages
list exactly these (one rule, two uses)."""

from __future__ import annotations

from datetime import datetime, timedelta

from corpus.vocabulary import Status
from corpus.work_queue import (
    CoverageRow,
    FinalRow,
    SubmittedRow,
    TaskRow,
    overdue,
    overdue_tasks,
    unassigned,
    unassigned_sentences,
    untranslatable_to_review,
    without_final,
)

NOW = datetime(2026, 3, 10, 12, 0)
OLD, FRESH = NOW - timedelta(days=8), NOW - timedelta(days=2)


def test_overdue_tasks_are_the_open_old_tasks_of_active_people_and_overdue_counts_them():
    tasks = [
        TaskRow("asha", True, Status.DRAFT, OLD, task=1, sentence=10, phase="aware"),       # overdue
        TaskRow("asha", True, Status.SUBMITTED, OLD, task=2, sentence=11, phase="blind"),   # done
        TaskRow("ravi", True, Status.SKIPPED, OLD, task=3, sentence=12, phase="blind"),     # overdue
        TaskRow("ravi", True, Status.ASSIGNED, FRESH, task=4, sentence=13, phase="blind"),  # fresh
        TaskRow("old", False, Status.ASSIGNED, OLD, task=5, sentence=14, phase="blind"),    # inactive
        TaskRow("priya", True, Status.REASSIGNED, OLD, task=6, sentence=15, phase="blind"),
    ]
    assert [t.task for t in overdue_tasks(tasks, NOW)] == [1, 3]
    assert overdue(tasks, NOW).people == ("asha", "ravi") and overdue(tasks, NOW).tasks == 2
    assert [t.task for t in overdue_tasks(tasks, NOW, days=1)] == [1, 3, 4]


def test_unassigned_sentences_per_phase_in_the_order_given():
    coverage = [CoverageRow(1, "blind", Status.SUBMITTED), CoverageRow(1, "aware", Status.DRAFT),
                CoverageRow(2, "blind", Status.REASSIGNED), CoverageRow(3, "aware", Status.ASSIGNED)]
    assert unassigned_sentences([4, 3, 2, 1, 3], coverage, "blind") == [4, 3, 2]
    assert unassigned_sentences([4, 3, 2, 1], coverage, "aware") == [4, 2]
    assert unassigned([4, 3, 2, 1], coverage) == {"blind": 3, "aware": 2}


def test_without_final_and_untranslatable_to_review():
    submitted = [SubmittedRow(1, False, True), SubmittedRow(2, False, True), SubmittedRow(2, True, False),
                 SubmittedRow(3, True, False), SubmittedRow(4, False, False)]
    finals = [FinalRow(1, False), FinalRow(3, True)]
    assert without_final(submitted, finals) == {2}        # 4 has no text: no candidate
    assert untranslatable_to_review(submitted, finals) == {2}  # 3 was decided by a lead
    assert untranslatable_to_review(submitted, [FinalRow(2, False)]) == {2, 3}  # the rule's pick is no review
