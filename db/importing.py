"""Write imported source sentences: one transaction, all or nothing, never deleting or overwriting.

Re-importing the same file changes nothing; a sentence that already exists with a different text or
different aspects is an error (the lead decides), not a silent overwrite.

Every read and write here is a Core statement on the tables (``db.tables``), in a Core connection
(``db.engine.core_transaction``) or a caller's session alike: ``python -m corpus import-semeval`` imports
neither SQLAlchemy's ORM nor the models.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, replace
from itertools import islice
from typing import TYPE_CHECKING, BinaryIO, NamedTuple

from sqlalchemy import Connection, Engine, delete, exists, func, insert, or_, select

from corpus.errors import InputRejected, LocatedError
from corpus.import_checks import (
    IN_OTHER_SPLIT,
    OtherSplitDuplicates,
    RemovalPlan,
    text_key,
)
from corpus.records import AspectRecord, SentenceKey, SentenceRecord
from corpus.semeval import SemevalReader, source_digest
from corpus.vocabulary import Role
from db.access import check_writer
from db.bulk import insert_rows, json_list_of_strings
from db.engine import core_transaction, reader
from db.schema import default_project_id
from db.tables import (
    aspect_categories,
    aspect_terms,
    audit_events,
    final_choices,
    source_sentences,
    translation_assignments,
    translations,
    utcnow,
)

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


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


#: Sentence (or row) ids asked for in one ``IN (...)``.
IDS_PER_QUERY = 500


class StoredSentence(NamedTuple):
    """What ``plan_sentence_import`` compares a stored sentence by: its text and aspect terms (in order)."""

    text: str
    aspects: list[AspectRecord]


def existing_sentences(session: Session | Connection, project_id: int, keys: set[SentenceKey]
                       ) -> dict[SentenceKey, StoredSentence]:
    """The stored sentences among ``keys``, read by domain and split (every sentence of each pair the keys
    name: one query each, then their aspect terms)."""
    sentences = source_sentences.c
    found: dict[SentenceKey, StoredSentence] = {}
    by_row: dict[int, StoredSentence] = {}
    for domain, split in {(k.domain, k.split) for k in keys}:
        rows = session.execute(select(sentences.id, sentences.sentence_id, sentences.text).where(
            sentences.project_id == project_id, sentences.domain == domain, sentences.split == split))
        for row_id, sentence_id, text in rows:
            key = SentenceKey(domain, split, sentence_id)
            if key in keys:
                found[key] = by_row[row_id] = StoredSentence(text, [])
    _read_aspects(session, by_row)
    return found


def existing_sentences_by_id(session: Session | Connection, project_id: int, keys: set[SentenceKey]
                             ) -> dict[SentenceKey, StoredSentence]:
    """Like ``existing_sentences``, but asks for the given ids only (a batch of a large file), never for
    every sentence of the domain and split, a query per 500 ids."""
    sentences = source_sentences.c
    found: dict[SentenceKey, StoredSentence] = {}
    by_row: dict[int, StoredSentence] = {}
    by_pair: dict[tuple[str, str], list[str]] = {}
    for key in keys:
        by_pair.setdefault((key.domain, key.split), []).append(key.id)
    for (domain, split), ids in by_pair.items():
        for at in range(0, len(ids), IDS_PER_QUERY):
            rows = session.execute(select(sentences.id, sentences.sentence_id, sentences.text).where(
                sentences.project_id == project_id, sentences.domain == domain, sentences.split == split,
                sentences.sentence_id.in_(ids[at:at + IDS_PER_QUERY])))
            for row_id, sentence_id, text in rows:
                found[SentenceKey(domain, split, sentence_id)] = by_row[row_id] = StoredSentence(text, [])
    _read_aspects(session, by_row)
    return found


def _read_aspects(session: Session | Connection, by_row: dict[int, StoredSentence]) -> None:
    """Fill in the stored sentences' aspect terms (in their order), a query per 500 sentences."""
    terms = aspect_terms.c
    row_ids = list(by_row)
    for at in range(0, len(row_ids), IDS_PER_QUERY):
        for row_id, term, start, end, polarity in session.execute(
                select(terms.sentence_id, terms.term, terms.start, terms.end, terms.polarity)
                .where(terms.sentence_id.in_(row_ids[at:at + IDS_PER_QUERY]))
                .order_by(terms.sentence_id, terms.position)):
            by_row[row_id].aspects.append(AspectRecord(term, start, end, polarity))


def plan_sentence_import(
    session: Session | Connection, project_id: int, records: list[SentenceRecord], source: str,
    existing: dict[SentenceKey, StoredSentence] | None = None,
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


def insert_sentences(session: Session | Connection, project_id: int, records: list[SentenceRecord]
                     ) -> dict[SentenceKey, int]:
    """Bulk insert; returns row ids. The rows go to the driver by ``db.bulk.insert_rows`` (SQLAlchemy's
    per-row parameter handling was half of this function's time), then the new rows' ids are
    read back by their identity (project, domain, split, sentence id: unique), a query per 500: an
    ``INSERT ... RETURNING`` that keeps the rows' order is run by SQLAlchemy a row at a time on SQLite."""
    if not records:
        return {}
    if not isinstance(session, Connection):
        session.flush()  # what a session holds is written first, as before a query of the mapped classes
    sentences = source_sentences
    start = session.scalar(select(func.coalesce(func.max(sentences.c.ordinal), 0)).where(
        sentences.c.project_id == project_id)) or 0
    now = utcnow()
    insert_rows(session, sentences, ("project_id", "domain", "split", "sentence_id", "text", "ordinal", "flags",
                                     "created_at"), [
        (project_id, r.key.domain, r.key.split, r.key.id, r.text, start + i + 1, json_list_of_strings(r.flags), now)
        for i, r in enumerate(records)
    ], json_text=("flags",))
    by_key = _row_ids(session, project_id, [r.key for r in records])
    insert_rows(session, aspect_terms, ("sentence_id", "position", "term", "start", "end", "polarity",
                                                "flags"), [
        (by_key[r.key], position, a.term, a.start, a.end, a.polarity, json_list_of_strings(a.flags))
        for r in records for position, a in enumerate(r.aspects)
    ], json_text=("flags",))
    insert_rows(session, aspect_categories, ("sentence_id", "position", "category", "polarity"), [
        (by_key[r.key], position, c.category, c.polarity) for r in records for position, c in enumerate(r.categories)
    ])
    return by_key


def _row_ids(session: Session | Connection, project_id: int, keys: list[SentenceKey]) -> dict[SentenceKey, int]:
    """The row ids of stored sentences, by their keys (every key must be stored)."""
    sentences = source_sentences
    by_pair: dict[tuple[str, str], list[str]] = {}
    for key in keys:
        by_pair.setdefault((key.domain, key.split), []).append(key.id)
    found: dict[SentenceKey, int] = {}
    for (domain, split), ids in by_pair.items():
        for at in range(0, len(ids), IDS_PER_QUERY):
            rows = session.execute(select(sentences.c.sentence_id, sentences.c.id).where(
                sentences.c.project_id == project_id, sentences.c.domain == domain, sentences.c.split == split,
                sentences.c.sentence_id.in_(ids[at:at + IDS_PER_QUERY])))
            found.update((SentenceKey(domain, split, sentence_id), row_id) for sentence_id, row_id in rows)
    return {key: found[key] for key in keys}


def import_sentences(
    engine: Engine, records: list[SentenceRecord], source: str = "<upload>", actor_id: int | None = None,
    allow_duplicates: bool = False,
) -> ImportSummary:
    """Import the records all or nothing. A new sentence whose text is stored in another split of its
    domain refuses the file (the first ones named) unless ``allow_duplicates``, which imports it flagged
    ``text-in-other-split``."""
    with core_transaction(engine) as session:
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


def _audit(session: Session | Connection, actor_id: int | None, source: str, summary: ImportSummary) -> None:
    session.execute(insert(audit_events).values(
        actor_id=actor_id, action="import-semeval",
        detail={"source": source, "sentences": summary.new_sentences, "aspects": summary.new_aspects,
                "unchanged": summary.unchanged},
    ))


#: Sentences planned and inserted together when a file is imported as a stream.
STREAM_BATCH = 1000
#: A file of at most this many sentences (an official file holds at most 3,045) is parsed once: the check's
#: records are kept (a few MB) instead of parsing the file a second time. A larger one is read twice.
KEEP_SENTENCES = 5000


def import_semeval_stream(
    engine: Engine, open_source: Callable[[], BinaryIO], source: str, domain: str, split: str,
    actor_id: int | None = None, batch: int = STREAM_BATCH, allow_duplicates: bool = False,
) -> ImportSummary:
    """Import a SemEval file of any size holding only a batch of its sentences in memory: a first pass
    (before the transaction) checks the whole file and counts its texts; the second, inside one
    transaction, plans and inserts batch by batch. All or nothing, like ``import_sentences``: a located
    error anywhere (the file, or a sentence stored with another text) refuses the file and writes nothing.
    ``open_source`` opens the file afresh for each pass. Texts stored in another split of the domain: as
    ``import_sentences``.

    A file of at most ``KEEP_SENTENCES`` sentences (every official file) is parsed once: the first pass
    keeps its records, and the second only reads the bytes again, refusing the file if they changed since
    it was checked."""
    first = SemevalReader(source, domain, split, keep=KEEP_SENTENCES)
    with open_source() as stream:
        for _ in first.records(stream):
            pass
    if first.errors:
        raise InputRejected(first.errors)
    changed = LocatedError(source, "the file changed while it was imported")
    kept = first.kept_records()
    if kept is not None:  # parsed once; read again only to make sure it is still the file that was checked
        with open_source() as stream:
            if source_digest(stream) != first.digest:
                raise InputRejected([changed])
    counted, duplicates = (first.sentences, first.aspects), first.duplicate_texts
    del first  # its ids and text digests: the second pass keeps its own
    second = SemevalReader(source, domain, split, duplicate_texts=duplicates)
    with core_transaction(engine) as session, (nullcontext() if kept is not None else open_source()) as stream:
        check_writer(session, actor_id, roles=(Role.LEAD,))
        project_id = default_project_id(session)
        new_sentences = new_aspects = unchanged = flagged = 0
        conflicts: list[LocatedError] = []
        other_splits = _OtherSplits(session, project_id, source, allow_duplicates)
        records = iter(kept) if kept is not None else second.records(stream)
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
        if kept is None and (second.errors or (second.sentences, second.aspects) != counted):
            raise InputRejected(second.errors or [changed])
        if conflicts or other_splits.refused:
            raise InputRejected(conflicts + other_splits.errors())
        summary = ImportSummary(new_sentences, new_aspects, unchanged, flagged)
        _audit(session, actor_id, source, summary)
        return summary


class _OtherSplits:
    """``corpus.import_checks.OtherSplitDuplicates`` for each domain and split the records go to, the
    stored texts of the domain's other splits read once (as digests) when the first record of the pair
    comes. ``take`` flags the repeated ones when duplicates are allowed; otherwise ``errors`` refuses them."""

    def __init__(self, session: Session | Connection, project_id: int, source: str, allow: bool) -> None:
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
    with reader(engine).connect() as session:
        project_id = default_project_id(session)
        existing = existing_sentences(session, project_id, {r.key for r in records})
        new = [r for r in records if r.key not in existing]
        other_splits = _OtherSplits(session, project_id, source, allow=False)
        other_splits.take(new)
        return other_splits.errors()


def _texts_in_other_splits(session: Session | Connection, project_id: int, domain: str, split: str
                           ) -> dict[bytes, tuple[str, str]]:
    """``text_key`` -> (split, sentence id) of the first stored sentence with that text in another split of
    the domain."""
    found: dict[bytes, tuple[str, str]] = {}
    sentences = source_sentences
    rows = session.execute(
        select(sentences.c.split, sentences.c.sentence_id, sentences.c.text)
        .where(sentences.c.project_id == project_id, sentences.c.domain == domain, sentences.c.split != split)
        .order_by(sentences.c.split, sentences.c.ordinal, sentences.c.id))
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


def _removal_plan(session: Session | Connection, project_id: int, domain: str, split: str) -> RemovalPlan:
    sentences = source_sentences.c
    in_split = select(sentences.id).where(
        sentences.project_id == project_id, sentences.domain == domain, sentences.split == split)
    ids = in_split.scalar_subquery()
    count = session.scalar(select(func.count()).select_from(in_split.subquery())) or 0
    aspects = session.scalar(select(func.count(aspect_terms.c.id)).where(aspect_terms.c.sentence_id.in_(ids))) or 0
    categories = session.scalar(
        select(func.count(aspect_categories.c.id)).where(aspect_categories.c.sentence_id.in_(ids))) or 0
    has_work = or_(*(exists().where(table.c.sentence_id == sentences.id)
                     for table in (translations, translation_assignments, final_choices)))
    with_work = select(sentences.sentence_id).where(
        sentences.project_id == project_id, sentences.domain == domain, sentences.split == split, has_work)
    worked = session.scalar(select(func.count()).select_from(with_work.subquery())) or 0
    first = tuple(session.scalars(with_work.order_by(sentences.ordinal, sentences.id)
                                  .limit(SHOWN_WITH_WORK))) if worked else ()
    return RemovalPlan(domain, split, count, aspects, categories, worked, first)


def plan_removal(engine: Engine, domain: str, split: str, project_id: int | None = None) -> RemovalPlan:
    """What ``remove_import`` would remove from the domain's split, and the work that forbids it (a read)."""
    with reader(engine).connect() as session:
        return _removal_plan(session, project_id or default_project_id(session), domain, split)


def remove_import(engine: Engine, domain: str, split: str, actor_id: int | None = None,
                  project_id: int | None = None) -> RemovalPlan:
    """Remove every imported sentence of the domain's split with its aspect terms and categories, in one
    transaction, only while none of them has work on it (a translation, an assignment or a final choice:
    all other work hangs from those); else ``ImportRemovalRefused`` and nothing changes. A lead's act,
    recorded in the audit log. Returns what was removed."""
    with core_transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.LEAD,))
        project_id = project_id or default_project_id(session)
        plan = _removal_plan(session, project_id, domain, split)
        if not plan.allowed:
            raise ImportRemovalRefused(plan)
        sentences = source_sentences.c
        ids = select(sentences.id).where(
            sentences.project_id == project_id, sentences.domain == domain,
            sentences.split == split).scalar_subquery()
        session.execute(delete(aspect_terms).where(aspect_terms.c.sentence_id.in_(ids)))
        session.execute(delete(aspect_categories).where(aspect_categories.c.sentence_id.in_(ids)))
        # Work added meanwhile makes the foreign keys refuse this delete: the whole removal rolls back.
        session.execute(delete(source_sentences).where(sentences.id.in_(ids)))
        session.execute(insert(audit_events).values(actor_id=actor_id, action="remove-import", detail={
            "domain": domain, "split": split, "sentences": plan.sentences, "aspects": plan.aspect_terms,
            "categories": plan.categories}))
        return plan
