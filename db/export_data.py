"""Load the corpus for export as plain rows (export = load -> select -> formatters -> writer).

This module only reads: ``_export_rows`` gathers what ``corpus.export.selection.select_records`` needs as
plain rows (Core rows, one read transaction, so a paper-scale corpus loads in about a second); the gold
in force comes from the one reader ``db.gold``, the selection of records and the reasons for leaving
sentences out from ``corpus.export.selection``, the formats from ``corpus.export``.

Every agreement figure (per record, the card's Table 2, ``metrics.json``) comes from the one
implementation behind ``python -m corpus metrics --json``: ``db.metrics_data`` and
``corpus.metrics.compute_agreement`` (``corpus.rouge``, ``corpus.kappa``, ``corpus.agreement``), read
in the same transaction as the records.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import chain, compress, islice, repeat
from operator import itemgetter, lt

from sqlalchemy import Connection, Engine, func, select
from sqlalchemy.orm import Session

from corpus.export import FormatOptions, build_files
from corpus.export.figures import RecordFigures, pseudonyms, renamed
from corpus.export.lid import SOURCE as LID_SOURCE
from corpus.export.records import (
    Alignment,
    EnglishAspect,
    ExportDataset,
    build_source_sentence,
)
from corpus.agreement import MetricsInput
from corpus.export.selection import (
    SUBMITTED,
    ExportOptions,
    ExportRows,
    SourceRow,
    TranslationRow,
    select_left_out,
    select_records,
    selection_text,
)
from corpus.export.splits import apply_dev_split
from corpus.metrics import compute_agreement, paused_gc
from corpus.tokens import TOKENIZER_SIGNATURE
from corpus.vocabulary import INACTIVE_STATUSES, Role
from db.engine import reader
from db.gold import SubmittedColumns, among, read_gold_in_force
from db.metrics_data import (
    as_columns,
    read_metrics_input,
    read_submitted_annotations,
    submitted_columns,
)
from db.models import (
    AspectAlignment,
    AspectCategory,
    AspectTerm,
    FinalChoice,
    GlossaryTerm,
    Project,
    SourceSentence,
    TaggingItem,
    Translation,
    User,
)
from db.rows import fetch
from db.schema import default_project_id

__all__ = ["ExportOptions", "ExportRead", "assemble_export", "export_files", "is_read_only_error", "left_out_counts",
           "left_out_reasons", "left_out_stamp", "load_export", "load_source_export", "pick_final_translations",
           "planned_auto_picks", "read_export", "reason_counts", "record_planned_picks"]


def load_export(engine: Engine, options: ExportOptions | None = None, auto_final: bool = False) -> ExportDataset:
    """The export's records. ``auto_final``: where the lead has not decided, take the automatic final pick
    (``planned_auto_picks``) as the final translation without recording it; ``meta["auto_picks"]`` holds
    them (sentence row id -> translation id) and ``meta["auto_policy"]`` the policy, for
    ``record_planned_picks`` once the files are written."""
    options = options or ExportOptions()
    with paused_gc():
        return assemble_export(engine, read_export(engine, options, auto_final), options)


@dataclass
class ExportRead:
    """What the export reads of the database, in one read transaction: the project, the selection's rows
    (``_export_rows``), the metrics input, users in creation order, and the planned automatic picks."""

    project_id: int
    name: str
    settings: dict
    final_policy: str
    annotators_per_item: int
    rows: ExportRows
    metrics_input: MetricsInput
    user_order: list[str]
    picks: dict[int, int]
    policy: str | None


def read_export(engine: Engine, options: ExportOptions, auto_final: bool = False) -> ExportRead:
    """The export's reading part: every row it needs, as plain rows, in one read transaction (DEFERRED on
    SQLite: never the write lock), so the records and the figures describe the same snapshot."""
    with paused_gc(), Session(reader(engine)) as session:
        project_id = options.project_id or default_project_id(session)
        project = session.get(Project, project_id)
        if auto_final:  # the picks are scored from the metrics input, which the figures then use too
            metrics_input = read_metrics_input(session, project_id)
            picks, policy = planned_auto_picks(session, project_id, metrics_input)
        else:
            metrics_input, picks, policy = None, {}, None
        submitted: list[list] = []
        # The submitted annotations, read once: the gold's versions and the metrics input's tag sets.
        annotations = read_submitted_annotations(session) if metrics_input is None else None
        rows = _export_rows(session, project_id, project.annotators_per_item, options.all_translations, picks,
                            with_decided=metrics_input is None, submitted=submitted,
                            annotations=None if annotations is None else submitted_columns(annotations))
        user_order = [u for (u,) in session.execute(select(User.username).order_by(User.id)).all()]
        if metrics_input is None:  # the gold, translations and annotations just read are what it reads
            metrics_input = read_metrics_input(session, project_id, rows.gold, submitted, annotations)
        return ExportRead(project_id, project.name, dict(project.settings or {}), project.final_policy,
                          project.annotators_per_item, rows, metrics_input, user_order, picks, policy)


def assemble_export(engine: Engine, read: ExportRead, options: ExportOptions) -> ExportDataset:
    """The records, figures and card facts from what ``read_export`` read (the last baseline job aside)."""
    rows, settings, project_id = read.rows, read.settings, read.project_id
    # Every agreement figure comes from the one implementation behind `python -m corpus metrics --json`.
    agreement_figures = compute_agreement(read.metrics_input)
    report = agreement_figures.report_summary()
    translators: dict[str, str] = {}
    if options.pseudonymize:
        translators = pseudonyms({t.username for ts in rows.translations.values() for t in ts}, read.user_order,
                                 Role.TRANSLATOR)
        annotators = pseudonyms({r["annotator"] for r in report["cohen_kappa"]["per_annotator"]}, read.user_order,
                                Role.ANNOTATOR)
        report = renamed(report, translators, annotators)
    records, left_out = select_records(rows, options, RecordFigures(agreement_figures.rouge), translators)

    dataset = ExportDataset(records, left_out)
    dataset.meta.update(
        title=settings.get("dataset_title") or f"Hindi aspect extraction corpus ({read.name})",
        license=settings.get("license"),
        exported_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        options_text=options.describe(),
        all_translations=options.all_translations,
        tokenizer=TOKENIZER_SIGNATURE,
        lid_source=LID_SOURCE,
        tagging_guidelines=settings.get("tagging_guidelines_version") or settings.get("guidelines_version"),
        selection=selection_text(options, read.final_policy, read.annotators_per_item),
        metrics=report,
        project_id=project_id,
    )
    if read.policy is not None:
        dataset.meta.update(auto_picks=read.picks, auto_policy=read.policy)
    _add_last_baseline(engine, project_id, dataset)
    return apply_dev_split(dataset, options.dev_fraction, options.seed)


def left_out_stamp(engine: Engine, project_id: int) -> tuple:
    """What the left-out counts depend on beyond the counted corpus (its generation covers submitted
    translations, annotations and gold): the newest final choice (append-only), who tags what, and how many
    annotators an item needs. A draft autosaved moves none of it, so the dashboard does not run the export's
    selection (1.3-1.6 s at paper scale) after every keystroke pause."""
    from db.models import AnnotationAssignment

    with Session(reader(engine)) as session:
        final = session.scalar(select(func.max(FinalChoice.id)))
        per_item = session.scalar(select(Project.annotators_per_item).where(Project.id == project_id))
        assignments = session.execute(select(
            func.count(AnnotationAssignment.id), func.max(AnnotationAssignment.id),
            func.count(AnnotationAssignment.id).filter(AnnotationAssignment.status.in_(INACTIVE_STATUSES)),
        )).one()
    return (final, per_item, *assignments)


def left_out_counts(engine: Engine, project_id: int | None = None) -> dict[str, int]:
    """``load_export(engine).left_out_counts()`` (the Export page's defaults: final translations, no
    automatic pick) without the records or their figures (``corpus.export.selection.select_left_out``):
    for the dashboard's counts."""
    return reason_counts(left_out_reasons(engine, project_id))


def reason_counts(reasons: dict[int, tuple[str, ...]]) -> dict[str, int]:
    """``left_out_reasons``' reasons counted as ``ExportDataset.left_out_counts`` counts them (reason -> count)."""
    counts = Counter(chain.from_iterable(reasons.values()))
    return dict(sorted(counts.items()))


def left_out_reasons(engine: Engine, project_id: int | None = None, previous: dict[int, tuple[str, ...]] | None = None,
                     sentences: Collection[int] | None = None) -> dict[int, tuple[str, ...]]:
    """Sentence row id -> the reasons the Export page's defaults leave it out for (``left_out_counts``), for the
    sentences left out. Given an earlier result (``previous``) and the only ``sentences`` whose reasons can
    have changed since (``db.metrics_data.left_out_touched``), only those are read and selected again: a
    sentence's reasons depend on its own rows alone (the dashboard after a save of a final translation). When
    a final translation is not among its sentence's translations, every sentence is read."""
    with paused_gc(), Session(reader(engine)) as session:
        project_id = project_id or default_project_id(session)
        if previous is not None and sentences is not None:
            only = sorted(set(sentences))
            if not only:
                return dict(previous)
            per_item = session.scalar(select(Project.annotators_per_item).where(Project.id == project_id))
            rows = _export_rows(session, project_id, per_item, False, records=False, only=only)
            read = {t.id for ts in rows.translations.values() for t in ts}
            if all(t is None or t in read for t, _ in rows.finals.values()):
                again = set(only)
                reasons = {pk: r for pk, r in previous.items() if pk not in again}
                reasons.update(_reasons_by_sentence(rows))
                return reasons
        per_item = session.scalar(select(Project.annotators_per_item).where(Project.id == project_id))
        return _reasons_by_sentence(_export_rows(session, project_id, per_item, False, records=False))


def _reasons_by_sentence(rows: ExportRows) -> dict[int, tuple[str, ...]]:
    """The selection's left-out list (``select_left_out``, the Export page's defaults) as reasons per sentence row id."""
    pk_of = {(s.domain, s.split, s.sentence_id): s.id for s in rows.sentences}
    reasons: dict[int, list[str]] = defaultdict(list)
    for item in select_left_out(rows, ExportOptions()):
        reasons[pk_of[(item.domain, item.split, item.sentence_id)]].append(item.reason)
    return {pk: tuple(r) for pk, r in reasons.items()}


def _add_last_baseline(engine: Engine, project_id: int, dataset: ExportDataset) -> None:
    """The Dataset check's last CRF baseline (English and Hindi side by side) for the card, said to be of its
    time: the corpus may have changed since it ran."""
    from corpus.jobs import JobKind, JobState
    from db.jobs import latest

    job = latest(engine, project_id, JobKind.DATASET_BASELINE, JobState.DONE)
    if job is None or not isinstance(job.result, dict) or not {"en", "hi", "signature"} <= set(job.result):
        return
    when = job.finished_at.strftime("%Y-%m-%d %H:%M UTC") if job.finished_at else "an earlier run"
    dataset.meta.update(baseline=job.result, baseline_note=(
        f"From the Dataset check's last baseline run ({when}), on the corpus as it was then; run it again on the "
        "Dataset check page for figures of this export."))


def _export_rows(session: Session, project_id: int, annotators_per_item: int, all_translations: bool,
                 planned: dict[int, int] | None = None, with_decided: bool = False,
                 records: bool = True, submitted: list[list] | None = None,
                 annotations: SubmittedColumns | None = None, only: list[int] | None = None) -> ExportRows:
    """What the selection reads of the project, as plain rows; ``planned`` automatic picks (sentence ->
    translation) stand in for the recorded choice of the sentences they name. ``rows.gold`` holds the gold
    of the translations the selection can export (the final ones, or all with ``all_translations``) and,
    ``with_decided``, of every item with a decision (what the metrics input reads of gold). Without
    ``records`` only what decides which sentences are left out is read (no aspect maps or glossary).
    ``submitted``: a list that receives the submitted translations' columns as the metrics input takes them
    (``db.metrics_data.TRANSLATION_COLUMNS``, in id order), so the figures read no translation again.
    ``annotations``: every submitted annotation, read by the caller in this transaction: the gold's versions
    are taken from them (``db.gold.read_gold_in_force``), not read again. ``only``: these sentences (row ids)
    alone, as if the project held no other."""
    conn = session.connection()  # Core rows: the ORM's per-row bookkeeping is most of a bulk read
    sentences, in_project, aspects, aspect_position, categories = _source_rows(conn, project_id, only, records)
    rows = ExportRows(sentences, annotators_per_item, aspects, categories)

    translations: dict[int, list[TranslationRow]] = defaultdict(list)
    wanted = [Translation.id, Translation.sentence_id, Translation.phase, Translation.translator_id,
              Translation.text, Translation.untranslatable, Translation.status, Translation.guidelines_version]
    if submitted is not None:
        wanted += [Translation.submitted_at, Translation.version]
    # Driver tuples (SQLAlchemy's row objects cost more than the rows), and no join: the usernames are a few.
    found = fetch(conn, select(*wanted).where(Translation.sentence_id.in_(in_project)))
    columns = as_columns(found, len(wanted))
    del found
    pk, sentence, phase, translator, text, untranslatable, status, guidelines = columns[:8]
    users = fetch(conn, select(User.id, User.username).order_by(User.username, User.id))  # a few: read once
    username = list(map(dict(users).__getitem__, translator))
    if submitted is not None:  # the metrics input's columns (TRANSLATION_COLUMNS) of the submitted ones, by id
        moment, version = columns[8:]
        chosen = list(map(SUBMITTED.__eq__, status))
        submitted.extend(in_id_order([list(compress(column, chosen)) for column in
                                      (pk, version, sentence, phase, translator, text, untranslatable, moment)]))
    # tuple.__new__ skips the NamedTuple's Python-level _make (as db.metrics_data makes its records)
    translation_rows = list(map(tuple.__new__, repeat(TranslationRow),
                                zip(pk, sentence, phase, translator, username, text, map(bool, untranslatable),
                                    status, guidelines)))
    if records:  # the records' order; which sentences are left out, and why, depends on no order
        translation_rows.sort(key=_by_sentence_phase_username(users))
    for row in translation_rows:
        translations[row[1]].append(row)
    del translation_rows
    rows.translations = translations
    in_translations = select(Translation.id).where(Translation.sentence_id.in_(in_project))

    latest_fc = (select(func.max(FinalChoice.id)).where(FinalChoice.sentence_id.in_(in_project))
                 .group_by(FinalChoice.sentence_id))
    for sentence_id, translation_id, note, chosen_by in fetch(conn, (
        select(FinalChoice.sentence_id, FinalChoice.translation_id, FinalChoice.note, FinalChoice.chosen_by)
        .where(FinalChoice.id.in_(latest_fc))
    )):
        rows.finals[sentence_id] = (translation_id, note)
        if chosen_by is not None:
            rows.lead_decided.add(sentence_id)
    for sentence_id, translation_id in (planned or {}).items():
        rows.finals[sentence_id] = (translation_id, None)

    alignments: dict[int, list[Alignment]] = defaultdict(list)
    for translation_id, aspect_term_id, start, end in fetch(conn, (
        select(AspectAlignment.translation_id, AspectAlignment.aspect_term_id, AspectAlignment.start,
               AspectAlignment.end)
        .where(AspectAlignment.translation_id.in_(in_translations), AspectAlignment.dropped.is_(False))
    )) if records else ():
        if aspect_term_id in aspect_position:
            alignments[translation_id].append(Alignment(aspect_position[aspect_term_id], start, end))
    rows.alignments = alignments

    exportable = None if all_translations else {t for t, _ in rows.finals.values() if t is not None}
    rows.gold = {g.translation_id: g for g in read_gold_in_force(
        session, project_id, translations=exportable, and_decided=with_decided, submitted=annotations).values()}

    if all_translations:
        wanted = select(TaggingItem.translation_id).where(TaggingItem.translation_id.in_(in_translations))
    else:
        wanted = select(FinalChoice.translation_id).where(FinalChoice.id.in_(latest_fc))
    rows.frozen_tokens = _token_lists(fetch(conn, (
        select(TaggingItem.translation_id, TaggingItem.tokens).where(TaggingItem.translation_id.in_(wanted))
    )))
    missing = [t for t in (planned or {}).values() if t not in rows.frozen_tokens]
    for start in range(0, len(missing), 1000):
        rows.frozen_tokens.update(
            (row.translation_id, list(row.tokens)) for row in conn.execute(
                select(TaggingItem.translation_id, TaggingItem.tokens)
                .where(TaggingItem.translation_id.in_(missing[start:start + 1000]))
            ).all()
        )
    rows.proper_nouns = _proper_nouns(conn, project_id) if records else []
    return rows


def in_id_order(columns: list[list]) -> list[list]:
    """Columns of rows (the first: their ids) reordered so the ids ascend. The database hands translations
    over in its index's order (by sentence), which is the ids' only when they were made sentence by sentence."""
    ids = columns[0]
    if all(map(lt, ids, islice(ids, 1, None))):
        return columns
    order = sorted(range(len(ids)), key=ids.__getitem__)
    return [[column[i] for i in order] for column in columns]


def _by_sentence_phase_username(users: list[tuple[int, str]]):
    """The sort key of translation rows (id, sentence, phase, translator, username, ...) that orders them as
    ``ORDER BY sentence_id, phase, username`` does, given the users as (id, username) in the database's order
    of the usernames (its collation): that order as a rank per translator. Sorted here, not in SQL: the sort of ~48,000 rows with
    their texts in a temporary B-tree cost the database more than reading them (rows of one sentence are
    few, and the database hands them over nearly in order). Translator per sentence and phase is unique, so
    the order is total, as the database's was. Phases are 'aware' and 'blind' (a CHECK): alike in any collation."""
    names = [name for _, name in users]
    if names == sorted(names):  # Python orders these names as the database does (SQLite's BINARY, "C"):
        return itemgetter(1, 2, 4)  # then the username itself (row 4) is the key, read in C
    rank = {pk: i for i, (pk, _) in enumerate(users)}
    return lambda row: (row[1], row[2], rank[row[3]])


def _token_list(stored) -> list[str]:
    """Frozen tokens as the driver gives them: JSON text (SQLite) or the list already (PostgreSQL)."""
    return json.loads(stored) if isinstance(stored, str | bytes) else list(stored)


def _token_lists(rows: list[tuple]) -> dict[int, list[str]]:
    """``{translation id: _token_list(tokens)}`` of (translation id, stored tokens) rows; JSON texts parsed
    as one array (one parse, not one per item)."""
    if rows and all(stored.__class__ is str for _, stored in rows):
        return dict(zip([t for t, _ in rows], json.loads("[" + ",".join([stored for _, stored in rows]) + "]")))
    return {translation_id: _token_list(stored) for translation_id, stored in rows}


def _proper_nouns(conn: Connection, project_id: int) -> list[str]:
    """The glossary's keep-roman forms, English and Hindi: named entities for the LID labels."""
    return sorted({
        form
        for english, hindi in conn.execute(
            select(GlossaryTerm.english, GlossaryTerm.hindi)
            .where(GlossaryTerm.project_id == project_id, GlossaryTerm.rule == "keep-roman")
        ).all()
        for form in (english, hindi) if form
    })


def _source_rows(conn, project_id: int, only: list[int] | None = None, aspects_too: bool = True):
    """The project's source sentences (export order, as ``SourceRow``), the sub-query of their ids, their
    aspect terms and categories in position order, and each aspect term's position by id: one reader for
    both exports. Driver tuples (``db.rows.fetch``), not SQLAlchemy rows. ``only``: these sentences alone;
    without ``aspects_too`` no aspect term or category is read (the left-out counts check none)."""
    chosen = SourceSentence.project_id == project_id
    if only is not None:
        chosen = chosen & among(SourceSentence.id, only)
    sentences = list(map(SourceRow._make, fetch(conn, (
        select(SourceSentence.id, SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id,
               SourceSentence.text)
        .where(chosen)
        .order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal, SourceSentence.id)
    ))))
    in_project = select(SourceSentence.id).where(chosen)

    aspects: dict[int, list[EnglishAspect]] = defaultdict(list)
    aspect_position: dict[int, int] = {}
    categories: dict[int, list[tuple[str, str | None]]] = defaultdict(list)
    if not aspects_too:
        return sentences, in_project, aspects, aspect_position, categories
    for pk, sentence_id, position, term, start, end, polarity in fetch(conn, (
        select(AspectTerm.id, AspectTerm.sentence_id, AspectTerm.position, AspectTerm.term, AspectTerm.start,
               AspectTerm.end, AspectTerm.polarity)
        .where(AspectTerm.sentence_id.in_(in_project)).order_by(AspectTerm.sentence_id, AspectTerm.position)
    )):
        aspects[sentence_id].append(EnglishAspect(term, start, end, polarity, position))
        aspect_position[pk] = position

    for sentence_id, category, polarity in fetch(conn, (
        select(AspectCategory.sentence_id, AspectCategory.category, AspectCategory.polarity)
        .where(AspectCategory.sentence_id.in_(in_project))
        .order_by(AspectCategory.sentence_id, AspectCategory.position)
    )):
        categories[sentence_id].append((category, polarity))
    return sentences, in_project, aspects, aspect_position, categories


def load_source_export(engine: Engine, project_id: int | None = None) -> ExportDataset:
    """Every imported source sentence, translated or not, as English-only records (``export --source-only``):
    tokens by the canonical tokenizer and BIO from the SemEval offsets (``corpus.export.records.english_side``)."""
    with Session(reader(engine)) as session:
        project_id = project_id or default_project_id(session)
        project = session.get(Project, project_id)
        settings = dict(project.settings or {})
        conn = session.connection()
        sentences, _, aspects, _, categories = _source_rows(conn, project_id)
    records = [
        build_source_sentence(
            uid=f"{s.domain}/{s.split}/{s.sentence_id}", sentence_id=s.sentence_id, domain=s.domain, split=s.split,
            en_text=s.text, en_aspects=aspects.get(s.id, []), categories=categories.get(s.id, []),
        )
        for s in sentences
    ]
    dataset = ExportDataset(records)
    dataset.meta.update(
        source_only=True,
        title=(settings.get("dataset_title") or f"Hindi aspect extraction corpus ({project.name})") + ": English source",
        license=settings.get("license"),
        exported_at=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        options_text="source only: every imported SemEval sentence, translated or not",
        tokenizer=TOKENIZER_SIGNATURE,
    )
    return dataset


def planned_auto_picks(session: Session, project_id: int,
                       data: MetricsInput | None = None) -> tuple[dict[int, int], str]:
    """The automatic final picks ``db.final_choice.record_auto_choices`` would record now, computed in the
    caller's (read) transaction and written nowhere: sentence row id -> translation id, and the policy.
    The same rule (``corpus.final_choice.choose_final`` over the same candidates); a lead's decision, and an
    automatic pick already recorded for the same translation and policy, are left as they are."""
    from corpus.final_choice import choose_final
    from db.final_candidates import final_choices_in_force, policy_in, project_candidates, submitted_sentence_ids

    policy = policy_in(session, project_id)
    sentences = submitted_sentence_ids(session, project_id)
    candidates = project_candidates(session, project_id, data)
    in_force = final_choices_in_force(session, sentences)
    picks: dict[int, int] = {}
    for s in sentences:
        pick = choose_final(candidates.get(s, []), policy).candidate
        if pick is None:
            continue
        current = in_force.get(s)
        if current is not None and (current.chosen_by is not None or (
                current.translation_id == pick.translation_id and current.policy == policy)):
            continue
        picks[s] = pick.translation_id
    return picks, policy


def is_read_only_error(exc: BaseException) -> bool:
    """Whether a database error says the database cannot be written (a read-only SQLite file or folder, a
    read-only PostgreSQL transaction or a user without the right to write)."""
    orig = getattr(exc, "orig", None) or exc
    text = str(orig).lower()
    return (getattr(orig, "sqlstate", None) in ("25006", "42501")
            or "readonly" in text or "read-only" in text or "read only" in text
            or "unable to open database file" in text)


def record_planned_picks(engine: Engine, project_id: int) -> int:
    """Record the automatic picks after an export that used them (``load_export(auto_final=True)``), by the
    one writer ``db.final_choice.record_auto_choices``. Returns the picks recorded."""
    from db.final_choice import record_auto_choices

    return record_auto_choices(engine, project_id)


def pick_final_translations(engine: Engine, project_id: int | None = None) -> tuple[int, str]:
    """Record the automatic final pick for every sentence the lead has not decided, exactly as the Final
    translations page does (``db.final_choice.record_auto_choices``: the rule of ``corpus.final_choice``,
    one row and one revision per pick; a lead's decision is never replaced). Returns (picks recorded,
    the project's policy)."""
    from db.final_candidates import project_policy
    from db.final_choice import record_auto_choices

    with Session(reader(engine)) as session:
        project_id = project_id or default_project_id(session)
    policy = project_policy(engine, project_id)
    return record_auto_choices(engine, project_id), policy


def export_files(
    engine: Engine, options: ExportOptions | None = None, formats: Sequence[str] | None = None,
    format_options: FormatOptions | None = None, auto_final: bool = False,
) -> tuple[dict[str, str], ExportDataset]:
    """The whole export in memory: ``{relative path: text}`` and the dataset it came from."""
    dataset = load_export(engine, options, auto_final)
    return build_files(dataset, formats, format_options), dataset
