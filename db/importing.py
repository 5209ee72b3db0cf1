"""Write imported source sentences: one transaction, all or nothing, never deleting or overwriting.

Re-importing the same file changes nothing; a sentence that already exists with a different text or
different aspects is an error (the lead decides), not a silent overwrite.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import islice
from typing import BinaryIO

from sqlalchemy import Engine, delete, exists, func, insert, or_, select
from sqlalchemy.orm import Session

from corpus.errors import InputRejected, LocatedError
from corpus.import_checks import (
    IN_OTHER_SPLIT,
    OtherSplitDuplicates,
    RemovalPlan,
    text_key,
)
from corpus.records import AspectRecord, CategoryRecord, SentenceKey, SentenceRecord
from corpus.semeval import SemevalReader
from corpus.vocabulary import Role
from db.auth import check_writer
from db.engine import reader, transaction
from db.models import (
    AspectCategory,
    AspectTerm,
    AuditEvent,
    FinalChoice,
    SourceSentence,
    Translation,
    TranslationAssignment,
)
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


def existing_sentences_by_id(session: Session, project_id: int, keys: set[SentenceKey]
                             ) -> dict[SentenceKey, SourceSentence]:
    """Like ``existing_sentences``, but asks for the given ids only (a batch of a large file), never for
    every sentence of the domain and split."""
    found: dict[SentenceKey, SourceSentence] = {}
    by_pair: dict[tuple[str, str], list[str]] = {}
    for key in keys:
        by_pair.setdefault((key.domain, key.split), []).append(key.id)
    for (domain, split), ids in by_pair.items():
        for at in range(0, len(ids), 500):
            rows = session.scalars(select(SourceSentence).where(
                SourceSentence.project_id == project_id, SourceSentence.domain == domain,
                SourceSentence.split == split, SourceSentence.sentence_id.in_(ids[at:at + 500])))
            found.update((SentenceKey(row.domain, row.split, row.sentence_id), row) for row in rows)
    return found


def plan_sentence_import(
    session: Session, project_id: int, records: list[SentenceRecord], source: str,
    existing: dict[SentenceKey, SourceSentence] | None = None,
) -> tuple[list[SentenceRecord], int, list[LocatedError]]:
    """Which records are new, how many are already present unchanged, and the conflicts."""
    if existing is None:
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
    engine: Engine, records: list[SentenceRecord], source: str = "<upload>", actor_id: int | None = None,
    allow_duplicates: bool = False,
) -> ImportSummary:
    """Import the records all or nothing. A new sentence whose text is stored in another split of its
    domain refuses the file (the first ones named) unless ``allow_duplicates``, which imports it flagged
    ``text-in-other-split``."""
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.LEAD,))
        project_id = default_project_id(session)
        new, unchanged, errors = plan_sentence_import(session, project_id, records, source)
        other_splits = _OtherSplits(session, project_id, source, allow_duplicates)
        new = other_splits.take(new)
        errors += other_splits.errors()
        if errors:
            raise InputRejected(errors)
        insert_sentences(session, project_id, new)
        summary = ImportSummary(
            new_sentences=len(new),
            new_aspects=sum(len(r.aspects) for r in new),
            unchanged=unchanged,
            flagged=sum(1 for r in new if r.flags),
        )
        _audit(session, actor_id, source, summary)
        return summary


def _audit(session: Session, actor_id: int | None, source: str, summary: ImportSummary) -> None:
    session.add(
        AuditEvent(
            actor_id=actor_id, action="import-semeval",
            detail={"source": source, "sentences": summary.new_sentences, "aspects": summary.new_aspects,
                    "unchanged": summary.unchanged},
        )
    )


#: Sentences planned and inserted together when a file is imported as a stream.
STREAM_BATCH = 1000


def import_semeval_stream(
    engine: Engine, open_source: Callable[[], BinaryIO], source: str, domain: str, split: str,
    actor_id: int | None = None, batch: int = STREAM_BATCH, allow_duplicates: bool = False,
) -> ImportSummary:
    """Import a SemEval file of any size holding only a batch of its sentences in memory: a first pass
    (before the transaction) checks the whole file and counts its texts; the second, inside one
    transaction, plans and inserts batch by batch. All or nothing, like ``import_sentences``: a located
    error anywhere (the file, or a sentence stored with another text) refuses the file and writes nothing.
    ``open_source`` opens the file afresh for each pass. Texts stored in another split of the domain: as
    ``import_sentences``."""
    first = SemevalReader(source, domain, split)
    with open_source() as stream:
        for _ in first.records(stream):
            pass
    if first.errors:
        raise InputRejected(first.errors)
    counted, duplicates = (first.sentences, first.aspects), first.duplicate_texts
    del first  # its ids and text digests: the second pass keeps its own
    second = SemevalReader(source, domain, split, duplicate_texts=duplicates)
    with transaction(engine) as session, open_source() as stream:
        check_writer(session, actor_id, roles=(Role.LEAD,))
        project_id = default_project_id(session)
        new_sentences = new_aspects = unchanged = flagged = 0
        conflicts: list[LocatedError] = []
        other_splits = _OtherSplits(session, project_id, source, allow_duplicates)
        records = second.records(stream)
        while chunk := list(islice(records, batch)):
            existing = existing_sentences_by_id(session, project_id, {r.key for r in chunk})
            new, same, errors = plan_sentence_import(session, project_id, chunk, source, existing)
            new = other_splits.take(new)
            conflicts.extend(errors)
            unchanged += same
            if not conflicts and not other_splits.refused:
                insert_sentences(session, project_id, new)
                new_sentences += len(new)
                new_aspects += sum(len(r.aspects) for r in new)
                flagged += sum(1 for r in new if r.flags)
            session.expunge_all()  # the rows read for the comparison: a batch's worth at a time
        if second.errors or (second.sentences, second.aspects) != counted:
            raise InputRejected(second.errors or [LocatedError(source, "the file changed while it was imported")])
        if conflicts or other_splits.refused:
            raise InputRejected(conflicts + other_splits.errors())
        summary = ImportSummary(new_sentences, new_aspects, unchanged, flagged)
        _audit(session, actor_id, source, summary)
        return summary


class _OtherSplits:
    """``corpus.import_checks.OtherSplitDuplicates`` for each domain and split the records go to, the
    stored texts of the domain's other splits read once (as digests) when the first record of the pair
    comes. ``take`` flags the repeated ones when duplicates are allowed; otherwise ``errors`` refuses them."""

    def __init__(self, session: Session, project_id: int, source: str, allow: bool) -> None:
        self.session, self.project_id, self.source, self.allow = session, project_id, source, allow
        self.checks: dict[tuple[str, str], OtherSplitDuplicates] = {}

    def take(self, records: list[SentenceRecord]) -> list[SentenceRecord]:
        taken = []
        for record in records:
            pair = (record.key.domain, record.key.split)
            check = self.checks.get(pair)
            if check is None:
                check = self.checks[pair] = OtherSplitDuplicates(
                    self.source, *pair, _texts_in_other_splits(self.session, self.project_id, *pair))
            if check.check(record) and self.allow:
                record = replace(record, flags=(*record.flags, IN_OTHER_SPLIT))
            taken.append(record)
        return taken

    @property
    def refused(self) -> bool:
        return not self.allow and any(check.count for check in self.checks.values())

    def errors(self) -> list[LocatedError]:
        return [] if self.allow else [e for check in self.checks.values() for e in check.errors()]


def other_split_duplicates(engine: Engine, records: list[SentenceRecord], source: str = "<upload>"
                           ) -> list[LocatedError]:
    """A read for the Import page's preview: the refusal ``import_sentences`` would give the records'
    new sentences for texts already stored in another split of their domain (empty: none)."""
    with Session(reader(engine)) as session:
        project_id = default_project_id(session)
        existing = existing_sentences(session, project_id, {r.key for r in records})
        new = [r for r in records if r.key not in existing]
        other_splits = _OtherSplits(session, project_id, source, allow=False)
        other_splits.take(new)
        return other_splits.errors()


def _texts_in_other_splits(session: Session, project_id: int, domain: str, split: str
                           ) -> dict[bytes, tuple[str, str]]:
    """``text_key`` -> (split, sentence id) of the first stored sentence with that text in another split of
    the domain."""
    found: dict[bytes, tuple[str, str]] = {}
    rows = session.execute(
        select(SourceSentence.split, SourceSentence.sentence_id, SourceSentence.text)
        .where(SourceSentence.project_id == project_id, SourceSentence.domain == domain,
               SourceSentence.split != split)
        .order_by(SourceSentence.split, SourceSentence.ordinal, SourceSentence.id))
    for other_split, sentence_id, text in rows:
        found.setdefault(text_key(text), (other_split, sentence_id))
    return found


# ----------------------------------------------------------------------------- removing an import


class ImportRemovalRefused(ValueError):
    """The split cannot be removed (no sentences, or work on some); ``plan`` says what it holds."""

    def __init__(self, plan: RemovalPlan) -> None:
        super().__init__(f"{plan.domain}/{plan.split}: {plan.refusal()}; nothing was removed")
        self.plan = plan


#: Sentences with work on them named in a refusal.
SHOWN_WITH_WORK = 5


def _removal_plan(session: Session, project_id: int, domain: str, split: str) -> RemovalPlan:
    in_split = select(SourceSentence.id).where(
        SourceSentence.project_id == project_id, SourceSentence.domain == domain, SourceSentence.split == split)
    ids = in_split.scalar_subquery()
    sentences = session.scalar(select(func.count()).select_from(in_split.subquery())) or 0
    aspects = session.scalar(select(func.count(AspectTerm.id)).where(AspectTerm.sentence_id.in_(ids))) or 0
    categories = session.scalar(
        select(func.count(AspectCategory.id)).where(AspectCategory.sentence_id.in_(ids))) or 0
    has_work = or_(*(exists().where(table.sentence_id == SourceSentence.id)
                     for table in (Translation, TranslationAssignment, FinalChoice)))
    with_work = select(SourceSentence.sentence_id).where(
        SourceSentence.project_id == project_id, SourceSentence.domain == domain, SourceSentence.split == split,
        has_work)
    worked = session.scalar(select(func.count()).select_from(with_work.subquery())) or 0
    first = tuple(session.scalars(with_work.order_by(SourceSentence.ordinal, SourceSentence.id)
                                  .limit(SHOWN_WITH_WORK))) if worked else ()
    return RemovalPlan(domain, split, sentences, aspects, categories, worked, first)


def plan_removal(engine: Engine, domain: str, split: str, project_id: int | None = None) -> RemovalPlan:
    """What ``remove_import`` would remove from the domain's split, and the work that forbids it (a read)."""
    with Session(reader(engine)) as session:
        return _removal_plan(session, project_id or default_project_id(session), domain, split)


def remove_import(engine: Engine, domain: str, split: str, actor_id: int | None = None,
                  project_id: int | None = None) -> RemovalPlan:
    """Remove every imported sentence of the domain's split with its aspect terms and categories, in one
    transaction, only while none of them has work on it (a translation, an assignment or a final choice:
    all other work hangs from those); else ``ImportRemovalRefused`` and nothing changes. A lead's act,
    recorded in the audit log. Returns what was removed."""
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.LEAD,))
        project_id = project_id or default_project_id(session)
        plan = _removal_plan(session, project_id, domain, split)
        if not plan.allowed:
            raise ImportRemovalRefused(plan)
        ids = select(SourceSentence.id).where(
            SourceSentence.project_id == project_id, SourceSentence.domain == domain,
            SourceSentence.split == split).scalar_subquery()
        session.execute(delete(AspectTerm).where(AspectTerm.sentence_id.in_(ids)))
        session.execute(delete(AspectCategory).where(AspectCategory.sentence_id.in_(ids)))
        # Work added meanwhile makes the foreign keys refuse this delete: the whole removal rolls back.
        session.execute(delete(SourceSentence).where(SourceSentence.id.in_(ids)))
        session.add(AuditEvent(actor_id=actor_id, action="remove-import", detail={
            "domain": domain, "split": split, "sentences": plan.sentences, "aspects": plan.aspect_terms,
            "categories": plan.categories}))
        return plan
