"""The lead's work queue read from the database: plain rows for ``corpus.work_queue``.

Everything but the disagreements is read in one read-only transaction; the disagreements come from the
adjudication queue itself (``db.adjudication.disagreement_queue``, its own read), so the Home page and the
Adjudication page never disagree on what is open.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.vocabulary import Status
from corpus.work_queue import OVERDUE_DAYS, FinalRow, SubmittedRow, TaskRow, WorkQueue, work_queue
from db.adjudication import disagreement_queue, tagging_stamp
from db.engine import read
from db.models import (
    AnnotationAssignment,
    FinalChoice,
    SourceSentence,
    Translation,
    TranslationAssignment,
    User,
    utcnow,
)


def _rows(session: Session, project_id: int) -> tuple[list, list, list, list, list]:
    in_project = select(SourceSentence.id).where(SourceSentence.project_id == project_id)
    sentences = list(session.scalars(in_project))
    translation_tasks = [
        TaskRow(*row) for row in session.execute(
            select(User.username, User.active, TranslationAssignment.sentence_id, TranslationAssignment.phase,
                   TranslationAssignment.status, TranslationAssignment.created_at)
            .join(User, User.id == TranslationAssignment.user_id)
            .where(TranslationAssignment.sentence_id.in_(in_project)))
    ]
    tagging_tasks = [
        TaskRow(username, active, translation_id, None, status, created_at)
        for username, active, translation_id, status, created_at in session.execute(
            select(User.username, User.active, AnnotationAssignment.translation_id, AnnotationAssignment.status,
                   AnnotationAssignment.created_at)
            .join(User, User.id == AnnotationAssignment.user_id)
            .join(Translation, Translation.id == AnnotationAssignment.translation_id)
            .where(Translation.sentence_id.in_(in_project)))
    ]
    submitted = [
        SubmittedRow(sentence, bool(untranslatable), bool(text and text.strip()))
        for sentence, untranslatable, text in session.execute(
            select(Translation.sentence_id, Translation.untranslatable, Translation.text)
            .where(Translation.sentence_id.in_(in_project), Translation.status == Status.SUBMITTED))
    ]
    latest = select(func.max(FinalChoice.id)).where(FinalChoice.sentence_id.in_(in_project)).group_by(
        FinalChoice.sentence_id)
    finals = [FinalRow(sentence, chosen_by is not None) for sentence, chosen_by in session.execute(
        select(FinalChoice.sentence_id, FinalChoice.chosen_by).where(FinalChoice.id.in_(latest)))]
    return sentences, translation_tasks, tagging_tasks, submitted, finals


def lead_work_queue(engine: Engine, project_id: int, now: datetime | None = None,
                    overdue_days: int = OVERDUE_DAYS) -> WorkQueue:
    """What waits for a lead in the project, as of ``now`` (UTC, naive like the stored times)."""
    rows = read(engine, _rows, project_id)
    disagreements = len(disagreement_queue(engine, project_id))
    return work_queue(*rows, disagreements=disagreements, now=now or utcnow(), overdue_days=overdue_days)


def _assignments(session: Session) -> tuple:
    counts = session.execute(
        select(TranslationAssignment.status, func.count(), func.max(TranslationAssignment.id),
               func.max(TranslationAssignment.updated_at))
        .group_by(TranslationAssignment.status).order_by(TranslationAssignment.status)).all()
    finals = session.scalar(select(func.max(FinalChoice.id)))
    people = session.execute(select(func.count(User.id), func.sum(User.session_epoch))
                             .where(User.active.is_(True))).one()
    return tuple(map(tuple, counts)), finals, tuple(people)


def work_stamp(engine: Engine, project_id: int) -> tuple:
    """Changes whenever a count of the queue may change (a save, an assignment, a final choice, a person
    (de)activated): the Home page keeps the queue until then."""
    return (*tagging_stamp(engine, project_id), *read(engine, _assignments))
