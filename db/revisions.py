"""The append-only revision history: every save stores a full snapshot, so nothing is ever lost."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from db.models import Revision


def record_revision(
    session: Session, entity: str, entity_id: int, version: int, author_id: int | None, action: str,
    payload: dict[str, Any],
) -> Revision:
    revision = Revision(
        entity=entity, entity_id=entity_id, version=version, author_id=author_id, action=action, payload=payload
    )
    session.add(revision)
    return revision


def history(session: Session, entity: str, entity_id: int) -> list[Revision]:
    """Oldest first."""
    return list(
        session.scalars(
            select(Revision).where(Revision.entity == entity, Revision.entity_id == entity_id).order_by(Revision.id)
        )
    )
