"""Load what the agreement figures need, in a handful of flat queries, as plain records.

The metrics themselves (``corpus.metrics``) never see the database; the dashboard and the CLI call
``load_metrics_input`` or ``metrics_report``, which take an Engine and read in one read-only
transaction of their own (``read_metrics_input`` is the same read inside a transaction a ``db``
service holds). Only submitted translations and submitted annotations of submitted translations
count; gold is the gold in force (``db.gold``). ``latest_save`` is the dashboard's cache key: it
changes with every save, submission, import, adjudication or change of who tags what.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from itertools import compress, repeat
from operator import countOf, itemgetter

from sqlalchemy import Engine, Text, case, cast, func, select
from sqlalchemy.orm import Session

from corpus.agreement import (
    MetricsInput,
    SentenceInfo,
    TagSet,
    TranslationInfo,
    columns,
)
from corpus.gold import ItemGold
from corpus.kappa import tag_string
from corpus.metrics import compute_report, paused_gc
from corpus.progress import ProgressCount
from corpus.vocabulary import INACTIVE_STATUSES, Status
from db.engine import reader
from db.gold import SubmittedColumns, among, read_gold_in_force
from db.models import (
    Adjudication,
    Annotation,
    AnnotationAssignment,
    AspectAlignment,
    AspectTerm,
    FinalChoice,
    Project,
    Revision,
    SourceSentence,
    TaggingItem,
    Translation,
    TranslationAssignment,
    User,
)
from db.project_settings import load_settings
from db.rows import fetch, moment, moments, tags_from_json

SUBMITTED = Status.SUBMITTED


def _in_project(project_id: int):
    return SourceSentence.project_id == project_id


def _letters(tags: list) -> str | None:
    """Gold tags as one letter per token (``corpus.kappa.tag_string``), joined first: tens of thousands of
    items, nearly all valid."""
    try:
        text = "".join(tags)
    except TypeError:
        return None
    return tag_string(text) if len(text) == len(tags) else None


def _gold_tags(gold: dict[int, ItemGold]) -> dict[int, str]:
    """Translation id -> the gold in force as letters, for the items whose gold is valid B/I/O: what the
    metrics input takes of gold, kept with the snapshot so a load after a save that left gold alone
    converts none of it again."""
    tags = {}
    for item in gold.values():
        if item.gold is not None:
            letters = _letters(item.gold.tags)
            if letters is not None:
                tags[item.translation_id] = letters
    return tags


def as_columns(rows: list[tuple], width: int) -> list[list]:
    """Rows as columns (one list per column), also when there are no rows."""
    return columns(rows, *range(width))


def load_metrics_input(engine: Engine, project_id: int) -> MetricsInput:
    """Sentences, submitted translations, submitted tag sets and the gold in force of a project."""
    with Session(reader(engine)) as session:
        return read_metrics_input(session, project_id)


@dataclass(frozen=True)
class TableRows:
    """One table's rows as a snapshot read them, in id order: ids, versions and records (None where a row
    does not count: not submitted), and the table's fingerprint then (``_fingerprint``). Parallel lists, not a
    dict of pairs: a paper-scale load builds ~140,000 of them."""

    ids: list[int]
    versions: list[int]
    records: list[tuple | None]
    fingerprint: tuple

    @cached_property
    def index(self) -> dict[int, int]:
        """Where each id sits: made at the first patch that needs it, not at the read (the dashboard's first
        open pays nothing for it)."""
        return dict(zip(self.ids, range(len(self.ids))))


def _patched_rows(ids: list[int], versions: list[int], records: list, index: dict[int, int],
                  fingerprint: tuple) -> TableRows:
    """Rows a patch made, with the index it kept up to date (``cached_property`` keeps its value in the
    instance's ``__dict__``, which is where it is put)."""
    rows = TableRows(ids, versions, records, fingerprint)
    rows.__dict__["index"] = index
    return rows


def _in_id_order(ids: list[int], versions: list[int], records: list, fingerprint: tuple) -> TableRows:
    order = sorted(range(len(ids)), key=ids.__getitem__)
    return TableRows([ids[i] for i in order], [versions[i] for i in order], [records[i] for i in order],
                     fingerprint)


@dataclass(frozen=True)
class MetricsSnapshot:
    """A project's metrics input and the translation and annotation rows it was built from, so the load
    after a save reads only the rows that changed (``load_metrics_snapshot(..., previous)``)."""

    data: MetricsInput
    translations: TableRows
    annotations: TableRows
    users: dict[int, str]
    mapped: dict[int, int]  # translation id -> aspects its map keeps: what its record says
    gold_key: tuple
    gold: dict[int, ItemGold]
    gold_tags: dict[int, str] | None = None  # translation id -> its decided gold as letters (``_gold_tags``)
    sentence_rows: tuple | None = None  # the sentences' rows and aspect counts as read: unchanged, reused
    map_rows: list[tuple] | None = None  # the aspect maps' rows as read (``mapped``): unchanged, reused


#: Past this many changed rows one full read costs less than reading them by id.
REREAD_BY_ID = 5000
#: Rows updated this long before the previous snapshot's latest update are read again too: a writer's
#: update time is taken before it commits, so a row can become visible after a later-stamped one.
RECENT = timedelta(minutes=10)


def load_metrics_snapshot(engine: Engine, project_id: int, previous: MetricsSnapshot | None = None) -> MetricsSnapshot:
    """The project's metrics input; given the ``previous`` snapshot of the same database and project, only
    what changed since is read again (the dashboard after a save). Either way the result is the input a
    full load gives (tests compare them); when it equals the previous one, it is the previous one. One
    consistent read: PostgreSQL reads at REPEATABLE READ, SQLite's read transaction is a snapshot already."""
    read = reader(engine)
    if read.dialect.name == "postgresql":
        read = read.execution_options(isolation_level="REPEATABLE READ")
    with Session(read) as session:
        with paused_gc():
            return _read_snapshot(session, project_id, previous)


def read_metrics_input(
    session: Session, project_id: int, gold: dict[int, ItemGold] | None = None,
    translations: list[list] | None = None, annotations: list[list] | None = None,
) -> MetricsInput:
    """``load_metrics_input`` inside the caller's transaction; ``gold``: the project's gold in force
    (``db.gold``) when the caller has read it already; ``translations``: the project's submitted translations
    as the caller read them in this transaction, as columns (``TRANSLATION_COLUMNS``, in id order);
    ``annotations``: the submitted annotations as the caller read them in this transaction
    (``read_submitted_annotations``' columns). Columns, not rows: the caller has them as columns already."""
    with paused_gc():
        return _read_snapshot(session, project_id, None, gold, keep=False, translations=translations,
                              annotations=annotations).data


def _annotation_statement():
    """The columns of an annotation the metrics input is made of (id, version, the item's translation,
    annotator, tags as JSON text, submission time)."""
    return (select(Annotation.id, Annotation.version, TaggingItem.translation_id, Annotation.annotator_id,
                   cast(Annotation.tags, Text), Annotation.submitted_at)
            .join(TaggingItem, TaggingItem.id == Annotation.item_id))


def read_submitted_annotations(session: Session) -> list[list]:
    """Every submitted annotation as ``read_metrics_input`` takes them (``annotations``), in id order, as six
    columns (``_annotation_statement``'s): read once by a caller that needs them for the gold too
    (``submitted_columns``), as the export does."""
    return as_columns(fetch(session.connection(), _annotation_statement().where(Annotation.status == SUBMITTED)
                            .order_by(Annotation.id)), 6)


def submitted_columns(annotations: list[list]) -> SubmittedColumns:
    """``read_submitted_annotations``' columns as the gold reader takes them (``db.gold.SubmittedColumns``)."""
    ids, _, translation_ids, annotator_ids, tags, _ = annotations
    return SubmittedColumns(ids, translation_ids, annotator_ids, tags)


#: The columns of a translation the metrics input is made of, in the order ``read_metrics_input`` takes them.
TRANSLATION_COLUMNS = (
    Translation.id, Translation.version, Translation.sentence_id, Translation.phase, Translation.translator_id,
    Translation.text, Translation.untranslatable, Translation.submitted_at,
)


def _fingerprint(conn, table) -> tuple:
    """(rows, sum of versions, sum of ids, latest update): any write changes it, since every write of a row
    bumps its version (optimistic locking), an insert adds an id and a delete takes one away."""
    versions, ids = conn.execute(select(func.coalesce(func.sum(table.version), 0),
                                        func.coalesce(func.sum(table.id), 0))).one()
    count, latest = _count_and_max(conn, table, table.updated_at)
    return count, int(versions), int(ids), moment(latest)


def _count_and_max(conn, table, *columns) -> tuple:
    """The rows of ``table`` and the largest value of each of ``columns``, one aggregate a query: a lone
    ``count`` or ``max`` of an indexed column is answered from the index (its entries, its last one), where
    one query of them all scans the table."""
    return (conn.execute(select(func.count()).select_from(table)).scalar(),
            *(conn.execute(select(func.max(column))).scalar() for column in columns))


def _table_rows(conn, table, statement, build, previous: TableRows | None, keep: bool = True) -> TableRows:
    """Every row of ``table`` (``TableRows``); the submitted ones made into records by ``build`` (over the
    rows of ``statement``: the id, the version, then what a record is made from; it returns the three
    columns). Patched from ``previous`` where that is possible, and checked: the patched rows must give the
    fingerprint the table has now, else everything is read again. Without ``keep`` only the submitted rows
    are read, with nothing kept for a later patch (a one-off load: the command line, the export)."""
    if not keep:
        return TableRows(*build(fetch(conn, statement.where(table.status == SUBMITTED).order_by(table.id))), None)
    if previous is None:
        return _read_in_full(conn, table, statement, build)
    fingerprint = _fingerprint(conn, table)
    if previous.fingerprint == fingerprint:
        return previous
    submitted = table.status == SUBMITTED
    if previous.fingerprint[3] is not None:
        recent = fetch(conn, select(table.id, table.version).where(
            table.updated_at >= previous.fingerprint[3] - RECENT))
        index, versions = previous.index, previous.versions
        changed = {pk: version for pk, version in recent if (i := index.get(pk)) is None or versions[i] != version}
        if len(changed) <= REREAD_BY_ID:
            ids, versions, records = list(previous.ids), list(versions), list(previous.records)
            built = {}
            if changed:
                built_ids, _, built_records = build(fetch(conn, statement.where(submitted & among(table.id, changed))))
                built = dict(zip(built_ids, built_records))
            added = [pk for pk in changed if pk not in index]
            if added:
                index = dict(index)
            for pk, version in changed.items():
                i = index.get(pk)
                if i is None:
                    index[pk] = len(ids)
                    ids.append(pk)
                    versions.append(version)
                    records.append(built.get(pk))
                else:
                    versions[i], records[i] = version, built.get(pk)
            if (len(ids), sum(versions), sum(ids)) == fingerprint[:3]:
                if added and min(added) < max(previous.ids, default=0):
                    return _in_id_order(ids, versions, records, fingerprint)  # as a full read gives them
                return _patched_rows(ids, versions, records, index, fingerprint)
    return _read_in_full(conn, table, statement, build)


def _read_in_full(conn, table, statement, build) -> TableRows:
    """Every row of ``table``, its fingerprint summed from the ids and versions read (the same transaction:
    the sums ``_fingerprint`` would scan the table for)."""
    count, latest = _count_and_max(conn, table, table.updated_at)
    latest = moment(latest)
    submitted = table.status == SUBMITTED
    ids, versions, records = build(fetch(conn, statement.where(submitted).order_by(table.id)))
    if len(ids) == count:
        return TableRows(ids, versions, records, (count, sum(versions), sum(ids), latest))
    others = fetch(conn, select(table.id, table.version).where(~submitted))
    ids, versions = ids + [pk for pk, _ in others], versions + [v for _, v in others]
    return _in_id_order(ids, versions, records + [None] * len(others), (len(ids), sum(versions), sum(ids), latest))


def _with_maps(rows: TableRows, mapped: dict[int, int], before: dict[int, int]) -> TableRows:
    """The translation records with the aspect maps saved since ``before`` (an aspect map is rows of its
    own: saving it need not touch its translation's version)."""
    if mapped == before:
        return rows
    places = [rows.index[pk] for pk in mapped.keys() | before.keys()
              if mapped.get(pk) != before.get(pk) and pk in rows.index]
    stale = [i for i in places if rows.records[i] is not None and rows.records[i][7] != mapped.get(rows.ids[i])]
    if not stale:
        return rows
    records = list(rows.records)
    for i in stale:
        records[i] = records[i]._replace(aspects_mapped=mapped.get(rows.ids[i]))
    return _patched_rows(rows.ids, rows.versions, records, rows.index, rows.fingerprint)


def _read_snapshot(
    session: Session, project_id: int, previous: MetricsSnapshot | None, gold: dict[int, ItemGold] | None = None,
    keep: bool = True, translations: list[list] | None = None, annotations: list[list] | None = None,
) -> MetricsSnapshot:
    conn = session.connection()
    k = conn.execute(select(Project.annotators_per_item).where(Project.id == project_id)).scalar()
    if k is None:
        raise ValueError(f"metrics: no project with id {project_id}")
    in_project = _in_project(project_id)

    aspect_counts = dict(
        conn.execute(
            select(AspectTerm.sentence_id, func.count())
            .join(SourceSentence, SourceSentence.id == AspectTerm.sentence_id)
            .where(in_project)
            .group_by(AspectTerm.sentence_id)
        ).all()
    )
    sentence_rows = fetch(conn, select(
        SourceSentence.id, SourceSentence.sentence_id, SourceSentence.domain, SourceSentence.split,
        SourceSentence.text, SourceSentence.ordinal,
    ).where(in_project).order_by(SourceSentence.id))
    users = dict(conn.execute(select(User.id, User.username)).all())
    if previous is not None and previous.users != users:
        previous = None  # records carry user names
    if previous is not None and previous.sentence_rows == (sentence_rows, aspect_counts):
        sentences = previous.data.sentences  # as they were: readers keep what they derived from them
    else:
        pks, *named, ordinals = as_columns(sentence_rows, 6)  # sentence id, domain, split, text
        sentences = list(map(tuple.__new__, repeat(SentenceInfo), zip(
            pks, *named, map(aspect_counts.get, pks, repeat(0)), (o or 0 for o in ordinals))))
    # The big tables are read without joins and filtered here: the joins cost more than the rows.
    # Aspect maps of every translation: only those of the submitted translations kept below are used.
    map_rows = fetch(conn, select(
        AspectAlignment.translation_id, func.sum(case((AspectAlignment.dropped.is_(False), 1), else_=0))
    ).group_by(AspectAlignment.translation_id))
    if previous is not None and previous.map_rows == map_rows:
        mapped = previous.mapped
    else:
        mapped = {pk: int(n or 0) for pk, n in map_rows}
    in_sentences = set(map(itemgetter(0), sentences))

    def translation_records(rows: list[tuple]) -> tuple[list[int], list[int], list[TranslationInfo]]:
        return translation_records_of(as_columns(rows, 8))

    def translation_records_of(cols: list[list]) -> tuple[list[int], list[int], list[TranslationInfo]]:
        pk, version, spk, phase, uid, text, untranslatable, submitted = cols
        # tuple.__new__ skips the NamedTuple's Python-level __new__: half the cost per record.
        records = map(tuple.__new__, repeat(TranslationInfo), zip(
            pk, spk, phase, map(users.__getitem__, uid), text, map(bool, untranslatable), moments(submitted),
            map(mapped.get, pk),
        ))
        return pk, version, list(records)

    before = previous.translations if previous is not None else None
    if translations is not None and not keep:  # read by the caller in this transaction
        translation_rows = TableRows(*translation_records_of(translations), None)
    else:
        translation_rows = _table_rows(conn, Translation, select(*TRANSLATION_COLUMNS), translation_records, before,
                                       keep)
    if before is not None:  # aspect maps saved since, of translations not read again
        translation_rows = _with_maps(translation_rows, mapped, previous.mapped)
    translations = list(filter(None, translation_rows.records))
    if not in_sentences.issuperset(map(itemgetter(1), translations)):
        translations = [t for t in translations if t[1] in in_sentences]
    known = set(map(itemgetter(0), translations))

    # Read in full (no previous snapshot), the submitted annotations are handed to the gold reader too: it
    # takes the decided items' versions from them instead of reading them again.
    every_submitted: list[SubmittedColumns] = []

    def tag_set_records(rows: list[tuple]) -> tuple[list[int], list[int], list[TagSet]]:
        return tag_set_records_of(as_columns(rows, 6))

    def tag_set_records_of(cols: list[list]) -> tuple[list[int], list[int], list[TagSet]]:
        pk, version, translation_pk, uid, raw, submitted = cols
        if previous is None and gold is None:
            every_submitted.append(SubmittedColumns(pk, translation_pk, uid, raw))
        parsed = {tags: tags_from_json(tags) for tags in set(raw)}  # the same tag list recurs: parse each once
        records = map(tuple.__new__, repeat(TagSet), zip(
            translation_pk, map(users.__getitem__, uid), map(parsed.__getitem__, raw), moments(submitted),
        ))
        return pk, version, list(records)

    before = previous.annotations if previous is not None else None
    if annotations is not None and not keep:  # read by the caller in this transaction
        annotation_rows = TableRows(*tag_set_records_of(annotations), None)
    else:
        annotation_rows = _table_rows(conn, Annotation, _annotation_statement(), tag_set_records, before, keep)
    tag_sets = list(filter(None, annotation_rows.records))
    if not known.issuperset(map(itemgetter(0), tag_sets)):
        tag_sets = [ts for ts in tag_sets if ts[0] in known]
    invalid = countOf(map(itemgetter(2), tag_sets), None)
    if invalid:
        tag_sets = [ts for ts in tag_sets if ts.tags is not None]

    # The gold in force of the items with a decision: an item without one has gold only where all its
    # versions carry the same tags, which its tag sets already give (``db.gold._gold_in_force``). It
    # depends on the submitted annotations, the decisions (append-only) and who is assigned.
    gold_key = (k, *_count_and_max(conn, Adjudication, Adjudication.id),
                *_count_and_max(conn, AnnotationAssignment, AnnotationAssignment.id,
                                AnnotationAssignment.updated_at)) if keep else None
    gold_tags = None
    if gold is None:
        if annotation_rows is before and previous.gold_key == gold_key:
            gold, gold_tags = previous.gold, previous.gold_tags
        else:
            gold = read_gold_in_force(session, project_id, decided_only=True,
                                      submitted=every_submitted[0] if len(every_submitted) == 1 else None)
    if gold_tags is None:
        gold_tags = _gold_tags(gold)
    adjudicated = dict(gold_tags) if known.issuperset(gold_tags) else {t: g for t, g in gold_tags.items() if t in known}

    data = MetricsInput(sentences, translations, tag_sets, adjudicated, k, invalid)
    if previous is not None and data == previous.data:
        data = previous.data  # nothing counted changed (drafts saved): readers may keep what they derived
    return MetricsSnapshot(data, translation_rows, annotation_rows, users, mapped, gold_key, gold, gold_tags,
                           (sentence_rows, aspect_counts) if keep else None, map_rows if keep else None)


def project_settings(engine: Engine, project_id: int) -> dict:
    """The settings the dashboard states, read by the one reader (``db.project_settings``: a missing
    project is ``ProjectNotFound``)."""
    project = load_settings(engine, project_id)
    return {
        "name": project.name,
        "translators_per_phase": project.translators_per_phase,
        "annotators_per_item": project.annotators_per_item,
        "tagging_scope": project.tagging_scope,
    }


def metrics_report(engine: Engine, project_id: int) -> dict:
    """The JSON-ready report of ``metrics --json`` (keys: ``corpus.metrics.REPORT_KEYS``)."""
    return compute_report(load_metrics_input(engine, project_id))


def latest_save(engine: Engine, project_id: int) -> tuple:
    """A cheap fingerprint of everything the figures depend on; any save changes it.

    Counts catch inserts and deletes, summed versions catch every ORM update (optimistic locking
    bumps them), the latest revision id catches every recorded save, and the annotation assignments
    (count, newest, inactive) catch a change of who tags what, which changes which items are complete
    and so their gold.
    """
    with Session(reader(engine)) as session:
        return _latest_save(session, project_id)


def _latest_save(session: Session, project_id: int) -> tuple:

    def scalar(*columns):
        return select(*columns).scalar_subquery()

    # One pass over each of the two big tables (a scalar subquery per figure would scan them 3 and 2 times),
    # over their (updated_at, version) index, not the rows and their texts: a submission is an update (its
    # version moves), so the newest submission time would say nothing more, and would need the rows.
    translations = session.execute(select(
        func.count(Translation.id), func.coalesce(func.sum(Translation.version), 0), func.max(Translation.updated_at),
    )).one()
    annotations = session.execute(select(
        func.count(Annotation.id), func.coalesce(func.sum(Annotation.version), 0), func.max(Annotation.updated_at),
    )).one()
    rest = session.execute(
        select(
            scalar(func.count(SourceSentence.id)).label("sentences"),
            scalar(func.count(AspectTerm.id)),
            scalar(func.count(AspectAlignment.id)),
            scalar(func.max(Adjudication.id)),
            scalar(func.max(Revision.id)),
            select(Project.annotators_per_item).where(Project.id == project_id).scalar_subquery(),
        )
    ).one()
    assignments = session.execute(select(
        func.count(AnnotationAssignment.id), func.max(AnnotationAssignment.id),
        func.count(AnnotationAssignment.id).filter(AnnotationAssignment.status.in_(INACTIVE_STATUSES)),
    )).one()
    row = (*rest[:2], *translations, rest[2], *annotations, *rest[3:], *assignments)
    return (project_id, *(v.isoformat() if isinstance(v, datetime) else v for v in row))


def left_out_basis(engine: Engine, project_id: int, snapshot: MetricsSnapshot) -> tuple:
    """Everything the left-out counts (``db.export_data.left_out_counts``: the export's selection with the
    Export page's defaults, ``corpus.export.selection.select_left_out``) read that a save can change, taken
    from ``snapshot`` where it has it: two calls that return equal bases return equal counts.

    Per sentence the selection reads which of its translations are submitted and which of those are
    untranslatable, its latest final choice, and of the final translation its text, its frozen tokens and
    its gold (the item's submitted annotations, decisions and assignees). So the basis holds: the sentences;
    the submitted translations and which of them are untranslatable; the final translations with
    their versions (every write of a row bumps it); the submitted annotations of the final translations
    with their versions; the snapshot's gold key (decisions, assignees, annotators per item); the newest
    final choice (append-only) and the tagging items (count and newest: frozen tokens never change). A
    save of a translation that is not final, of its annotations, or a draft, changes none of it: the
    dashboard does not run the selection again after it (0.5-0.7 s at paper scale). Drafts count only in
    the reasons' details, not in the counts: only submitted translations are in the basis."""
    with Session(reader(engine)) as session:
        conn = session.connection()
        latest = select(func.max(FinalChoice.id)).group_by(FinalChoice.sentence_id)
        finals = sorted({pk for (pk,) in fetch(conn, select(FinalChoice.translation_id)
                                                 .where(FinalChoice.id.in_(latest))) if pk is not None})
        newest_choice, items, newest_item = conn.execute(select(
            select(func.max(FinalChoice.id)).scalar_subquery(),
            select(func.count(TaggingItem.id)).scalar_subquery(),
            select(func.max(TaggingItem.id)).scalar_subquery(),
        )).one()
    # Over the rows with ``compress``, ``map`` and ``itemgetter`` (no Python per row: 48,000 translations
    # and 95,000 annotations at paper scale); a record is None where its row is not submitted.
    translations, annotations = snapshot.translations, snapshot.annotations
    submitted = tuple(compress(translations.ids, translations.records))
    untranslatable = tuple(compress(submitted, map(itemgetter(5), filter(None, translations.records))))
    versions = dict(zip(translations.ids, translations.versions))
    final_versions = tuple(zip(finals, map(versions.get, finals)))
    final = set(finals)
    final_annotations = tuple(compress(
        compress(zip(annotations.ids, annotations.versions), annotations.records),
        map(final.__contains__, map(itemgetter(0), filter(None, annotations.records)))))
    return (
        project_id, tuple(map(itemgetter(0), snapshot.data.sentences)), submitted, untranslatable, final_versions,
        final_annotations, snapshot.gold_key, newest_choice, items, newest_item,
    )


def left_out_touched(engine: Engine, before: tuple, after: tuple) -> set[int] | None:
    """The sentences (row ids) whose left-out reasons can differ between two ``left_out_basis`` of a project,
    for ``db.export_data.left_out_reasons`` to select again; None when the bases cannot tell (the sentences,
    the gold key or a row gone: count them all). A sentence's reasons read its own translations, its latest
    final choice, and its final translation's frozen tokens and gold: so the sentences of the translations
    that moved in or out of the submitted, untranslatable or final ones, of the final annotations that
    changed, of new final choices and of new tagging items, and the sentences whose choice names one of
    those translations."""
    if before[:2] != after[:2] or before[6] != after[6]:
        return None
    changed = {pk for part in (2, 3) for pk in set(before[part]).symmetric_difference(after[part])}
    changed.update(pk for pk, _ in set(before[4]).symmetric_difference(after[4]))
    annotations = {pk for pk, _ in set(before[5]).symmetric_difference(after[5])}
    with Session(reader(engine)) as session:
        conn = session.connection()
        sentences: set[int] = set()
        if before[7] != after[7]:  # final choices are only ever added
            if before[7] is None or after[7] is None or after[7] < before[7]:
                return None
            for sentence_pk, translation_pk in fetch(conn, select(FinalChoice.sentence_id, FinalChoice.translation_id)
                                                     .where(FinalChoice.id > before[7])):
                sentences.add(sentence_pk)
                if translation_pk is not None:
                    changed.add(translation_pk)
        if before[8:10] != after[8:10]:  # frozen tokens never change: only new items
            if before[9] is None:
                return None
            added = fetch(conn, select(TaggingItem.translation_id).where(TaggingItem.id > before[9]))
            if after[8] - before[8] != len(added):
                return None
            changed.update(pk for (pk,) in added)
        if annotations:
            found = fetch(conn, select(TaggingItem.translation_id).join(Annotation, Annotation.item_id == TaggingItem.id)
                          .where(among(Annotation.id, annotations)))
            if len(found) != len(annotations):
                return None
            changed.update(pk for (pk,) in found)
        if changed:
            found = fetch(conn, select(Translation.sentence_id).where(among(Translation.id, changed)))
            if len(found) != len(changed):
                return None
            sentences.update(pk for (pk,) in found)
            sentences.update(pk for (pk,) in fetch(conn, select(FinalChoice.sentence_id)
                                                   .where(among(FinalChoice.translation_id, changed))))
    return sentences


# --- Progress and sentence detail (dashboard) --------------------------------------------------------


def load_progress(engine: Engine, project_id: int, submitted: bool = True) -> list[ProgressCount]:
    """Work done (translations, annotations) and work waiting (open assignments), grouped.
    ``submitted=False`` leaves out submitted work (the dashboard counts it from the metrics input)."""
    with Session(reader(engine)) as session:
        return _load_progress(session, project_id, submitted)


def _load_progress(session: Session, project_id: int, submitted: bool) -> list[ProgressCount]:
    rows: list[ProgressCount] = []
    done_translation = Translation.status != SUBMITTED if not submitted else Translation.id.is_not(None)
    done_annotation = Annotation.status != SUBMITTED if not submitted else Annotation.id.is_not(None)
    for domain, split, phase, name, status, n in session.execute(
        select(SourceSentence.domain, SourceSentence.split, Translation.phase, User.username, Translation.status, func.count())
        .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
        .join(User, User.id == Translation.translator_id)
        .where(_in_project(project_id) & done_translation)
        .group_by(SourceSentence.domain, SourceSentence.split, Translation.phase, User.username, Translation.status)
    ):
        rows.append(ProgressCount("translation", domain, split, phase, name, status, n))
    started = select(Translation.id).where(
        (Translation.sentence_id == TranslationAssignment.sentence_id)
        & (Translation.phase == TranslationAssignment.phase)
        & (Translation.translator_id == TranslationAssignment.user_id)
    ).exists()
    for domain, split, phase, name, status, n in session.execute(
        select(SourceSentence.domain, SourceSentence.split, TranslationAssignment.phase, User.username,
               TranslationAssignment.status, func.count())
        .join(SourceSentence, SourceSentence.id == TranslationAssignment.sentence_id)
        .join(User, User.id == TranslationAssignment.user_id)
        .where(_in_project(project_id) & ~started & TranslationAssignment.status.in_((Status.ASSIGNED, Status.SKIPPED)))
        .group_by(SourceSentence.domain, SourceSentence.split, TranslationAssignment.phase, User.username,
                  TranslationAssignment.status)
    ):
        rows.append(ProgressCount("translation", domain, split, phase, name, status, n))
    for domain, split, phase, name, status, n in session.execute(
        select(SourceSentence.domain, SourceSentence.split, Translation.phase, User.username, Annotation.status, func.count())
        .join(TaggingItem, TaggingItem.id == Annotation.item_id)
        .join(Translation, Translation.id == TaggingItem.translation_id)
        .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
        .join(User, User.id == Annotation.annotator_id)
        .where(_in_project(project_id) & done_annotation)
        .group_by(SourceSentence.domain, SourceSentence.split, Translation.phase, User.username, Annotation.status)
    ):
        rows.append(ProgressCount("annotation", domain, split, phase, name, status, n))
    annotated = (
        select(Annotation.id)
        .join(TaggingItem, TaggingItem.id == Annotation.item_id)
        .where((TaggingItem.translation_id == AnnotationAssignment.translation_id)
               & (Annotation.annotator_id == AnnotationAssignment.user_id))
        .exists()
    )
    for domain, split, phase, name, status, n in session.execute(
        select(SourceSentence.domain, SourceSentence.split, Translation.phase, User.username,
               AnnotationAssignment.status, func.count())
        .join(Translation, Translation.id == AnnotationAssignment.translation_id)
        .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
        .join(User, User.id == AnnotationAssignment.user_id)
        .where(_in_project(project_id) & ~annotated & AnnotationAssignment.status.in_((Status.ASSIGNED, Status.SKIPPED)))
        .group_by(SourceSentence.domain, SourceSentence.split, Translation.phase, User.username,
                  AnnotationAssignment.status)
    ):
        rows.append(ProgressCount("annotation", domain, split, phase, name, status, n))
    return rows
