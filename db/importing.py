"""Write imported source sentences: one transaction, all or nothing, never deleting or overwriting.

Re-importing the same file changes nothing; a sentence that already exists with a different text or
different aspects is an error (the lead decides), not a silent overwrite.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Engine, func, insert, select
from sqlalchemy.orm import Session

from corpus.errors import InputRejected, LocatedError
from corpus.vocabulary import Role
from db.auth import check_writer
from corpus.records import AspectRecord, CategoryRecord, SentenceKey, SentenceRecord
from db.engine import transaction
from db.models import AspectCategory, AspectTerm, AuditEvent, SourceSentence
from db.schema import default_project_id


@dataclass(frozen=True)
class ImportSummary:
    new_sentences: int
    new_aspects: int
    unchanged: int
    flagged: int

    def __str__(self) -> str:
        return f"imported {self.new_sentences} sentences, {self.new_aspects} aspect terms"


def _aspect_signature(aspects) -> tuple:  # noqa: ANN001
    return tuple((a.term, a.start, a.end, a.polarity) for a in aspects)


def existing_sentences(session: Session, project_id: int, keys: set[SentenceKey]) -> dict[SentenceKey, SourceSentence]:
    pairs = {(k.domain, k.split) for k in keys}
    found: dict[SentenceKey, SourceSentence] = {}
    for domain, split in pairs:
        rows = session.scalars(
            select(SourceSentence).where(
                SourceSentence.project_id == project_id, SourceSentence.domain == domain, SourceSentence.split == split
            )
        )
        for row in rows:
            key = SentenceKey(row.domain, row.split, row.sentence_id)
            if key in keys:
                found[key] = row
    return found


def plan_sentence_import(
    session: Session, project_id: int, records: list[SentenceRecord], source: str
) -> tuple[list[SentenceRecord], int, list[LocatedError]]:
    """Which records are new, how many are already present unchanged, and the conflicts."""
    existing = existing_sentences(session, project_id, {r.key for r in records})
    new, unchanged, errors = [], 0, []
    for record in records:
        row = existing.get(record.key)
        if row is None:
            new.append(record)
        elif row.text == record.text and _aspect_signature(row.aspects) == _aspect_signature(record.aspects):
            unchanged += 1
        else:
            errors.append(
                LocatedError(
                    source,
                    f"sentence {record.key} already exists with a different text or aspect terms; "
                    "it was not overwritten",
                    line=record.line,
                    sentence_id=record.key.id,
                )
            )
    return new, unchanged, errors


def insert_sentences(session: Session, project_id: int, records: list[SentenceRecord]) -> dict[SentenceKey, int]:
    """Bulk insert (fast enough for the four official files in well under 3 s); returns row ids."""
    if not records:
        return {}
    start = session.scalar(select(func.coalesce(func.max(SourceSentence.ordinal), 0)).where(
        SourceSentence.project_id == project_id)) or 0
    ids = session.scalars(
        insert(SourceSentence).returning(SourceSentence.id, sort_by_parameter_order=True),
        [
            {
                "project_id": project_id,
                "domain": r.key.domain,
                "split": r.key.split,
                "sentence_id": r.key.id,
                "text": r.text,
                "ordinal": start + i + 1,
                "flags": list(r.flags),
            }
            for i, r in enumerate(records)
        ],
    ).all()
    by_key = {r.key: row_id for r, row_id in zip(records, ids, strict=True)}
    aspect_rows = [
        _aspect_row(by_key[r.key], position, a) for r in records for position, a in enumerate(r.aspects)
    ]
    if aspect_rows:
        session.execute(insert(AspectTerm), aspect_rows)
    category_rows = [
        _category_row(by_key[r.key], position, c) for r in records for position, c in enumerate(r.categories)
    ]
    if category_rows:
        session.execute(insert(AspectCategory), category_rows)
    return by_key


def _aspect_row(sentence_row_id: int, position: int, a: AspectRecord) -> dict:
    return {
        "sentence_id": sentence_row_id, "position": position, "term": a.term, "start": a.start, "end": a.end,
        "polarity": a.polarity, "flags": list(a.flags),
    }


def _category_row(sentence_row_id: int, position: int, c: CategoryRecord) -> dict:
    return {"sentence_id": sentence_row_id, "position": position, "category": c.category, "polarity": c.polarity}


def import_sentences(
    engine: Engine, records: list[SentenceRecord], source: str = "<upload>", actor_id: int | None = None
) -> ImportSummary:
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.LEAD,))
        project_id = default_project_id(session)
        new, unchanged, errors = plan_sentence_import(session, project_id, records, source)
        if errors:
            raise InputRejected(errors)
        insert_sentences(session, project_id, new)
        summary = ImportSummary(
            new_sentences=len(new),
            new_aspects=sum(len(r.aspects) for r in new),
            unchanged=unchanged,
            flagged=sum(1 for r in new if r.flags),
        )
        session.add(
            AuditEvent(
                actor_id=actor_id, action="import-semeval",
                detail={"source": source, "sentences": summary.new_sentences, "aspects": summary.new_aspects,
                        "unchanged": summary.unchanged},
            )
        )
        return summary
