"""Reopening submitted work: a worker's request, a lead's reopening or decline, stored in ``reopen_requests``.

The rules are ``corpus.reopen``'s; here they are applied inside one transaction each. A worker reaches only
their own records (someone else's is "not found", as on every worker page). Only a lead (the lead role, not
the admin role alone) reopens or declines, checked here, not only on the page. A reopening follows the
optimistic pattern of every save: the lead names the record's version they saw; if it has moved on, nothing
is written and ``StaleReopen`` (a ``SavedFirst``) carries both sides. It sets the record and its task back to
draft, writes a "reopen" revision (a full snapshot, with who reopened it and why) and answers every pending
request for the record; a lead's reopening without a request is stored as an answered row without one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from corpus.reopen import (
    Notice,
    ReopenRefused,
    RequestState,
    WorkKind,
    clean_reason,
    may_answer,
    reopen_refusal,
    request_refusal,
    waits_for_lead,
    worker_notice,
)
from corpus.vocabulary import INACTIVE_STATUSES, Phase, RevisionAction, Status
from db.access import check_writer
from db.conflicts import SavedFirst
from db.engine import read, transaction
from db.models import (
    Annotation,
    AnnotationAssignment,
    ReopenRequest,
    Revision,
    SourceSentence,
    TaggingItem,
    Translation,
    TranslationAssignment,
    User,
    utcnow,
)
from db.reopen_requests import project_sentences
from db.revisions import record_revision

REOPEN = RevisionAction.REOPEN  # the revision's action, as the annotator's own reopening writes it
ONLY_A_LEAD = "only a lead can reopen submitted work or decline a request"


class RecordNotFound(LookupError):
    """No such record among this person's work (it may be someone else's: we do not say)."""


@dataclass(frozen=True)
class RecordState:
    """A translation or annotation as a lead reopens it: ``version`` is what the lead's reopening names."""

    kind: str
    record_id: int
    status: str
    version: int
    worker: str
    phase: str
    text: str  # the Hindi translation (tagged, for an annotation); "" when marked untranslatable
    updated_at: datetime | None = None


@dataclass(frozen=True)
class WorkerView:
    """What the worker's task shows about reopening: the notice (None: nothing to say), whether they may
    ask now, and why not (None when they may, or when the work is not submitted)."""

    notice: Notice | None
    may_ask: bool
    refusal: str | None = None


@dataclass(frozen=True)
class PendingRequest:
    """One line of the lead's "Reopen requests" list."""

    request_id: int
    request_version: int
    kind: str
    record_id: int
    record_version: int
    worker: str
    sentence_key: str
    source_text: str
    text: str
    phase: str
    reason: str
    requested_at: datetime | None


@dataclass(frozen=True)
class Answer:
    """A lead's answer as stored: ``state`` reopened or declined; ``version`` is the record's new version
    after a reopening (None after a decline)."""

    kind: str
    record_id: int
    state: str
    lead: str
    reason: str
    version: int | None
    answered: tuple[int, ...]  # the requests this answered


class StaleReopen(SavedFirst):
    """The record (or the request) changed since the lead loaded it: nothing was written. ``mine`` is the
    lead's reason; ``theirs`` the record as stored now (a RecordState) or None if it no longer exists."""

    def __init__(self, message: str, mine: str, theirs: RecordState | None, who: str | None = None,
                 when: datetime | str | None = None):
        super().__init__(message, mine=mine, theirs=theirs, who=who,
                         when=when if when is not None else (theirs.updated_at if theirs else None))


def _name(user: User | None) -> str:
    return "" if user is None else (user.display_name or user.username)


def _kind(kind: str) -> WorkKind:
    try:
        return WorkKind(kind)
    except ValueError:
        raise ValueError(f"kind must be one of {', '.join(WorkKind)}, not {kind!r}") from None


def _record(session: Session, kind: WorkKind, record_id: int, *, lock: bool = False) -> Translation | Annotation | None:
    model = Translation if kind == WorkKind.TRANSLATION else Annotation
    query = select(model).where(model.id == record_id).execution_options(populate_existing=True)
    return session.scalars(query.with_for_update(of=model) if lock else query).first()


def _owner(record: Translation | Annotation) -> int:
    return record.translator_id if isinstance(record, Translation) else record.annotator_id


def _translation_of(record: Translation | Annotation) -> Translation:
    return record if isinstance(record, Translation) else record.item.translation


def _state(session: Session, kind: WorkKind, record: Translation | Annotation) -> RecordState:
    translation = _translation_of(record)
    return RecordState(kind, record.id, record.status, record.version, _name(session.get(User, _owner(record))),
                       translation.phase, translation.text or "", record.updated_at)


def _pending(session: Session, kind: WorkKind, record_id: int, *, lock: bool = False) -> list[ReopenRequest]:
    query = (select(ReopenRequest)
             .where(ReopenRequest.kind == kind, ReopenRequest.record_id == record_id,
                    ReopenRequest.state == RequestState.PENDING)
             .order_by(ReopenRequest.id).execution_options(populate_existing=True))
    return list(session.scalars(query.with_for_update() if lock else query))


def _require_lead(session: Session, lead_id: int, session_token: str | None) -> User:
    check_writer(session, lead_id, session_token, error=ReopenRefused)
    lead = session.get(User, lead_id)
    if lead is None or not may_answer(lead.role_names):
        raise ReopenRefused(ONLY_A_LEAD)
    return lead


# ----------------------------------------------------------------------------- the worker


def request_reopen(engine: Engine, user_id: int, kind: str, record_id: int, reason: str,
                   session_token: str | None = None) -> int:
    """The worker asks a lead to reopen their own submitted record; returns the request's id.
    ReasonRefused for a reason that cannot be stored, ReopenRefused when the record is not submitted or a
    request is already pending (or the session ended), RecordNotFound for anyone else's record."""
    kind = _kind(kind)
    text = clean_reason(reason)
    with transaction(engine) as session:
        check_writer(session, user_id, session_token, error=ReopenRefused)
        record = _record(session, kind, record_id, lock=True)
        if record is None or _owner(record) != user_id:
            raise RecordNotFound(f"this {kind} is not among your work")
        refusal = request_refusal(record.status, bool(_pending(session, kind, record_id)))
        if refusal:
            raise ReopenRefused(refusal)
        row = ReopenRequest(kind=kind, record_id=record_id, worker_id=user_id, request_reason=text,
                            requested_at=utcnow(), state=RequestState.PENDING)
        session.add(row)
        session.flush()
        return row.id


def _worker_view(session: Session, user_id: int, kind: WorkKind, record_id: int) -> WorkerView:
    record = _record(session, kind, record_id)
    if record is None or _owner(record) != user_id:
        raise RecordNotFound(f"this {kind} is not among your work")
    latest = session.scalars(
        select(ReopenRequest).where(ReopenRequest.kind == kind, ReopenRequest.record_id == record_id)
        .order_by(ReopenRequest.id.desc()).limit(1)).first()
    pending = latest is not None and latest.state == RequestState.PENDING
    notice = None if latest is None else worker_notice(
        latest.state, record.status, _name(session.get(User, latest.answered_by)) if latest.answered_by else None,
        latest.answer_reason, latest.request_reason)
    refusal = request_refusal(record.status, pending) if record.status == Status.SUBMITTED else None
    return WorkerView(notice, record.status == Status.SUBMITTED and refusal is None, refusal)


def worker_view(engine: Engine, user_id: int, kind: str, record_id: int) -> WorkerView:
    """What the worker's own task shows about reopening (RecordNotFound for anyone else's record)."""
    return read(engine, _worker_view, user_id, _kind(kind), record_id)


# ----------------------------------------------------------------------------- the lead


def _record_state(session: Session, kind: WorkKind, record_id: int) -> RecordState | None:
    record = _record(session, kind, record_id)
    return None if record is None else _state(session, kind, record)


def record_state(engine: Engine, kind: str, record_id: int) -> RecordState | None:
    """A record as the lead sees it now (None: there is no such record)."""
    return read(engine, _record_state, _kind(kind), record_id)


def _pending_rows(session: Session, project_id: int) -> list[PendingRequest]:
    in_project = project_sentences(project_id)
    out: list[PendingRequest] = []
    worker = User
    translation_rows = session.execute(
        select(ReopenRequest, Translation, SourceSentence, worker.display_name, worker.username)
        .join(Translation, Translation.id == ReopenRequest.record_id)
        .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
        .join(worker, worker.id == ReopenRequest.worker_id)
        .where(ReopenRequest.kind == WorkKind.TRANSLATION, ReopenRequest.state == RequestState.PENDING,
               Translation.sentence_id.in_(in_project))
    ).all()
    annotation_rows = session.execute(
        select(ReopenRequest, Annotation, Translation, SourceSentence, worker.display_name, worker.username)
        .join(Annotation, Annotation.id == ReopenRequest.record_id)
        .join(TaggingItem, TaggingItem.id == Annotation.item_id)
        .join(Translation, Translation.id == TaggingItem.translation_id)
        .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
        .join(worker, worker.id == ReopenRequest.worker_id)
        .where(ReopenRequest.kind == WorkKind.ANNOTATION, ReopenRequest.state == RequestState.PENDING,
               Translation.sentence_id.in_(in_project))
    ).all()
    rows: list[tuple[ReopenRequest, Translation | Annotation, Translation, SourceSentence, str]] = [
        (r, t, t, s, display or username) for r, t, s, display, username in translation_rows]
    rows += [(r, a, t, s, display or username) for r, a, t, s, display, username in annotation_rows]
    for request, record, translation, sentence, name in sorted(rows, key=lambda row: row[0].id):
        if not waits_for_lead(request.state, record.status):
            continue
        out.append(PendingRequest(
            request.id, request.version, request.kind, record.id, record.version, name,
            f"{sentence.domain}/{sentence.split}/{sentence.sentence_id}", sentence.text, translation.text or "",
            translation.phase, request.request_reason or "", request.requested_at))
    return out


def pending_requests(engine: Engine, project_id: int) -> list[PendingRequest]:
    """The requests waiting for a lead, oldest first: requests whose record is still submitted (one the
    worker has since reopened themselves waits until it is submitted again)."""
    return read(engine, _pending_rows, project_id)


def _snapshot(session: Session, kind: WorkKind, record: Translation | Annotation) -> dict[str, Any]:
    """The record's latest revision's snapshot (so everything it kept, like rejected suggestions, stays),
    or one built from the row when it has none (imported work)."""
    payload = session.scalars(
        select(Revision.payload).where(Revision.entity == kind, Revision.entity_id == record.id)
        .order_by(Revision.id.desc()).limit(1)).first()
    if payload:
        return dict(payload)
    if isinstance(record, Translation):
        sentence = record.sentence
        return {"sentence": {"domain": sentence.domain, "split": sentence.split, "id": sentence.sentence_id},
                "phase": record.phase, "translator_id": record.translator_id, "text": record.text,
                "untranslatable": record.untranslatable, "reason": record.untranslatable_reason,
                "note": record.untranslatable_note, "time_spent_s": record.time_spent_s,
                "guidelines_version": record.guidelines_version}
    return {"item_id": record.item_id, "translation_id": record.item.translation_id, "tokens": list(record.item.tokens),
            "tags": list(record.tags), "no_aspects": record.no_aspects, "rejected_suggestions": []}


def _task_back_to_draft(session: Session, record: Translation | Annotation) -> None:
    if isinstance(record, Translation):
        tasks = select(TranslationAssignment).where(
            TranslationAssignment.user_id == record.translator_id, TranslationAssignment.sentence_id == record.sentence_id,
            TranslationAssignment.phase == record.phase, TranslationAssignment.status == Status.SUBMITTED)
    else:
        tasks = select(AnnotationAssignment).where(
            AnnotationAssignment.user_id == record.annotator_id,
            AnnotationAssignment.translation_id == record.item.translation_id,
            AnnotationAssignment.status.not_in(INACTIVE_STATUSES))
    for task in session.scalars(tasks):
        task.status = Status.DRAFT


def _aware_of(session: Session, translation: Translation) -> tuple[str | None, bool]:
    """The translator's aware task status for the sentence and whether they have an aware translation."""
    status = session.scalars(select(TranslationAssignment.status).where(
        TranslationAssignment.user_id == translation.translator_id,
        TranslationAssignment.sentence_id == translation.sentence_id, TranslationAssignment.phase == Phase.AWARE,
        TranslationAssignment.status != Status.REASSIGNED)).first()
    has = session.scalars(select(func.count(Translation.id)).where(
        Translation.translator_id == translation.translator_id, Translation.sentence_id == translation.sentence_id,
        Translation.phase == Phase.AWARE)).one() > 0
    return status, has


def reopen(engine: Engine, lead_id: int, kind: str, record_id: int, reason: str, *, expected_version: int,
           answering: tuple[int, int] | None = None, session_token: str | None = None,
           decide_gold: Callable[[Session, int], object]) -> Answer:
    """A lead sets a submitted translation or annotation back to draft, with a reason its worker reads.

    ``expected_version``: the record's version the lead saw; StaleReopen if it has changed since (nothing
    written). ``answering``: (id, version) of the pending request the lead is answering, if any; StaleReopen
    if another lead answered it meanwhile. ReopenRefused for anyone without the lead role, or a record the
    rules keep closed; ReasonRefused for a reason that cannot be stored. ``decide_gold``: what a reopened
    annotation does to its item's automatic gold, in the same transaction (``db.workflows.reopen``)."""
    kind = _kind(kind)
    text = clean_reason(reason)
    try:
        with transaction(engine) as session:
            lead = _require_lead(session, lead_id, session_token)
            record = _record(session, kind, record_id, lock=True)
            if record is None:
                raise StaleReopen(f"this {kind} no longer exists", text, None)
            if record.version != expected_version:
                raise StaleReopen(f"this {kind} was saved after you loaded it (now version {record.version})",
                                  text, _state(session, kind, record))
            if answering is not None:
                _require_pending(session, answering, text, _state(session, kind, record))
            aware_status, has_aware = (_aware_of(session, record) if isinstance(record, Translation)
                                       else (None, False))
            phase = record.phase if isinstance(record, Translation) else None
            refusal = reopen_refusal(kind, record.status, phase, aware_status, has_aware)
            if refusal:
                raise ReopenRefused(f"this {kind} cannot be reopened: {refusal}")
            now = utcnow()
            record.status = Status.DRAFT
            record.submitted_at = None
            record.updated_at = now
            session.flush()
            _task_back_to_draft(session, record)
            requests = _pending(session, kind, record_id, lock=True)
            if not requests:
                requests = [ReopenRequest(kind=kind, record_id=record_id, worker_id=_owner(record))]
                session.add(requests[0])
            for request in requests:
                request.state, request.answered_by = RequestState.REOPENED, lead.id
                request.answer_reason, request.answered_at, request.record_version = text, now, record.version
            session.flush()
            payload = _snapshot(session, kind, record)
            payload.update(status=Status.DRAFT, reopened_by=lead.username, reopen_reason=text,
                           reopen_requests=[r.id for r in requests])
            if "submitted_at" in payload:
                payload["submitted_at"] = None
            record_revision(session, kind, record.id, record.version, lead.id, REOPEN, payload)
            if isinstance(record, Annotation):
                decide_gold(session, record.item_id)  # db.workflows passes the automatic gold rule
            return Answer(kind, record.id, RequestState.REOPENED, _name(lead), text, record.version,
                          tuple(r.id for r in requests))
    except StaleDataError:
        # (PostgreSQL) a save of the record or an answer to its request committed between our read and write.
        raise StaleReopen(f"this {kind} was saved while you reopened it", text, record_state(engine, kind, record_id)) \
            from None


def _require_pending(session: Session, answering: tuple[int, int], reason: str, record: RecordState | None) -> ReopenRequest:
    """The request being answered, locked, if it is still pending as the lead saw it; else StaleReopen."""
    request_id, seen = answering
    request = session.scalars(select(ReopenRequest).where(ReopenRequest.id == request_id)
                              .with_for_update().execution_options(populate_existing=True)).first()
    if request is None:
        raise LookupError(f"no reopen request {request_id}")
    if request.state != RequestState.PENDING or request.version != seen:
        raise StaleReopen(f"this request was already answered ({request.state})", reason, record,
                          who=_name(session.get(User, request.answered_by)) if request.answered_by else None,
                          when=request.answered_at)
    return request


def decline(engine: Engine, lead_id: int, request_id: int, reason: str, *, expected_version: int,
            session_token: str | None = None) -> Answer:
    """A lead declines a pending request, with a reason the worker reads. ``expected_version``: the
    request's version the lead saw; StaleReopen if it was answered or changed since (nothing written)."""
    text = clean_reason(reason)
    try:
        with transaction(engine) as session:
            lead = _require_lead(session, lead_id, session_token)
            row = session.get(ReopenRequest, request_id)
            if row is None:
                raise LookupError(f"no reopen request {request_id}")
            kind = WorkKind(row.kind)
            request = _require_pending(session, (request_id, expected_version), text,
                                       _record_state(session, kind, row.record_id))
            request.state, request.answered_by = RequestState.DECLINED, lead.id
            request.answer_reason, request.answered_at = text, utcnow()
            session.flush()
            return Answer(kind, request.record_id, RequestState.DECLINED, _name(lead), text, None, (request.id,))
    except StaleDataError:
        raise StaleReopen("this request was answered while you declined it", text, None) from None
