"""The project's pending reopen requests as plain rows, read in the caller's transaction: what the lead's work
queue counts (``db.work_queue``). A reader: ``db.reopen`` answers the requests.
"""

from __future__ import annotations

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from corpus.reopen import RequestState, WorkKind
from corpus.work_queue import ReopenRow
from db.models import Annotation, ReopenRequest, SourceSentence, TaggingItem, Translation


def project_sentences(project_id: int) -> Select:
    """The ids of the project's source sentences, as a subquery (a request's record is found through them)."""
    return select(SourceSentence.id).where(SourceSentence.project_id == project_id)


def reopen_rows(session: Session, project_id: int) -> list[ReopenRow]:
    """The project's pending requests with their record's status, as plain rows for the lead's work queue
    (``corpus.work_queue.reopen_requests`` counts those that wait, by the rule ``pending_requests`` lists)."""
    db = session.connection()
    in_project = project_sentences(project_id)
    pending = ReopenRequest.state == RequestState.PENDING
    rows = db.execute(
        select(ReopenRequest.id, ReopenRequest.state, Translation.status)
        .join(Translation, Translation.id == ReopenRequest.record_id)
        .where(pending, ReopenRequest.kind == WorkKind.TRANSLATION, Translation.sentence_id.in_(in_project))).all()
    rows += db.execute(
        select(ReopenRequest.id, ReopenRequest.state, Annotation.status)
        .join(Annotation, Annotation.id == ReopenRequest.record_id)
        .join(TaggingItem, TaggingItem.id == Annotation.item_id)
        .join(Translation, Translation.id == TaggingItem.translation_id)
        .where(pending, ReopenRequest.kind == WorkKind.ANNOTATION, Translation.sentence_id.in_(in_project))).all()
    return sorted(ReopenRow(*row) for row in rows)


def reopen_stamp(session: Session) -> tuple:
    """Changes whenever a request is made or answered (each answer moves its row's version)."""
    return tuple(session.connection().execute(
        select(func.count(ReopenRequest.id), func.max(ReopenRequest.id), func.sum(ReopenRequest.version))).one())
