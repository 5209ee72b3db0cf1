"""The lead's work queue counted from plain rows: each count checked by hand against a small project."""

from __future__ import annotations

from datetime import datetime, timedelta

from corpus.vocabulary import Status
from corpus.work_queue import (
    CoverageRow,
    FinalRow,
    Overdue,
    SubmittedRow,
    TaskRow,
    WorkQueue,
    overdue,
    unassigned,
    work_queue,
)

NOW = datetime(2026, 3, 10, 12, 0)
OLD = NOW - timedelta(days=8)
FRESH = NOW - timedelta(days=2)


def task(person, unit, phase, status, when, active=True):
    """A task on ``unit`` (a sentence in ``phase``, or a translation for a tagging task, phase None)."""
    return person, active, unit, phase, status, when


def as_task(row) -> TaskRow:
    person, active, _, _, status, when = row
    return TaskRow(person, active, status, when)


def coverage(rows) -> list[CoverageRow]:
    return [CoverageRow(unit, phase, status) for _, _, unit, phase, status, _ in rows]


# Sentences 1..5. Translation tasks:
TRANSLATION = [
    task("asha", 1, "blind", Status.SUBMITTED, OLD),   # done: not overdue
    task("asha", 1, "aware", Status.DRAFT, OLD),       # open and 8 days old: overdue
    task("ravi", 2, "blind", Status.SKIPPED, OLD),     # skipped is still ravi's: overdue
    task("ravi", 3, "blind", Status.ASSIGNED, FRESH),  # 2 days old: not overdue
    task("old", 4, "blind", Status.ASSIGNED, OLD, active=False),  # inactive person: not counted
    task("priya", 5, "blind", Status.REASSIGNED, OLD),  # moved away: neither overdue nor covering 5/blind
]
# Tagging tasks (unit = translation id):
TAGGING = [
    task("meera", 10, None, Status.ASSIGNED, OLD),     # overdue
    task("meera", 11, None, Status.DRAFT, OLD),        # overdue (same person, second task)
    task("arjun", 10, None, Status.SUBMITTED, OLD),    # done
    task("arjun", 12, None, Status.ASSIGNED, FRESH),   # fresh
]
SUBMITTED = [
    SubmittedRow(1, False, True),   # 1: translated, final chosen by the rule -> has a final
    SubmittedRow(2, False, True),   # 2: translated, no final -> without final
    SubmittedRow(2, True, False),   # 2: also marked untranslatable, no lead decision -> to review
    SubmittedRow(3, True, False),   # 3: only untranslatable: no candidate for a final; lead decided -> reviewed
    SubmittedRow(4, True, False),   # 4: untranslatable, final by the rule only -> to review
    SubmittedRow(4, False, True),   # 4: translated, final in force -> has a final
]
FINALS = [FinalRow(1, False), FinalRow(3, True), FinalRow(4, False)]


def test_every_count_of_a_small_project_matches_the_hand_count():
    queue = work_queue(range(1, 6), coverage(TRANSLATION), map(as_task, TRANSLATION), map(as_task, TAGGING),
                       SUBMITTED, FINALS, disagreements=3, now=NOW)
    assert queue == WorkQueue(
        disagreements=3,                 # handed in by the adjudication rule
        without_final=1,                 # sentence 2
        unassigned={"blind": 1,          # sentence 5 (its only blind task was reassigned); 4's inactive task counts
                    "aware": 4},         # 2, 3, 4, 5 (only 1 has an aware task)
        overdue_translators=Overdue(("asha", "ravi"), 2),
        overdue_annotators=Overdue(("meera",), 2),
        untranslatable=2,                # sentences 2 and 4 (3 is decided by a lead)
    )
    assert not queue.empty


def test_a_task_exactly_seven_days_old_is_not_overdue_yet():
    rows = [task("asha", 1, "blind", Status.ASSIGNED, NOW - timedelta(days=7)),
            task("ravi", 1, "blind", Status.ASSIGNED, NOW - timedelta(days=7, seconds=1))]
    assert overdue(map(as_task, rows), NOW) == Overdue(("ravi",), 1)
    assert overdue(map(as_task, rows), NOW, days=30) == Overdue()


def test_unassigned_counts_each_phase_blind_first():
    counts = unassigned([1, 2], coverage([task("asha", 1, "blind", Status.ASSIGNED, NOW)]))
    assert list(counts.items()) == [("blind", 1), ("aware", 2)]


def test_a_project_with_nothing_waiting_is_empty():
    done = [task("asha", 1, "blind", Status.SUBMITTED, OLD), task("asha", 1, "aware", Status.SUBMITTED, OLD)]
    queue = work_queue([1], coverage(done), map(as_task, done), [], [SubmittedRow(1, False, True)],
                       [FinalRow(1, False)], 0, NOW)
    assert queue.empty and queue.unassigned == {"blind": 0, "aware": 0}
    assert WorkQueue().empty
    assert not WorkQueue(unassigned={"blind": 0, "aware": 1}).empty
    assert not WorkQueue(disagreements=None).empty  # not counted yet: not known to be empty


def test_reopen_requests_wait_while_pending_and_their_work_is_still_submitted():
    from corpus.work_queue import ReopenRow, reopen_requests

    rows = [ReopenRow(1, "pending", Status.SUBMITTED),    # waits
            ReopenRow(2, "pending", Status.DRAFT),        # its worker reopened it themselves: not now
            ReopenRow(3, "reopened", Status.DRAFT),       # answered
            ReopenRow(4, "declined", Status.SUBMITTED),   # answered
            ReopenRow(5, "pending", Status.SUBMITTED)]    # waits
    assert reopen_requests(rows) == [1, 5]
    queue = work_queue([], [], [], [], [], [], disagreements=0, now=NOW, reopens=rows)
    assert queue.reopen_requests == 2 and not queue.empty
    assert work_queue([], [], [], [], [], [], disagreements=0, now=NOW, reopens=rows[1:4]).empty
