"""The lead's work queue: what waits for a lead's action, counted from plain rows.

Each count is one plain rule, stated here and on the Home page:

- **disagreements to adjudicate**: complete tagging items whose annotators disagree and whose gold no
  lead has settled since (``db.disagreement_queue.disagreement_queue`` decides which; the caller hands in how
  many, or None while they are not counted yet);
- **sentences without a final translation**: a sentence with at least one submitted, translated
  candidate and no final choice in force (neither the automatic rule's recorded pick nor a lead's);
- **sentences not yet assigned**, per phase: a sentence with no active translation task in that phase
  (every status but reassigned counts, as for the assignment plan);
- **overdue work**: an open task (assigned, draft or skipped) of an active person, assigned more than
  ``OVERDUE_DAYS`` days ago; counted per translator and per annotator;
- **untranslatable sentences to review**: a sentence with at least one submitted translation marked
  untranslatable and no lead decision on its final translation;
- **reopen requests**: a worker's request to reopen their submitted translation or annotation that no lead
  has answered, while the work is still submitted (``corpus.reopen.waits_for_lead``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import NamedTuple

from corpus.reopen import waits_for_lead
from corpus.vocabulary import OPEN_STATUSES, Phase, Status

OVERDUE_DAYS = 7


class TaskRow(NamedTuple):
    """A translation or tagging task, as overdue work is judged; ``task``, ``sentence`` and ``phase`` name it
    for the pages that list and reassign it (the rule does not read them)."""

    person: str
    person_active: bool
    status: str
    assigned_at: datetime
    task: int | None = None      # the assignment's id
    sentence: int | None = None  # the sentence (a tagging task: the sentence of the translation it tags)
    phase: str | None = None


class CoverageRow(NamedTuple):
    """A sentence has at least one translation task in ``phase`` with ``status``."""

    sentence: int
    phase: str
    status: str


class SubmittedRow(NamedTuple):
    """A submitted translation: its sentence, and whether it is a translation or marked untranslatable."""

    sentence: int
    untranslatable: bool
    has_text: bool


class FinalRow(NamedTuple):
    """The final choice in force for a sentence; ``by_lead`` False: the automatic rule recorded it."""

    sentence: int
    by_lead: bool


class ReopenRow(NamedTuple):
    """A reopen request: its state, and the status of the translation or annotation it is about."""

    request: int
    state: str
    record_status: str


@dataclass(frozen=True)
class Overdue:
    people: tuple[str, ...] = ()  # sorted usernames
    tasks: int = 0


@dataclass(frozen=True)
class WorkQueue:
    disagreements: int | None = 0  # None: not counted yet
    without_final: int = 0
    unassigned: Mapping[str, int] = field(default_factory=dict)  # phase -> sentences
    overdue_translators: Overdue = Overdue()
    overdue_annotators: Overdue = Overdue()
    untranslatable: int = 0
    reopen_requests: int = 0

    @property
    def empty(self) -> bool:
        return self.disagreements == 0 and not (self.without_final or any(self.unassigned.values())
                    or self.overdue_translators.tasks or self.overdue_annotators.tasks or self.untranslatable
                    or self.reopen_requests)


def overdue_tasks(tasks: Iterable[TaskRow], now: datetime, days: int = OVERDUE_DAYS) -> list[TaskRow]:
    """Open tasks of active people assigned more than ``days`` days before ``now``, in the order given."""
    return [t for t in tasks
            if t.person_active and t.status in OPEN_STATUSES and now - t.assigned_at > timedelta(days=days)]


def overdue(tasks: Iterable[TaskRow], now: datetime, days: int = OVERDUE_DAYS) -> Overdue:
    """``overdue_tasks`` counted: who is late, and with how many tasks."""
    late = overdue_tasks(tasks, now, days)
    return Overdue(tuple(sorted({t.person for t in late})), len(late))


def unassigned_sentences(sentences: Iterable[int], coverage: Iterable[CoverageRow], phase: str) -> list[int]:
    """The sentences (in the order given, once each) without an active task in ``phase``."""
    covered = {c.sentence for c in coverage if c.phase == phase and c.status != Status.REASSIGNED}
    return [s for s in dict.fromkeys(sentences) if s not in covered]


def unassigned(sentences: Iterable[int], coverage: Iterable[CoverageRow]) -> dict[str, int]:
    """Per phase (blind first, the order they are worked in): how many ``unassigned_sentences``."""
    sentences, coverage = list(sentences), list(coverage)
    return {phase: len(unassigned_sentences(sentences, coverage, phase)) for phase in (Phase.BLIND, Phase.AWARE)}


def without_final(submitted: Iterable[SubmittedRow], finals: Iterable[FinalRow]) -> set[int]:
    """Sentences with a submitted, translated candidate and no final choice in force."""
    translated = {s.sentence for s in submitted if not s.untranslatable and s.has_text}
    return translated - {f.sentence for f in finals}


def untranslatable_to_review(submitted: Iterable[SubmittedRow], finals: Iterable[FinalRow]) -> set[int]:
    """Sentences a translator marked untranslatable whose final translation no lead has decided."""
    by_lead = {f.sentence for f in finals if f.by_lead}
    return {s.sentence for s in submitted if s.untranslatable} - by_lead


def reopen_requests(rows: Iterable[ReopenRow]) -> list[int]:
    """The requests (in the order given) that wait for a lead."""
    return [r.request for r in rows if waits_for_lead(r.state, r.record_status)]


def work_queue(
    sentences: Iterable[int], coverage: Iterable[CoverageRow], translation_tasks: Iterable[TaskRow],
    tagging_tasks: Iterable[TaskRow], submitted: Iterable[SubmittedRow], finals: Iterable[FinalRow],
    disagreements: int | None, now: datetime, overdue_days: int = OVERDUE_DAYS,
    reopens: Iterable[ReopenRow] = (),
) -> WorkQueue:
    """Every count of the lead's queue (the rules are in the module docstring)."""
    submitted, finals = list(submitted), list(finals)
    return WorkQueue(
        disagreements=disagreements,
        without_final=len(without_final(submitted, finals)),
        unassigned=unassigned(sentences, coverage),
        overdue_translators=overdue(translation_tasks, now, overdue_days),
        overdue_annotators=overdue(tagging_tasks, now, overdue_days),
        untranslatable=len(untranslatable_to_review(submitted, finals)),
        reopen_requests=len(reopen_requests(reopens)),
    )
