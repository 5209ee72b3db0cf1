"""Work files against the database: load everything as records (dump), and import all or nothing.

An import never overwrites: a record equal to what is stored is skipped, a different one is an
error naming its line, and the whole file is refused. The file is parsed before the write lock is
taken; then every record is checked against what is stored (read in a few queries of plain rows), and
only a file without errors is written, with set-based inserts (``db.bulk``: multi-row INSERTs on SQLite,
COPY on PostgreSQL), in one transaction: a paper-scale file (~150,000 records) one ORM object at a time
took minutes and held the lock throughout. ``python -m bench.bench_import_work`` measures it against a
plain ``json.loads`` + ``executemany`` of the same rows (3.3x wall, 3.5x CPU, peak 300 MB at paper scale).
"""

from __future__ import annotations

import json
import sys
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import datetime
from itertools import chain

from sqlalchemy import Engine, Text, bindparam, cast, func, select, update
from sqlalchemy.orm import Session

from corpus.assignment import tagging_refusal
from corpus.bio import annotation_refusal
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
from corpus.revisions import MappedAspect, annotation_payload, translation_payload
from corpus.tokens import TOKENIZER_SIGNATURE, tokenize
from corpus.workfile import free_reason_notes, parse_work_file
from db.access import check_writer
from db.bulk import cycle_collection_paused, insert_rows, json_list_of_strings
from db.engine import reader, transaction
from db.importing import insert_sentences, plan_sentence_import
from db.models import (
    Annotation,
    AnnotationAssignment,
    AspectAlignment,
    AspectTerm,
    AuditEvent,
    Revision,
    SourceSentence,
    TaggingItem,
    Translation,
    TranslationAssignment,
    User,
    UserRole,
    utcnow,
)
from db.schema import default_project_id
from corpus.vocabulary import INACTIVE_STATUSES, RevisionAction, Role, Status


#: Plain strings for the statuses a work file's records have: compared ~300,000 times in an import.
_SUBMITTED, _DRAFT = str(Status.SUBMITTED), str(Status.DRAFT)


@dataclass(frozen=True)
class WorkImportSummary:
    sentences: int
    translations: int
    annotations: int
    unchanged: int
    notes: tuple[str, ...] = ()  # located remarks on what was kept as given (free-text reasons)

    def __str__(self) -> str:
        head = (
            f"imported {self.sentences} sentences, {self.translations} translations, "
            f"{self.annotations} annotations ({self.unchanged} records already present)"
        )
        return "\n".join((head, *self.notes))


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _parse_time(value: str | None) -> datetime | None:
    if value is None:
        return None
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo is None else parsed.replace(tzinfo=None)


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


ProgressCallback = Callable[[str, int, int], None]
"""``progress(stage, done, total)``: what the import is doing and how far it is within that stage. The
stages, in order: "reading" (parsing the file), "checking" (records against what is stored),
"writing" (records written), "gold" (the automatic rule); the commit follows the last report. An
archive restore (``db.backup.restore_archive``) reports one stage, "restoring" (rows written)."""

_progress_hook: ContextVar[ProgressCallback | None] = ContextVar("import_progress", default=None)


@contextmanager
def import_progress(callback: ProgressCallback) -> Iterator[None]:
    """Report the progress of every work-file import started inside this block (on this thread) to
    ``callback``: a page can show a bar for an import it starts through another service (a restore)."""
    token = _progress_hook.set(callback)
    try:
        yield
    finally:
        _progress_hook.reset(token)


def _no_progress(stage: str, done: int, total: int) -> None:
    pass


def progress_for(progress: ProgressCallback | None) -> ProgressCallback:
    """Where a long write reports: the caller's callback, else the one ``import_progress`` set, else nowhere."""
    return progress or _progress_hook.get() or _no_progress


def _known_keys(session: Session, project_id: int) -> list[SentenceKey]:
    return [
        SentenceKey(*row)
        for row in session.execute(
            select(SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id).where(
                SourceSentence.project_id == project_id
            )
        )
    ]


def import_work_file(
    engine: Engine, data: bytes | str, filename: str, actor_id: int | None = None,
    progress: ProgressCallback | None = None,
) -> WorkImportSummary:
    """Import a work file all or nothing. The file is parsed and checked before the write lock is
    taken; the write itself is one transaction of set-based inserts."""
    report = progress_for(progress)
    report("reading", 0, 1)
    with Session(reader(engine)) as session:
        project_id = default_project_id(session)
        known = _known_keys(session, project_id)
    with cycle_collection_paused():
        work, errors = parse_work_file(data, filename, known)
        notes = tuple(str(note) for note in free_reason_notes(data, filename)) if not errors else ()
        del data  # the records hold everything now; a caller that passed the file's bytes along lets them go
        if errors:
            raise InputRejected(errors)
        report("reading", 1, 1)
        return _import_parsed(engine, project_id, known, work, filename, notes, actor_id, report)


def _import_parsed(engine: Engine, project_id: int, known: list[SentenceKey], work: WorkFile, filename: str,
                   notes: tuple[str, ...], actor_id: int | None, report: ProgressCallback) -> WorkImportSummary:
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=(Role.LEAD, Role.ADMIN))  # Import (lead), Backup (admin)
        if errors := _resolved_differently(work, filename, set(_known_keys(session, project_id)) - set(known)):
            raise InputRejected(errors)
        summary = replace(_write_work(session, project_id, work, filename, report, consume=True), notes=notes)
        detail = {"source": filename, **{k: v for k, v in summary.__dict__.items() if k != "notes"}}
        session.add(AuditEvent(actor_id=actor_id, action="import-work", detail=detail))
        return summary


def _resolved_differently(work: WorkFile, filename: str, added: set[SentenceKey]) -> list[LocatedError]:
    """Records whose sentence id another import added to the project between parsing and writing: the
    id may now name two sentences, so the file is refused (import it again) rather than guessed."""
    added_ids = {key.id for key in added}
    if not added_ids:
        return []
    return [
        LocatedError(filename, f"sentence id {record.key.id!r} was added to the project by another import while "
                               "this file was being checked; import the file again", line=record.line,
                     sentence_id=record.key.id)
        for record in (*work.translations, *work.annotations) if record.key.id in added_ids
    ]


# ------------------------------------------------------------------ what is stored, as plain rows

TaskKey = tuple[SentenceKey, str, str]  # sentence, phase, translator's username


@dataclass
class _StoredTranslation:
    id: int
    sentence_pk: int
    translator_id: int
    text: str | None
    untranslatable: bool
    reason: str | None
    status: str
    version: int
    links: list[AspectLink]


@dataclass
class _Stored:
    """What the import compares against and refers to, read in a few queries of plain rows."""

    sentence_pks: dict[SentenceKey, int]
    aspect_counts: dict[SentenceKey, int]
    users: dict[str, int]
    roles: dict[int, set[str]]
    translations: dict[TaskKey, _StoredTranslation]
    items: dict[int, tuple[int, list[str]]]  # translation id -> (item id, frozen tokens)
    annotations: dict[tuple[int, str], tuple[list[str], str]]  # (item id, annotator) -> (tags, status)
    translation_tasks: dict[tuple[int, int, str], tuple[int, str]]  # (user, sentence, phase) -> (id, status)
    annotation_tasks: dict[tuple[int, int], tuple[int, str]]  # (user, translation) -> (id, status)


def _rows(session: Session, statement):  # noqa: ANN001, ANN202
    """Plain rows of a select in the session's transaction, without the ORM's per-row work (the import
    reads back ~200,000 ids at paper scale)."""
    return session.connection().execute(statement).all()


def _json_list(raw: str | list | None) -> list:
    if raw is None:
        return []
    return json.loads(raw) if isinstance(raw, str) else list(raw)


def _read_stored(session: Session, project_id: int) -> _Stored:
    in_project = SourceSentence.project_id == project_id
    keys: dict[int, SentenceKey] = {}
    for pk, domain, split, sid in _rows(session,
        select(SourceSentence.id, SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id).where(in_project)
    ):
        keys[pk] = SentenceKey(domain, split, sid)
    aspect_counts: Counter[SentenceKey] = Counter()
    positions: dict[int, int] = {}
    for term_id, sentence_pk, position in _rows(session,
        select(AspectTerm.id, AspectTerm.sentence_id, AspectTerm.position)
        .join(SourceSentence, AspectTerm.sentence_id == SourceSentence.id).where(in_project)
    ):
        aspect_counts[keys[sentence_pk]] += 1
        positions[term_id] = position
    users = dict(_rows(session, select(User.username, User.id)))
    roles: dict[int, set[str]] = defaultdict(set)
    for user_id, role in _rows(session, select(UserRole.user_id, UserRole.role)):
        roles[user_id].add(role)
    names = {v: k for k, v in users.items()}
    links: dict[int, list[AspectLink]] = defaultdict(list)
    for translation_id, term_id, start, end, dropped, reason in _rows(session,
        select(AspectAlignment.translation_id, AspectAlignment.aspect_term_id, AspectAlignment.start,
               AspectAlignment.end, AspectAlignment.dropped, AspectAlignment.drop_reason)
        .join(Translation, AspectAlignment.translation_id == Translation.id)
        .join(SourceSentence, Translation.sentence_id == SourceSentence.id).where(in_project)
    ):
        links[translation_id].append(AspectLink(positions[term_id], start, end, dropped, reason))
    translations: dict[TaskKey, _StoredTranslation] = {}
    for row in _rows(session,
        select(Translation.id, Translation.sentence_id, Translation.phase, Translation.translator_id, Translation.text,
               Translation.untranslatable, Translation.untranslatable_reason, Translation.status, Translation.version)
        .join(SourceSentence, Translation.sentence_id == SourceSentence.id).where(in_project)
    ):
        tid, sentence_pk, phase, translator_id = row[:4]
        translations[(keys[sentence_pk], phase, names[translator_id])] = _StoredTranslation(
            tid, sentence_pk, translator_id, *row[4:], links.get(tid, []))
    of_project = (
        select(Translation.id).join(SourceSentence, Translation.sentence_id == SourceSentence.id).where(in_project)
    )
    items = {
        translation_id: (item_id, _json_list(tokens))
        for item_id, translation_id, tokens in _rows(session,
            select(TaggingItem.id, TaggingItem.translation_id, cast(TaggingItem.tokens, Text))
            .where(TaggingItem.translation_id.in_(of_project))
        )
    }
    annotations = {}
    if items:
        for item_id, annotator_id, tags, status in _rows(session,
            select(Annotation.item_id, Annotation.annotator_id, cast(Annotation.tags, Text), Annotation.status)
            .join(TaggingItem, Annotation.item_id == TaggingItem.id)
            .where(TaggingItem.translation_id.in_(of_project))
        ):
            annotations[(item_id, names[annotator_id])] = (_json_list(tags), status)
    translation_tasks = {
        (user_id, sentence_pk, phase): (task_id, status)
        for task_id, user_id, sentence_pk, phase, status in _rows(session,
            select(TranslationAssignment.id, TranslationAssignment.user_id, TranslationAssignment.sentence_id,
                   TranslationAssignment.phase, TranslationAssignment.status)
            .join(SourceSentence, TranslationAssignment.sentence_id == SourceSentence.id).where(in_project)
        )
    }
    annotation_tasks = {
        (user_id, translation_id): (task_id, status)
        for task_id, user_id, translation_id, status in _rows(session,
            select(AnnotationAssignment.id, AnnotationAssignment.user_id, AnnotationAssignment.translation_id,
                   AnnotationAssignment.status).where(AnnotationAssignment.translation_id.in_(of_project))
        )
    }
    return _Stored({k: pk for pk, k in keys.items()}, dict(aspect_counts), users, roles, translations, items,
                   annotations, translation_tasks, annotation_tasks)


# ------------------------------------------------------------------ the plan: every check, no write


@dataclass
class _NewTranslation:
    record: TranslationRecord
    submitted_at: datetime | None


@dataclass
class _NewAnnotation:
    record: AnnotationRecord
    task: TaskKey
    tokens: tuple[str, ...]  # the item's tokens: frozen ones if it exists, else the canonical ones
    submitted_at: datetime | None


@dataclass
class _Plan:
    sentences: list[SentenceRecord]
    translations: list[_NewTranslation] = field(default_factory=list)
    annotations: list[_NewAnnotation] = field(default_factory=list)
    roles: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # username -> roles it needs
    unchanged: int = 0
    errors: list[LocatedError] = field(default_factory=list)


def _locate(plan: _Plan, source: str, record, message: str) -> None:  # noqa: ANN001
    plan.errors.append(LocatedError(source, message, line=record.line, sentence_id=record.key.id))


def _same_translation(stored: _StoredTranslation, record: TranslationRecord) -> bool:
    def order(links):  # noqa: ANN001, ANN202
        return sorted(links, key=lambda x: x.aspect_index)

    return (stored.text, stored.untranslatable, stored.reason, stored.status, order(stored.links)) == (
        record.text, record.untranslatable, record.reason, record.status, order(record.aspect_map))


def _submitted_at(record, now: datetime) -> datetime | None:  # noqa: ANN001
    """The record's time (ValueError if it is no ISO date-time); now for a submission without one."""
    value = _parse_time(record.submitted_at)
    if record.status == _SUBMITTED and value is None:
        return now
    return value


def _plan_translations(plan: _Plan, stored: _Stored, work: WorkFile, source: str, now: datetime) -> None:
    file_aspects = {r.key: len(r.aspects) for r in plan.sentences}
    for record in work.translations:
        plan.roles[record.translator].add(Role.TRANSLATOR)
        existing = stored.translations.get((record.key, record.phase, record.translator))
        if existing is not None:
            if _same_translation(existing, record):
                plan.unchanged += 1
            else:
                _locate(plan, source, record,
                        f"{record.phase} translation by {record.translator} differs from the stored one; not overwritten")
            continue
        n_aspects = file_aspects.get(record.key, stored.aspect_counts.get(record.key, 0))
        counts = Counter(link.aspect_index for link in record.aspect_map)
        problem = next(
            (f"aspect_map refers to aspect {link.aspect_index}, but the sentence has {n_aspects} aspect terms"
             if not 0 <= link.aspect_index < n_aspects else f"aspect_map lists aspect {link.aspect_index} twice"
             for link in record.aspect_map if not 0 <= link.aspect_index < n_aspects or counts[link.aspect_index] > 1),
            None,
        )
        if problem:
            _locate(plan, source, record, problem)
            continue
        try:
            submitted_at = _submitted_at(record, now)
        except ValueError:
            _locate(plan, source, record, f"submitted_at {record.submitted_at!r} is not an ISO date-time")
            continue
        plan.translations.append(_NewTranslation(record, submitted_at))


def _translators_by_sentence(stored: _Stored, new: Iterable[TaskKey]) -> dict[SentenceKey, set[str]]:
    """Everyone who translates, translated or is due to translate each sentence, stored or in the file (by
    username): the people the independence rule keeps from tagging a colleague's translation of it."""
    keys = {pk: key for key, pk in stored.sentence_pks.items()}
    names = {uid: name for name, uid in stored.users.items()}
    translators: dict[SentenceKey, set[str]] = defaultdict(set)
    for key, _phase, translator in chain(stored.translations, new):
        translators[key].add(translator)
    for (user_id, sentence_pk, _phase), (_task_id, status) in stored.translation_tasks.items():
        if status != Status.REASSIGNED and sentence_pk in keys and user_id in names:
            translators[keys[sentence_pk]].add(names[user_id])
    return translators


def _plan_annotations(plan: _Plan, stored: _Stored, work: WorkFile, source: str, now: datetime) -> None:
    new = {(t.record.key, t.record.phase, t.record.translator): t.record for t in plan.translations}
    translators = _translators_by_sentence(stored, new)
    canonical: dict[TaskKey, tuple[str, ...]] = {}
    for record in work.annotations:
        task = (record.key, record.phase, record.translator)
        translation = new.get(task)
        existing = None if translation is not None else stored.translations.get(task)
        text, untranslatable = (
            (translation.text, translation.untranslatable) if translation is not None
            else (existing.text, existing.untranslatable) if existing is not None else (None, None)
        )
        if untranslatable is None:
            _locate(plan, source, record,
                    f"annotation refers to a {record.phase} translation by {record.translator} that does not exist")
            continue
        if untranslatable or not text:
            _locate(plan, source, record,
                    f"annotation refers to a {record.phase} translation by {record.translator} that has no text")
            continue
        if task not in canonical:
            canonical[task] = tuple(map(sys.intern, tokenize(text)))  # shared words: ~40 MB less at paper scale
        tokens = canonical[task]
        if record.tokens is not None and record.tokens != tokens:
            _locate(plan, source, record, "tokens differ from the canonical tokens of the translation "
                    f"(expected {len(tokens)} tokens: {' '.join(tokens[:12])}{' …' if len(tokens) > 12 else ''})")
            continue
        item = stored.items.get(existing.id) if existing is not None else None
        if item is not None:
            tokens = tuple(item[1])
        submitted = record.status == _SUBMITTED
        if (why := annotation_refusal(record.tags, len(tokens), no_aspects=submitted and "B" not in record.tags,
                                      submit=submitted)) is not None:
            _locate(plan, source, record, why)
            continue
        refusal = tagging_refusal(record.annotator, record.translator, translators.get(record.key, frozenset()))
        if refusal is not None:
            whose = ("the translator of this" if record.annotator == record.translator
                     else f"a translator of this sentence, and this is {record.translator}'s")
            _locate(plan, source, record, f"annotator {record.annotator} is {whose} {record.phase} translation; {refusal}")
            continue
        plan.roles[record.annotator].add(Role.ANNOTATOR)
        stored_annotation = stored.annotations.get((item[0], record.annotator)) if item is not None else None
        if stored_annotation is not None:
            if stored_annotation == (list(record.tags), record.status):
                plan.unchanged += 1
            else:
                _locate(plan, source, record, f"annotation by {record.annotator} differs from the stored one; not overwritten")
            continue
        try:
            submitted_at = _submitted_at(record, now)
        except ValueError:
            _locate(plan, source, record, f"submitted_at {record.submitted_at!r} is not an ISO date-time")
            continue
        plan.annotations.append(_NewAnnotation(record, task, tokens, submitted_at))


# ------------------------------------------------------------------ the write: set-based inserts

def _max_id(session: Session, model) -> int:  # noqa: ANN001
    return session.scalar(select(func.coalesce(func.max(model.id), 0)))


def _write_users(session: Session, stored: _Stored, needed: dict[str, set[str]], now: datetime) -> None:
    """Unknown usernames become accounts with the roles the file implies and no password; known ones
    gain a role the file implies (as ``db.users.get_or_create_user`` does one at a time)."""
    missing = sorted(name for name in needed if name not in stored.users)
    if missing:
        insert_rows(session, User, ("username", "display_name", "password_hash", "active", "failed_logins",
                                    "session_epoch", "created_at"),
                    ((name, name, None, True, 0, 0, now) for name in missing))
        stored.users.update(session.execute(select(User.username, User.id).where(User.username.in_(missing))).all())
    insert_rows(session, UserRole, ("user_id", "role"), [
        (stored.users[name], role) for name in sorted(needed)
        for role in sorted(needed[name] - stored.roles.get(stored.users[name], set()))
    ])


def _ids_by_task(session: Session, project_id: int, stored: _Stored, tasks: Iterable[TaskKey]
                 ) -> dict[TaskKey, tuple[int, int, int]]:
    """(sentence, phase, translator) -> (translation id, sentence row id, version) for ``tasks``, read by
    row ids (a key per translation of the project as strings would take tens of MB at paper scale)."""
    by_ids = {
        (sentence_pk, phase, translator_id): (tid, version)
        for tid, sentence_pk, phase, translator_id, version in _rows(session,
            select(Translation.id, Translation.sentence_id, Translation.phase, Translation.translator_id,
                   Translation.version)
            .join(SourceSentence, Translation.sentence_id == SourceSentence.id)
            .where(SourceSentence.project_id == project_id)
        )
    }
    out = {}
    for task in tasks:
        key, phase, translator = task
        sentence_pk, translator_id = stored.sentence_pks.get(key), stored.users.get(translator)
        found = by_ids.get((sentence_pk, phase, translator_id))
        if found is not None:
            out[task] = (found[0], sentence_pk, found[1])
    return out


def _assignment_status(status: str) -> str:
    return _SUBMITTED if status == _SUBMITTED else _DRAFT


def _write_tasks(session: Session, model, columns: tuple[str, ...], existing: dict,  # noqa: ANN001
                 rows: list[tuple[tuple, tuple]], now: datetime) -> None:
    """Insert the assignments the imported work implies (``rows``: key, then values for ``columns``
    ending with the status). One that exists already (assigned in the app before the import) takes the
    imported work's status, as a save would set it."""
    insert_rows(session, model, (*columns, "created_at", "updated_at"),
                ((*values, now, now) for key, values in rows if key not in existing))
    moved = [{"task_id": existing[key][0], "new_status": values[-1], "now": now}
             for key, values in rows if key in existing and existing[key][1] != values[-1]]
    if moved:
        table = model.__table__
        session.execute(
            update(table).where(table.c.id == bindparam("task_id"))
            .values(status=bindparam("new_status"), updated_at=bindparam("now")),
            moved,
        )


def _write_translations(session: Session, project_id: int, plan: _Plan, stored: _Stored, now: datetime) -> dict:
    """The new translations, their aspect maps, assignments and revisions; returns every translation of
    the project by task: (id, sentence row id, version)."""
    pks, users = stored.sentence_pks, stored.users
    insert_rows(session, Translation, (
        "sentence_id", "phase", "translator_id", "text",
        "untranslatable", "untranslatable_reason",  # not-vocabulary: columns
        "untranslatable_note", "status", "time_spent_s", "guidelines_version", "version", "created_at",
        "updated_at", "submitted_at",
    ), (
        (pks[r.key], r.phase, users[r.translator], r.text, r.untranslatable, r.reason, r.reason_text, r.status,
         r.time_spent_s or 0.0, r.guidelines_version, 1, now, now, t.submitted_at)
        for t in plan.translations for r in (t.record,)
    ))
    ids = _ids_by_task(session, project_id, stored, chain(
        ((t.record.key, t.record.phase, t.record.translator) for t in plan.translations),
        (a.task for a in plan.annotations)))
    new = [(ids[(t.record.key, t.record.phase, t.record.translator)], t.record) for t in plan.translations]
    terms = {
        (sentence_pk, position): (term_id, term)
        for term_id, sentence_pk, position, term in _rows(session,
            select(AspectTerm.id, AspectTerm.sentence_id, AspectTerm.position, AspectTerm.term)
            .join(SourceSentence, AspectTerm.sentence_id == SourceSentence.id)
            .where(SourceSentence.project_id == project_id)
        )
    } if any(r.aspect_map for _, r in new) else {}
    insert_rows(session, AspectAlignment, ("translation_id", "aspect_term_id", "start", "end", "dropped", "drop_reason"), (
        (tid, terms[(sentence_pk, link.aspect_index)][0], link.start, link.end, link.dropped, link.reason)
        for (tid, sentence_pk, _), r in new for link in r.aspect_map
    ))
    _write_tasks(session, TranslationAssignment, ("user_id", "sentence_id", "phase", "status"),
                 stored.translation_tasks, [
                     ((users[r.translator], sentence_pk, r.phase),
                      (users[r.translator], sentence_pk, r.phase, _assignment_status(r.status)))
                     for (_, sentence_pk, _), r in new
                 ], now)
    tasks = {
        (user_id, sentence_pk, phase): task_id
        for task_id, user_id, sentence_pk, phase in _rows(session,
            select(TranslationAssignment.id, TranslationAssignment.user_id, TranslationAssignment.sentence_id,
                   TranslationAssignment.phase)
            .join(SourceSentence, TranslationAssignment.sentence_id == SourceSentence.id)
            .where(SourceSentence.project_id == project_id)
        )
    } if new else {}
    insert_rows(session, Revision, _REVISION_COLUMNS, (
        ("translation", tid, version, users[r.translator], RevisionAction.IMPORT, now, translation_payload(
            assignment_id=tasks.get((users[r.translator], sentence_pk, r.phase)),
            sentence=(r.key.domain, r.key.split, r.key.id), phase=r.phase, translator_id=users[r.translator],
            text=r.text, untranslatable=r.untranslatable, reason=r.reason, note=r.reason_text, status=r.status,
            time_spent_s=r.time_spent_s or 0.0, guidelines_version=r.guidelines_version, submitted_at=t.submitted_at,
            aspect_map=[_mapped(terms, sentence_pk, link) for link in r.aspect_map]))
        for ((tid, sentence_pk, version), r), t in zip(new, plan.translations)
    ))
    return ids


def _mapped(terms: dict[tuple[int, int], tuple[int, str]], sentence_pk: int, link: AspectLink) -> MappedAspect:
    term_id, term = terms[(sentence_pk, link.aspect_index)]
    return MappedAspect(term_id, link.aspect_index, term, link.start, link.end, link.dropped, link.reason)


_REVISION_COLUMNS = ("entity", "entity_id", "version", "author_id", "action", "created_at", "payload")


def _write_annotations(session: Session, plan: _Plan, stored: _Stored, ids: dict, now: datetime) -> tuple:
    """Tagging items (tokens frozen now, for translations nobody tagged yet), annotations, their
    assignments and revisions. Returns what the automatic rule needs (``_gold_inputs``)."""
    users = stored.users
    versions = {tid: version for tid, _, version in ids.values()}
    new_items: dict[int, tuple[str, ...]] = {}
    for a in plan.annotations:
        tid = ids[a.task][0]
        if tid not in stored.items and tid not in new_items:
            new_items[tid] = a.tokens
    before = _max_id(session, TaggingItem)
    insert_rows(session, TaggingItem, ("translation_id", "tokens", "tokenizer", "translation_version", "created_at"), (
        (tid, json_list_of_strings(tokens), TOKENIZER_SIGNATURE, versions[tid], now) for tid, tokens in new_items.items()
    ), json_text=("tokens",))
    item_of = {tid: item for tid, (item, _) in stored.items.items()}
    item_of.update((tid, item_id) for item_id, tid in _rows(session,
        select(TaggingItem.id, TaggingItem.translation_id).where(TaggingItem.id > before)) if tid in new_items)
    before = _max_id(session, Annotation)
    keys = [(item_of[ids[a.task][0]], users[a.record.annotator]) for a in plan.annotations]
    # The tags as stored (checked B, I, O strings), once for the annotation and its revision.
    tags_text = [json_list_of_strings(a.record.tags) for a in plan.annotations]
    insert_rows(session, Annotation, (
        "item_id", "annotator_id", "tags", "status", "no_aspects", "time_spent_s", "version", "created_at",
        "updated_at", "submitted_at",
    ), (
        (item_id, annotator_id, tags, r.status, r.status == _SUBMITTED and "B" not in r.tags,  # all O
         0.0, 1, now, now, a.submitted_at)
        for (item_id, annotator_id), a, tags in zip(keys, plan.annotations, tags_text) for r in (a.record,)
    ), json_text=("tags",))
    wanted = set(keys)
    annotation_ids = {
        (item_id, annotator_id): annotation_id
        for annotation_id, item_id, annotator_id in _rows(session,
            select(Annotation.id, Annotation.item_id, Annotation.annotator_id).where(Annotation.id > before))
        if (item_id, annotator_id) in wanted
    }
    _write_tasks(session, AnnotationAssignment, ("user_id", "translation_id", "status"), stored.annotation_tasks, [
        ((annotator_id, ids[a.task][0]), (annotator_id, ids[a.task][0], _assignment_status(a.record.status)))
        for (_, annotator_id), a in zip(keys, plan.annotations)
    ], now)
    insert_rows(session, Revision, _REVISION_COLUMNS, (
        ("annotation", annotation_ids[key], 1, key[1], RevisionAction.IMPORT, now, annotation_payload(
            item_id=key[0], translation_id=ids[a.task][0], tokens=a.tokens, tags=a.record.tags,
            no_aspects=a.record.status == _SUBMITTED and "B" not in a.record.tags, status=a.record.status))
        for key, a in zip(keys, plan.annotations)
    ))
    return _gold_inputs(plan, stored, ids, keys, {item_of[tid] for tid in new_items})




def _gold_inputs(plan: _Plan, stored: _Stored, ids: dict, keys: list[tuple[int, int]], new_items: set[int]) -> tuple:
    """What the automatic rule needs: for items created now, their submitted versions in the order the
    rule reads them (submission time, then id: the insertion order) and their active assignees; the
    items that existed already and gained an annotation are left to the rule's own reading."""
    active: dict[int, set[int]] = defaultdict(set)
    for (user_id, translation_id), (_, status) in stored.annotation_tasks.items():
        if status not in INACTIVE_STATUSES:
            active[translation_id].add(user_id)
    submitted: dict[int, list] = {item_id: [] for item_id in new_items}
    assignees: dict[int, set[int]] = {item_id: set() for item_id in new_items}
    existing: set[int] = set()
    annotations = plan.annotations
    order = sorted(range(len(keys)), key=lambda i: (annotations[i].submitted_at or datetime.max, i))
    for i in order:
        item_id, annotator_id = keys[i]
        if item_id not in new_items:
            existing.add(item_id)
            continue
        a = annotations[i]
        assignees[item_id].add(annotator_id)
        if active and (others := active.get(ids[a.task][0])):
            assignees[item_id] |= others
        if a.record.status == _SUBMITTED:
            submitted[item_id].append((annotator_id, a.record.tags))
    return submitted, assignees, existing


def _write_work(session: Session, project_id: int, work: WorkFile, source: str,
                report: ProgressCallback = _no_progress, consume: bool = False) -> WorkImportSummary:
    """Check every record against what is stored (all errors, located), then write everything with
    set-based inserts, and let automatic gold follow the new annotations, all in the caller's transaction.
    ``consume``: ``work`` is the caller's own and may be emptied as it is written."""
    now = utcnow()
    total = len(work.sentences) + len(work.translations) + len(work.annotations)
    report("checking", 0, total)
    stored = _read_stored(session, project_id)
    new_sentences, unchanged, conflicts = plan_sentence_import(session, project_id, work.sentences, source)
    plan = _Plan(new_sentences, unchanged=unchanged, errors=list(conflicts))
    _plan_translations(plan, stored, work, source, now)
    report("checking", len(work.sentences) + len(work.translations), total)
    _plan_annotations(plan, stored, work, source, now)
    report("checking", total, total)
    if plan.errors:
        raise InputRejected(plan.errors)

    to_write = len(plan.sentences) + len(plan.translations) + len(plan.annotations)
    report("writing", 0, to_write)
    stored.sentence_pks.update(insert_sentences(session, project_id, plan.sentences))
    _write_users(session, stored, plan.roles, now)
    report("writing", len(plan.sentences), to_write)
    ids = _write_translations(session, project_id, plan, stored, now)
    new_translations = len(plan.translations)
    report("writing", len(plan.sentences) + new_translations, to_write)
    if consume:  # the translation records are written: let them go before the annotations (~40 MB at paper scale)
        plan.translations.clear()
        work.translations.clear()
    submitted, assignees, existing = _write_annotations(session, plan, stored, ids, now)
    report("writing", to_write, to_write)
    # Gold follows the annotators at once, in the same transaction, as it does after a save in the app.
    from db.adjudication import apply_automatic_rule, apply_automatic_rule_to_new_items

    report("gold", 0, 1)
    apply_automatic_rule_to_new_items(session, project_id, submitted, assignees)
    apply_automatic_rule(session, project_id, existing)
    report("gold", 1, 1)
    return WorkImportSummary(len(plan.sentences), new_translations, len(plan.annotations), plan.unchanged)
