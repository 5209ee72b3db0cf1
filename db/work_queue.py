"""The lead's work queue read from the database: plain rows for ``corpus.work_queue``.

The rows are read in one read-only transaction, narrowed in SQL to what the counts look at (open tasks,
one row per sentence, phase and status) so a paper-scale project sends thousands of rows, not the
~140,000 tasks. The disagreements are counted by the adjudication queue's own reader
(``db.disagreement_queue.open_disagreement_count``: the same items and the same test of "settled" as
``disagreement_queue``, without reading their tokens and versions), so the Home page and the
Adjudication page never disagree on what is open; the page counts them last.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, and_, func, select
from sqlalchemy.orm import Session

from corpus.vocabulary import OPEN_STATUSES, Status
from corpus.work_queue import (
    OVERDUE_DAYS,
    CoverageRow,
    FinalRow,
    SubmittedRow,
    TaskRow,
    WorkQueue,
    work_queue,
)
from db.disagreement_queue import open_disagreement_count
from db.engine import read
from db.reopen_requests import reopen_rows, reopen_stamp
from db.models import (
    AnnotationAssignment,
    FinalChoice,
    SourceSentence,
    Translation,
    TranslationAssignment,
    User,
    utcnow,
)


def _in_project(project_id: int):
    return select(SourceSentence.id).where(SourceSentence.project_id == project_id)


def coverage_rows(session: Session, project_id: int) -> list[CoverageRow]:
    """One row per (sentence, phase, status) of the translation tasks: what ``unassigned`` reads."""
    return [CoverageRow(*row) for row in session.connection().execute(
        select(TranslationAssignment.sentence_id, TranslationAssignment.phase, TranslationAssignment.status)
        .where(TranslationAssignment.sentence_id.in_(_in_project(project_id))).distinct())]


def translation_task_rows(session: Session, project_id: int) -> list[TaskRow]:
    """The open translation tasks of the project (what ``overdue`` judges), oldest first."""
    return [TaskRow(*row) for row in session.connection().execute(
        select(User.username, User.active, TranslationAssignment.status, TranslationAssignment.created_at,
               TranslationAssignment.id, TranslationAssignment.sentence_id, TranslationAssignment.phase)
        .join(User, User.id == TranslationAssignment.user_id)
        .where(TranslationAssignment.sentence_id.in_(_in_project(project_id)),
               TranslationAssignment.status.in_(OPEN_STATUSES))
        .order_by(TranslationAssignment.created_at, TranslationAssignment.id))]


def tagging_task_rows(session: Session, project_id: int) -> list[TaskRow]:
    """The open tagging tasks of the project, oldest first; the sentence and phase of the translation tagged."""
    return [TaskRow(*row) for row in session.connection().execute(
        select(User.username, User.active, AnnotationAssignment.status, AnnotationAssignment.created_at,
               AnnotationAssignment.id, Translation.sentence_id, Translation.phase)
        .join(User, User.id == AnnotationAssignment.user_id)
        .join(Translation, Translation.id == AnnotationAssignment.translation_id)
        .where(Translation.sentence_id.in_(_in_project(project_id)),
               AnnotationAssignment.status.in_(OPEN_STATUSES))
        .order_by(AnnotationAssignment.created_at, AnnotationAssignment.id))]


def submitted_rows(session: Session, project_id: int) -> list[SubmittedRow]:
    """One row per sentence and kind of submitted translation (translated, marked untranslatable)."""
    has_text = and_(Translation.text.is_not(None), func.length(func.trim(Translation.text)) > 0)
    return [SubmittedRow(sentence, bool(untranslatable), bool(text)) for sentence, untranslatable, text in
            session.connection().execute(
                select(Translation.sentence_id, Translation.untranslatable, has_text)
                .where(Translation.sentence_id.in_(_in_project(project_id)), Translation.status == Status.SUBMITTED)
                .distinct())]


def final_rows(session: Session, project_id: int) -> list[FinalRow]:
    """The final choice in force per sentence (the latest row), and whether a lead made it."""
    in_project = _in_project(project_id)
    latest = select(func.max(FinalChoice.id)).where(FinalChoice.sentence_id.in_(in_project)).group_by(
        FinalChoice.sentence_id)
    return [FinalRow(sentence, chosen_by is not None) for sentence, chosen_by in session.connection().execute(
        select(FinalChoice.sentence_id, FinalChoice.chosen_by).where(FinalChoice.id.in_(latest)))]


def _rows(session: Session, project_id: int) -> tuple[list, ...]:
    # plain rows (session.connection()): no ORM bookkeeping per row
    sentences = list(session.connection().execute(_in_project(project_id)).scalars())
    return (sentences, coverage_rows(session, project_id), translation_task_rows(session, project_id),
            tagging_task_rows(session, project_id), submitted_rows(session, project_id),
            final_rows(session, project_id))


def open_disagreements(engine: Engine, project_id: int) -> int:
    """Disagreements waiting for a lead: the Adjudication page's queue, decided ones left out."""
    return open_disagreement_count(engine, project_id)


def lead_work_queue(engine: Engine, project_id: int, now: datetime | None = None,
                    overdue_days: int = OVERDUE_DAYS, count_disagreements: bool = True) -> WorkQueue:
    """What waits for a lead in the project, as of ``now`` (UTC, naive like the stored times).
    ``count_disagreements`` False leaves them uncounted (None): the page counts them last, apart."""
    count = open_disagreements(engine, project_id) if count_disagreements else None
    rows, reopens = read(engine, _queue_rows, project_id)
    return work_queue(*rows, disagreements=count, now=now or utcnow(), overdue_days=overdue_days, reopens=reopens)


def _queue_rows(session: Session, project_id: int) -> tuple[tuple[list, ...], list]:
    return _rows(session, project_id), reopen_rows(session, project_id)


def _others(session: Session) -> tuple:
    db = session.connection()
    counts = db.execute(
        select(TranslationAssignment.status, func.count(), func.max(TranslationAssignment.id),
               func.max(TranslationAssignment.updated_at))
        .group_by(TranslationAssignment.status).order_by(TranslationAssignment.status)).all()
    finals = db.execute(select(func.max(FinalChoice.id))).scalar()
    people = db.execute(select(func.count(User.id), func.sum(User.session_epoch)).where(User.active.is_(True))).one()
    return tuple(map(tuple, counts)), finals, tuple(people), reopen_stamp(session)


def queue_stamp(engine: Engine) -> tuple:
    """With ``db.disagreement_queue.tagging_stamp`` (every save, every tagging assignment), changes whenever a
    count of the queue may change: a translation assignment, a final choice, a person (de)activated, a
    reopen request made or answered. The
    Home page keeps the counts until then; the disagreements depend on the tagging stamp alone."""
    return read(engine, _others)
