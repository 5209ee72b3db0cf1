"""Work files against the database: load everything as records (dump), and import all or nothing.

An import never overwrites: a record equal to what is stored is skipped, a different one is an
error naming its line, and the whole file is refused.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

import db.tagging  # noqa: F401  (its before-flush backstop refuses self-tagging assignments)
from corpus.errors import InputRejected, LocatedError
from corpus.records import (
    AnnotationRecord,
    AspectLink,
    AspectRecord,
    CategoryRecord,
    SentenceKey,
    SentenceRecord,
    TranslationRecord,
    WorkFile,
)
from corpus.tokens import TOKENIZER_SIGNATURE, tokenize
from corpus.workfile import parse_work_file
from db.auth import get_or_create_user
from db.engine import reader, transaction
from db.importing import insert_sentences, plan_sentence_import
from db.models import (
    Annotation,
    AnnotationAssignment,
    AspectAlignment,
    AuditEvent,
    SourceSentence,
    TaggingItem,
    Translation,
    TranslationAssignment,
    User,
)
from db.revisions import record_revision
from db.schema import default_project_id


@dataclass(frozen=True)
class WorkImportSummary:
    sentences: int
    translations: int
    annotations: int
    unchanged: int

    def __str__(self) -> str:
        return (
            f"imported {self.sentences} sentences, {self.translations} translations, "
            f"{self.annotations} annotations ({self.unchanged} records already present)"
        )


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _parse_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    return datetime.fromisoformat(value).replace(tzinfo=None)


def _sentence_record(row: SourceSentence) -> SentenceRecord:
    return SentenceRecord(
        SentenceKey(row.domain, row.split, row.sentence_id),
        row.text,
        tuple(AspectRecord(a.term, a.start, a.end, a.polarity) for a in row.aspects),
        tuple(CategoryRecord(c.category, c.polarity) for c in row.categories),
    )


def translation_record(row: Translation, key: SentenceKey, positions: dict[int, int]) -> TranslationRecord:
    links = tuple(
        AspectLink(positions[link.aspect_term_id], link.start, link.end, link.dropped, link.drop_reason)
        for link in row.aspect_links
    )
    return TranslationRecord(
        key=key, phase=row.phase, translator=row.translator.username, text=row.text,
        untranslatable=row.untranslatable, reason=row.untranslatable_reason, reason_text=row.untranslatable_note,
        aspect_map=links, time_spent_s=row.time_spent_s or None, guidelines_version=row.guidelines_version,
        status=row.status, submitted_at=_iso(row.submitted_at),
    )


def load_work(engine: Engine, project_id: int | None = None) -> WorkFile:
    """Every sentence and the latest revision of every translation and annotation."""
    with Session(reader(engine)) as session:
        project_id = project_id or default_project_id(session)
        sentences = session.scalars(select(SourceSentence).where(SourceSentence.project_id == project_id)).all()
        keys = {s.id: SentenceKey(s.domain, s.split, s.sentence_id) for s in sentences}
        positions = {a.id: a.position for s in sentences for a in s.aspects}
        work = WorkFile(sentences=[_sentence_record(s) for s in sentences])
        translations = session.scalars(
            select(Translation).join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .where(SourceSentence.project_id == project_id)
        ).all()
        by_id = {}
        for t in translations:
            if t.sentence_id not in keys:
                continue
            by_id[t.id] = t
            work.translations.append(translation_record(t, keys[t.sentence_id], positions))
        usernames = dict(session.execute(select(User.id, User.username)).all())
        for ann, item in session.execute(select(Annotation, TaggingItem).join(TaggingItem, Annotation.item_id == TaggingItem.id)):
            t = by_id.get(item.translation_id)
            if t is None:
                continue
            work.annotations.append(
                AnnotationRecord(
                    keys[t.sentence_id], t.phase, usernames[t.translator_id], usernames[ann.annotator_id],
                    tuple(item.tokens), tuple(ann.tags), ann.status, _iso(ann.submitted_at),
                )
            )
        return work


def import_work_file(engine: Engine, data: bytes | str, filename: str, actor_id: int | None = None) -> WorkImportSummary:
    with transaction(engine) as session:
        project_id = default_project_id(session)
        known = [
            SentenceKey(*row)
            for row in session.execute(
                select(SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id).where(
                    SourceSentence.project_id == project_id
                )
            )
        ]
        work, errors = parse_work_file(data, filename, known)
        if errors:
            raise InputRejected(errors)
        summary = _write_work(session, project_id, work, filename)
        session.add(AuditEvent(actor_id=actor_id, action="import-work", detail={"source": filename, **summary.__dict__}))
        return summary


def import_work(engine: Engine, work: WorkFile, source: str = "<work file>") -> WorkImportSummary:
    with transaction(engine) as session:
        return _write_work(session, default_project_id(session), work, source)


class _Writer:
    def __init__(self, session: Session, project_id: int, source: str):
        self.session = session
        self.project_id = project_id
        self.source = source
        self.errors: list[LocatedError] = []
        self.users: dict[tuple[str, str], User] = {}
        self.sentences: dict[SentenceKey, SourceSentence] = {}
        self.items_with_new_annotations: set[int] = set()

    def error(self, record, message: str) -> None:  # noqa: ANN001
        self.errors.append(LocatedError(self.source, message, line=record.line, sentence_id=record.key.id))

    def user(self, username: str, role: str) -> User:
        if (username, role) not in self.users:
            self.users[(username, role)] = get_or_create_user(self.session, username, role)
        return self.users[(username, role)]

    def sentence(self, key: SentenceKey) -> SourceSentence:
        if key not in self.sentences:
            self.sentences[key] = self.session.scalars(
                select(SourceSentence).where(
                    SourceSentence.project_id == self.project_id, SourceSentence.domain == key.domain,
                    SourceSentence.split == key.split, SourceSentence.sentence_id == key.id,
                )
            ).one()
        return self.sentences[key]


def _write_work(session: Session, project_id: int, work: WorkFile, source: str) -> WorkImportSummary:
    w = _Writer(session, project_id, source)
    new_sentences, unchanged, conflicts = plan_sentence_import(session, project_id, work.sentences, source)
    w.errors.extend(conflicts)
    insert_sentences(session, project_id, new_sentences)
    session.flush()

    translations: dict[tuple, Translation] = {}
    new_translations = 0
    for record in work.translations:
        row, created = _write_translation(w, record)
        if row is not None:
            translations[(record.key, record.phase, record.translator)] = row
            new_translations += created
            unchanged += not created
    session.flush()

    new_annotations = 0
    for record in work.annotations:
        created = _write_annotation(w, record, translations)
        new_annotations += created is True
        unchanged += created is False
    if w.errors:
        raise InputRejected(w.errors)
    # Gold follows the annotators at once, in the same transaction, as it does after a save in the app.
    from db.adjudication import apply_automatic_rule

    apply_automatic_rule(session, project_id, w.items_with_new_annotations)
    return WorkImportSummary(len(new_sentences), new_translations, new_annotations, unchanged)


def _same_translation(row: Translation, record: TranslationRecord, positions: dict[int, int]) -> bool:
    stored = translation_record(row, record.key, positions)
    return (stored.text, stored.untranslatable, stored.reason, stored.status, sorted(stored.aspect_map, key=lambda x: x.aspect_index)) == (
        record.text, record.untranslatable, record.reason, record.status, sorted(record.aspect_map, key=lambda x: x.aspect_index))


def _write_translation(w: _Writer, record: TranslationRecord) -> tuple[Translation | None, bool]:
    sentence = w.sentence(record.key)
    translator = w.user(record.translator, "translator")
    aspects = sentence.aspects
    positions = {a.id: a.position for a in aspects}
    existing = w.session.scalars(
        select(Translation).where(
            Translation.sentence_id == sentence.id, Translation.phase == record.phase,
            Translation.translator_id == translator.id,
        )
    ).first()
    if existing is not None:
        if _same_translation(existing, record, positions):
            return existing, False
        w.error(record, f"{record.phase} translation by {record.translator} differs from the stored one; not overwritten")
        return None, False
    counts = Counter(link.aspect_index for link in record.aspect_map)
    for link in record.aspect_map:
        if not 0 <= link.aspect_index < len(aspects):
            w.error(record, f"aspect_map refers to aspect {link.aspect_index}, but the sentence has {len(aspects)} aspect terms")
            return None, False
        if counts[link.aspect_index] > 1:
            w.error(record, f"aspect_map lists aspect {link.aspect_index} twice")
            return None, False
    try:
        submitted_at = _parse_time(record.submitted_at)
    except ValueError:
        w.error(record, f"submitted_at {record.submitted_at!r} is not an ISO date-time")
        return None, False
    if record.status == "submitted" and submitted_at is None:
        from db.models import utcnow

        submitted_at = utcnow()
    row = Translation(
        sentence_id=sentence.id, phase=record.phase, translator_id=translator.id, text=record.text,
        untranslatable=record.untranslatable, untranslatable_reason=record.reason,
        untranslatable_note=record.reason_text, status=record.status, time_spent_s=record.time_spent_s or 0.0,
        guidelines_version=record.guidelines_version, submitted_at=submitted_at,
        aspect_links=[
            AspectAlignment(aspect_term_id=aspects[link.aspect_index].id, start=link.start, end=link.end,
                            dropped=link.dropped, drop_reason=link.reason)
            for link in record.aspect_map
        ],
    )
    w.session.add(row)
    w.session.add(TranslationAssignment(user_id=translator.id, sentence_id=sentence.id, phase=record.phase,
                                        status="submitted" if record.status == "submitted" else "draft"))
    w.session.flush()
    record_revision(w.session, "translation", row.id, row.version, translator.id, "import",
                    {"text": row.text, "untranslatable": row.untranslatable, "reason": row.untranslatable_reason,
                     "status": row.status, "aspect_map": [link.__dict__ for link in record.aspect_map]})
    return row, True


def _write_annotation(w: _Writer, record: AnnotationRecord, translations: dict[tuple, Translation]) -> bool | None:
    translation = translations.get((record.key, record.phase, record.translator))
    if translation is None:
        sentence = w.sentence(record.key)
        translation = w.session.scalars(
            select(Translation).join(User, Translation.translator_id == User.id).where(
                Translation.sentence_id == sentence.id, Translation.phase == record.phase,
                User.username == record.translator,
            )
        ).first()
    if translation is None:
        w.error(record, f"annotation refers to a {record.phase} translation by {record.translator} that does not exist")
        return None
    if translation.untranslatable or not translation.text:
        w.error(record, f"annotation refers to a {record.phase} translation by {record.translator} that has no text")
        return None
    canonical = tuple(tokenize(translation.text))
    if record.tokens is not None and record.tokens != canonical:
        w.error(record, "tokens differ from the canonical tokens of the translation "
                        f"(expected {len(canonical)} tokens: {' '.join(canonical[:12])}{' …' if len(canonical) > 12 else ''})")
        return None
    item = w.session.scalars(select(TaggingItem).where(TaggingItem.translation_id == translation.id)).first()
    tokens = canonical if item is None else tuple(item.tokens)
    if len(record.tags) != len(tokens):
        w.error(record, f"{len(record.tags)} tags for {len(tokens)} tokens")
        return None
    if translation.translator.username == record.annotator:
        w.error(record, f"annotator {record.annotator} is the translator of this {record.phase} translation; "
                        "annotators never tag their own translation")
        return None
    annotator = w.user(record.annotator, "annotator")
    if item is None:
        item = TaggingItem(translation_id=translation.id, tokens=list(canonical), tokenizer=TOKENIZER_SIGNATURE,
                           translation_version=translation.version)
        w.session.add(item)
        w.session.flush()
    existing = w.session.scalars(
        select(Annotation).where(Annotation.item_id == item.id, Annotation.annotator_id == annotator.id)
    ).first()
    if existing is not None:
        if list(existing.tags) == list(record.tags) and existing.status == record.status:
            return False
        w.error(record, f"annotation by {record.annotator} differs from the stored one; not overwritten")
        return None
    try:
        submitted_at = _parse_time(record.submitted_at)
    except ValueError:
        w.error(record, f"submitted_at {record.submitted_at!r} is not an ISO date-time")
        return None
    if record.status == "submitted" and submitted_at is None:
        from db.models import utcnow

        submitted_at = utcnow()
    ann = Annotation(item_id=item.id, annotator_id=annotator.id, tags=list(record.tags),
                     no_aspects=record.status == "submitted" and all(t == "O" for t in record.tags),
                     status=record.status, submitted_at=submitted_at)
    w.session.add(ann)
    w.session.add(AnnotationAssignment(user_id=annotator.id, translation_id=translation.id,
                                       status="submitted" if record.status == "submitted" else "draft"))
    w.session.flush()
    record_revision(w.session, "annotation", ann.id, ann.version, annotator.id, "import",
                    {"tags": list(record.tags), "status": record.status})
    w.items_with_new_annotations.add(item.id)
    return True
