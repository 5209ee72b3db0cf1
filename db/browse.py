"""Read-side queries for the lead's corpus screens (sentence browser)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from db.engine import reader
from db.models import SourceSentence
from db.schema import default_project_id


@dataclass(frozen=True)
class SentenceView:
    row_id: int
    domain: str
    split: str
    sentence_id: str
    text: str
    aspects: list[tuple[str, int, int, str | None, list[str]]]
    categories: list[tuple[str, str | None]]
    flags: list[str]


def list_sentences(engine: Engine, domain: str | None = None, split: str | None = None,
                   contains: str | None = None, flagged_only: bool = False, limit: int = 500) -> list[SentenceView]:
    with Session(reader(engine)) as session:
        query = select(SourceSentence).where(SourceSentence.project_id == default_project_id(session))
        if domain:
            query = query.where(SourceSentence.domain == domain)
        if split:
            query = query.where(SourceSentence.split == split)
        if contains:
            query = query.where(SourceSentence.text.contains(contains, autoescape=True))
        rows = session.scalars(query.order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal)).all()
        views = [
            SentenceView(
                r.id, r.domain, r.split, r.sentence_id, r.text,
                [(a.term, a.start, a.end, a.polarity, list(a.flags or [])) for a in r.aspects],
                [(c.category, c.polarity) for c in r.categories],
                list(r.flags or []),
            )
            for r in rows
        ]
    if flagged_only:
        views = [v for v in views if v.flags]
    return views[:limit] if limit else views


def domains_and_splits(engine: Engine) -> tuple[list[str], list[str]]:
    with Session(reader(engine)) as session:
        pid = default_project_id(session)
        domains = session.scalars(select(SourceSentence.domain).where(SourceSentence.project_id == pid).distinct()).all()
        splits = session.scalars(select(SourceSentence.split).where(SourceSentence.project_id == pid).distinct()).all()
    return sorted(domains), sorted(splits)
