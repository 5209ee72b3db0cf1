"""Reopening submitted work: a worker asks, a lead reopens or declines, always with a reason.

The rules, over plain values (``db/reopen.py`` stores and reads; ``ui/reopen.py`` shows):

- **who asks**: the worker whose submitted translation or annotation it is; one pending request per record;
- **who answers**: a lead, and only a lead (``Role.LEAD``): an admin is no lead unless given that role too;
- **what can be reopened**: submitted work only. A blind translation whose translator has since begun the
  aware translation of the same sentence cannot be reopened: they could no longer translate it blind
  (``corpus.assignment.blind_contaminated``), so reopening would lock it away from them;
- **reasons**: required from the worker and from the lead, NFC, trimmed, at most ``MAX_REASON_CHARS``
  characters, no control characters;
- **what waits for a lead**: a pending request whose record is still submitted (``waits_for_lead``: the
  lead's list and the Home count);
- **what the worker sees**: the latest answer or request on their record (``worker_notice``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from corpus.assignment import blind_contaminated
from corpus.tokens import normalize
from corpus.vocabulary import Phase, Role, Status
from corpus.workfile import check_string

MAX_REASON_CHARS = 500


class RequestState(StrEnum):
    """Where a reopen request stands (a lead's reopen without a request is stored as ``REOPENED``)."""

    PENDING = "pending"      # the worker asked; no lead has answered
    REOPENED = "reopened"    # a lead reopened the work (answering the request, or on their own)
    DECLINED = "declined"    # a lead said no, with a reason


class WorkKind(StrEnum):
    """The submitted records a lead can reopen (the names the revision history uses for them)."""

    TRANSLATION = "translation"
    ANNOTATION = "annotation"


class ReasonRefused(ValueError):
    """A reason that cannot be stored; the message says why, in words a page shows as they are."""


class ReopenRefused(PermissionError):
    """The action is not allowed for this person or this record; the message says why."""


def clean_reason(text: str | None, who: str = "reason") -> str:
    """The reason as stored: NFC, without surrounding whitespace; ReasonRefused if it is empty, too long
    or holds a control character."""
    reason = normalize(text or "").strip()
    if not reason:
        raise ReasonRefused(f"say why: the {who} is required")
    if len(reason) > MAX_REASON_CHARS:
        raise ReasonRefused(f"the {who} is {len(reason):,} characters long (at most {MAX_REASON_CHARS}); shorten it")
    problem = check_string(reason, who)
    if problem:
        raise ReasonRefused(f"{problem}; remove it")
    return reason


def may_answer(roles: Iterable[str]) -> bool:
    """Only a lead reopens work or declines a request; the admin role alone does not."""
    return Role.LEAD in set(roles)


def waits_for_lead(state: str, record_status: str) -> bool:
    """A request waits for a lead while it is pending and its record is still submitted (one whose worker
    reopened it themselves waits again only once it is submitted again)."""
    return state == RequestState.PENDING and record_status == Status.SUBMITTED


def request_refusal(record_status: str, pending: bool) -> str | None:
    """Why the worker may not ask to reopen their record now, or None."""
    if record_status != Status.SUBMITTED:
        return "only submitted work can be reopened; this is still yours to edit"
    if pending:
        return "you have already asked your lead to reopen this; wait for their answer"
    return None


def reopen_refusal(kind: str, record_status: str, phase: str | None = None, aware_status: str | None = None,
                   has_aware_translation: bool = False) -> str | None:
    """Why a lead may not reopen this record, or None. For a translation, ``phase`` is its phase and
    ``aware_status`` / ``has_aware_translation`` describe its translator's aware task of the sentence."""
    if record_status != Status.SUBMITTED:
        return "it is not submitted (someone reopened it already): there is nothing to reopen"
    if (kind == WorkKind.TRANSLATION and phase == Phase.BLIND
            and blind_contaminated(aware_status, has_aware_translation)):
        return ("its translator has begun the aware translation of the same sentence, so they can no longer "
                "translate it blind; reassign the blind task instead")
    return None


@dataclass(frozen=True)
class Notice:
    """What a worker's task says about reopening: ``kind`` is "info", "warning" or "success"."""

    kind: str
    text: str


def worker_notice(state: str | None, record_status: str, lead: str | None, answer: str | None,
                  request: str | None) -> Notice | None:
    """The line shown on the worker's task for the latest request or reopening of their record (``state``
    None: there is none). A reopening shows while the work is a draft again; a decline while it stays
    submitted; a pending request while it waits for a lead."""
    if waits_for_lead(state, record_status):
        return Notice("info", f"You asked your lead to reopen this: {request}. Waiting for their answer.")
    if state == RequestState.REOPENED and record_status == Status.DRAFT:
        return Notice("warning", f"Reopened by {lead}: {answer}")
    if state == RequestState.DECLINED and record_status == Status.SUBMITTED:
        return Notice("info", f"Your request to reopen this was declined by {lead}: {answer}")
    return None
