"""Load the corpus for export as plain records (export = load -> formatters -> writer).

Per source sentence: its final translation (the latest FinalChoice) with gold BIO labels, the
latest Adjudication of its tagging item, or, without one, the submitted annotations when they all
agree. Sentences that the majority found untranslatable, that the lead left out, or that are still
unresolved are not exported and are listed with their reason in ``ExportDataset.left_out``; nothing
is dropped silently. Tables are read in bulk with plain column selects (Core rows, one read
transaction) so a paper-scale corpus loads in about a second.

Every agreement figure (per record, the card's Table 2, ``metrics.json``) comes from the one
implementation behind ``python -m corpus metrics --json``: ``db.metrics_data.load_metrics_input`` and
``corpus.metrics.compute_agreement`` (``corpus.rouge``, ``corpus.kappa``, ``corpus.agreement``), read
in the same transaction as the records.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from itertools import combinations

import numpy as np
from sqlalchemy import Engine, Text, cast, func, select
from sqlalchemy.orm import Session

from corpus.agreement import RougeResult
from corpus.bio import tags_agree, token_disagreement
from corpus.export import FormatOptions, build_files
from corpus.export.lid import SOURCE as LID_SOURCE
from corpus.export.records import (
    Alignment,
    EnglishAspect,
    ExportDataset,
    ExportSentence,
    LeftOut,
    RecordProblem,
    build_sentence,
    build_source_sentence,
)
from corpus.export.splits import apply_dev_split
from corpus.final_choice import POLICIES
from corpus.gold import WITHDRAWN
from corpus.kappa import cohen_from_confusion, tag_codes
from corpus.metrics import compute_agreement, paused_gc
from corpus.tokens import TOKENIZER_SIGNATURE
from db.engine import reader
from db.metrics_data import load_metrics_input, tags_from_json
from db.models import (
    Adjudication,
    Annotation,
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
from db.schema import default_project_id
from corpus.vocabulary import Status


@dataclass(frozen=True)
class ExportOptions:
    """What goes in: final translations only (default) or every translation; only agreed items; pseudonyms."""

    all_translations: bool = False
    agreed_only: bool = False
    pseudonymize: bool = False
    dev_fraction: float | None = None
    seed: int = 13
    project_id: int | None = None

    def describe(self) -> str:
        parts = ["every submitted translation (all translators, both phases)" if self.all_translations
                 else "one final translation per sentence"]
        parts.append("agreed items only" if self.agreed_only else "agreed or adjudicated labels")
        if self.pseudonymize:
            parts.append("translators and annotators pseudonymized")
        if self.dev_fraction:
            parts.append(f"dev fraction {self.dev_fraction:g} (seed {self.seed})")
        return "; ".join(parts)


@dataclass
class _Translation:
    id: int
    sentence: int
    phase: str
    translator_id: int
    username: str
    text: str | None
    untranslatable: bool
    status: str
    guidelines_version: str | None
    submitted_at: datetime | None


def load_export(engine: Engine, options: ExportOptions | None = None) -> ExportDataset:
    with paused_gc():
        return _load_export(engine, options or ExportOptions())


def _load_export(engine: Engine, options: ExportOptions) -> ExportDataset:
    # One read transaction (DEFERRED on SQLite: never the write lock) for the records and the figures,
    # so both describe the same snapshot.
    with Session(reader(engine)) as session:
        project_id = options.project_id or default_project_id(session)
        project = session.get(Project, project_id)
        per_item = project.annotators_per_item
        settings = dict(project.settings or {})
        final_policy = project.final_policy
        project_name = project.name
        conn = session.connection()  # Core rows: the ORM's per-row bookkeeping is most of a bulk read

        sentences, in_project, aspects, aspect_position, categories = _source_rows(conn, project_id)

        translations: dict[int, list[_Translation]] = defaultdict(list)
        by_id: dict[int, _Translation] = {}
        for row in conn.execute(
            select(Translation.id, Translation.sentence_id, Translation.phase, Translation.translator_id,
                   User.username, Translation.text, Translation.untranslatable, Translation.status,
                   Translation.guidelines_version, Translation.submitted_at)
            .join(User, User.id == Translation.translator_id)
            .where(Translation.sentence_id.in_(in_project))
            .order_by(Translation.sentence_id, Translation.phase, User.username)
        ).all():
            t = _Translation(*row)
            translations[t.sentence].append(t)
            by_id[t.id] = t
        in_translations = select(Translation.id).where(Translation.sentence_id.in_(in_project))

        finals: dict[int, tuple[int | None, str | None]] = {}
        lead_decided: set[int] = set()
        latest_fc = (select(func.max(FinalChoice.id)).where(FinalChoice.sentence_id.in_(in_project))
                     .group_by(FinalChoice.sentence_id))
        for row in conn.execute(
            select(FinalChoice.sentence_id, FinalChoice.translation_id, FinalChoice.note, FinalChoice.chosen_by)
            .where(FinalChoice.id.in_(latest_fc))
        ).all():
            finals[row.sentence_id] = (row.translation_id, row.note)
            if row.chosen_by is not None:
                lead_decided.add(row.sentence_id)

        alignments: dict[int, list[Alignment]] = defaultdict(list)
        for row in conn.execute(
            select(AspectAlignment.translation_id, AspectAlignment.aspect_term_id, AspectAlignment.start,
                   AspectAlignment.end)
            .where(AspectAlignment.translation_id.in_(in_translations), AspectAlignment.dropped.is_(False))
        ).all():
            if row.aspect_term_id in aspect_position:
                alignments[row.translation_id].append(Alignment(aspect_position[row.aspect_term_id], row.start, row.end))

        item_of = dict(conn.execute(
            select(TaggingItem.translation_id, TaggingItem.id).where(TaggingItem.translation_id.in_(in_translations))
        ).all())
        in_items = select(TaggingItem.id).where(TaggingItem.translation_id.in_(in_translations))
        # Raw JSON text: a paper-scale project has ~100k annotations, and decoding each one through the
        # JSON type is most of the load time; Table 2 only needs them as tag strings.
        raw_annotations: dict[int, list[str]] = defaultdict(list)
        for item_id, raw in conn.execute(
            select(Annotation.item_id, cast(Annotation.tags, Text))
            .where(Annotation.item_id.in_(in_items), Annotation.status == Status.SUBMITTED)
            .order_by(Annotation.item_id, Annotation.annotator_id)
        ).all():
            raw_annotations[item_id].append(raw)

        adjudications: dict[int, tuple[list[str], str]] = {}
        latest_adj = (select(func.max(Adjudication.id)).where(Adjudication.item_id.in_(in_items))
                      .group_by(Adjudication.item_id))
        for row in conn.execute(
            select(Adjudication.item_id, Adjudication.tags, Adjudication.source)
            .where(Adjudication.id.in_(latest_adj), Adjudication.source != WITHDRAWN)  # withdrawn: no gold
        ).all():
            adjudications[row.item_id] = (list(row.tags), row.source)

        if options.all_translations:
            wanted_items = in_items
        else:
            final_ids = select(FinalChoice.translation_id).where(FinalChoice.id.in_(latest_fc))
            wanted_items = select(TaggingItem.id).where(TaggingItem.translation_id.in_(final_ids))
        frozen_tokens: dict[int, list[str]] = {
            row.translation_id: list(row.tokens)
            for row in conn.execute(
                select(TaggingItem.translation_id, TaggingItem.tokens).where(TaggingItem.id.in_(wanted_items))
            ).all()
        }

        proper_nouns = sorted({
            form
            for english, hindi in conn.execute(
                select(GlossaryTerm.english, GlossaryTerm.hindi)
                .where(GlossaryTerm.project_id == project_id, GlossaryTerm.rule == "keep-roman")
            ).all()
            for form in (english, hindi) if form
        })
        user_order = [u for (u,) in conn.execute(select(User.username).order_by(User.id)).all()]
        metrics_input = load_metrics_input(session, project_id)

    # Every agreement figure comes from the one implementation behind `python -m corpus metrics --json`.
    agreement_figures = compute_agreement(metrics_input)
    by_translation = _translation_figures(agreement_figures.rouge)
    report = agreement_figures.report_summary()

    pseudonyms = {}
    if options.pseudonymize:
        translators = sorted({t.username for ts in translations.values() for t in ts}, key=user_order.index)
        pseudonyms = {name: f"translator-{i:02d}" for i, name in enumerate(translators, 1)}
        annotators = sorted({r["annotator"] for r in report["cohen_kappa"]["per_annotator"]}, key=user_order.index)
        report = _renamed(report, pseudonyms, {name: f"annotator-{i:02d}" for i, name in enumerate(annotators, 1)})

    def usable(t: _Translation) -> bool:
        return t.status == Status.SUBMITTED and not t.untranslatable and bool(t.text and t.text.strip())

    parsed: dict[str, str | list] = {}

    def annotations_of(item_id: int) -> list[str | list]:
        """Tag strings (``db.metrics_data.tags_from_json``); a tag list that is not valid BIO stays a list,
        so the record is left out as invalid rather than silently repaired."""
        out = []
        for raw in raw_annotations.get(item_id, []):
            tags = parsed.get(raw)
            if tags is None:
                tags = tags_from_json(raw)
                tags = parsed[raw] = tags if tags is not None else list(json.loads(raw))
            out.append(tags)
        return out

    kappa_of: dict[bytes, float | None] = {}

    def pair_kappa(a: str, b: str) -> float | None:
        """``corpus.kappa``'s Cohen's kappa of two annotators' tags of one item, from their 3 x 3 token
        confusion (memoized on it: few distinct confusions occur)."""
        confusion = np.bincount(tag_codes(a).astype(np.int64) * 3 + tag_codes(b), minlength=9)
        key = confusion.tobytes()
        if key not in kappa_of:
            kappa_of[key] = cohen_from_confusion(confusion.reshape(3, 3)).kappa
        return kappa_of[key]

    def gold(t: _Translation):
        """(tags, source, annotations), or (None, reason, detail)."""
        if t.id not in item_of:
            return None, "not tagged", ""
        item_id = item_of[t.id]
        anns = annotations_of(item_id)
        if item_id in adjudications:
            tags, source = adjudications[item_id]
        elif len(anns) < per_item:
            return None, "tagging incomplete", f"{len(anns)} of {per_item} annotations submitted"
        elif tags_agree(anns):
            tags, source = list(anns[0]), "agreed" if len(anns) > 1 else "single"
        else:
            return None, "annotators disagree", f"{len(anns)} annotations differ; no adjudication"
        if options.agreed_only and source != "agreed":
            why = "one annotator only (single)" if source == "single" else f"adjudication ({source})"
            return None, "not agreed", f"gold labels come from {why}"
        return tags, source, anns

    def agreement(t: _Translation, anns: list[str | list]) -> dict:
        vs_others, phase_mean, in_phase, best = by_translation.get(t.id, (None, None, 1, None))
        figures = {
            "rouge_l_vs_others": vs_others,
            "rouge_l_phase_mean": phase_mean,
            "translations_in_phase": in_phase,
            "best_in_phase": best,
            "annotators": len(anns),
            "token_agreement": None,
            "cohen_kappa": None,
        }
        if len(anns) >= 2 and len({len(a) for a in anns}) == 1:
            figures["token_agreement"] = 1.0 - token_disagreement(anns)
            if all(isinstance(a, str) for a in anns):
                kappas = [k for a, b in combinations(anns, 2) if (k := pair_kappa(a, b)) is not None]
                figures["cohen_kappa"] = statistics.fmean(kappas) if kappas else None
        return figures

    records: list[ExportSentence] = []
    left_out: list[LeftOut] = []

    def export_one(s, t: _Translation, uid: str, is_final: bool) -> None:
        tags, source, anns = gold(t)
        if tags is None:
            left_out.append(LeftOut(s.domain, s.split, s.sentence_id, source, anns, t.id))
            return
        try:
            rec = build_sentence(
                uid=uid, sentence_id=s.sentence_id, domain=s.domain, split=s.split, en_text=s.text,
                en_aspects=aspects.get(s.id, []), hi_text=t.text, frozen_tokens=frozen_tokens.get(t.id, []), tags=tags,
                phase=t.phase, translator=pseudonyms.get(t.username, t.username), alignments=alignments.get(t.id, []),
                translation_id=t.id, is_final=is_final, gold_source=source, categories=categories.get(s.id, []),
                agreement=agreement(t, anns), guidelines_version=t.guidelines_version, proper_nouns=proper_nouns,
            )
        except RecordProblem as problem:
            left_out.append(LeftOut(s.domain, s.split, s.sentence_id, problem.reason, problem.detail, t.id))
            return
        records.append(rec)

    for s in sentences:
        final_id, note = finals.get(s.id, (None, None))
        if options.all_translations:
            ts = translations.get(s.id, [])
            if not ts:
                left_out.append(LeftOut(s.domain, s.split, s.sentence_id, "not translated"))
            for t in ts:
                if t.status != Status.SUBMITTED:
                    left_out.append(LeftOut(s.domain, s.split, s.sentence_id, "translation not submitted", "", t.id))
                elif not usable(t):
                    left_out.append(LeftOut(s.domain, s.split, s.sentence_id, "translation untranslatable", "", t.id))
                else:
                    translator = pseudonyms.get(t.username, t.username)
                    export_one(s, t, f"{s.domain}/{s.split}/{s.sentence_id}/{t.phase}/{translator}", t.id == final_id)
            continue
        submitted = [t for t in translations.get(s.id, []) if t.status == Status.SUBMITTED]
        majority_untranslatable = sum(t.untranslatable for t in submitted) * 2 > len(submitted) > 0
        if majority_untranslatable and s.id not in lead_decided:
            final_id = None  # an automatic pick never overrules the majority; only a lead's decision does
        if final_id is None:
            if majority_untranslatable:
                reason = "untranslatable by majority"
                detail = f"{sum(t.untranslatable for t in submitted)} of {len(submitted)} translators"
            elif s.id in finals:
                reason, detail = "left out by lead", note or ""
            else:
                reason, detail = "no final translation", f"{len(submitted)} submitted translations"
            left_out.append(LeftOut(s.domain, s.split, s.sentence_id, reason, detail))
            continue
        t = by_id.get(final_id)
        if t is None or not usable(t):
            left_out.append(LeftOut(s.domain, s.split, s.sentence_id, "final translation has no text", "", final_id))
            continue
        export_one(s, t, f"{s.domain}/{s.split}/{s.sentence_id}", True)

    dataset = ExportDataset(records, left_out)
    dataset.meta.update(
        title=settings.get("dataset_title") or f"Hindi aspect extraction corpus ({project_name})",
        license=settings.get("license"),
        exported_at=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        options_text=options.describe(),
        all_translations=options.all_translations,
        tokenizer=TOKENIZER_SIGNATURE,
        lid_source=LID_SOURCE,
        tagging_guidelines=settings.get("tagging_guidelines_version") or settings.get("guidelines_version"),
        selection=_selection_text(options, final_policy, per_item),
        metrics=report,
    )
    return apply_dev_split(dataset, options.dev_fraction, options.seed)


def _translation_figures(rouge: RougeResult) -> dict[int, tuple[float, float, int, bool]]:
    """Per translation in a unit of ``corpus.agreement.rouge_agreement``: its mean ROUGE-L F against the
    others of the unit (what the unit's best is ranked by), the unit's mean F and size, and whether it
    is the unit's best."""
    in_unit, unit, means = rouge.translation_mean_f()
    size = rouge.unit_size[unit]
    best = np.zeros(len(rouge.translations), dtype=bool)
    best[rouge.unit_best] = True
    return {
        rouge.translations[i].pk: (vs_others, phase_mean, k, is_best)
        for i, vs_others, phase_mean, k, is_best in zip(
            in_unit.tolist(), means.tolist(), rouge.unit_mean[unit].tolist(),
            size.tolist(), best[in_unit].tolist(),
        )
    }


_TRANSLATOR_KEYS = frozenset({"translator", "translator_a", "translator_b", "best_translator"})
_ANNOTATOR_KEYS = frozenset({"annotator", "annotator_a", "annotator_b"})


def _renamed(value, translators: dict[str, str], annotators: dict[str, str]):
    """The report with people's names replaced by their pseudonyms (names not in a map stay as they are)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in _TRANSLATOR_KEYS and isinstance(item, str):
                out[key] = translators.get(item, item)
            elif key in _ANNOTATOR_KEYS and isinstance(item, str):
                out[key] = annotators.get(item, item)
            else:
                out[key] = _renamed(item, translators, annotators)
        return out
    if isinstance(value, list):
        return [_renamed(item, translators, annotators) for item in value]
    return value


def _selection_text(options: ExportOptions, final_policy: str, per_item: int) -> str:
    gold = (f"Gold labels are the latest decision in force for the tagging item: the lead's (`accepted` or `edited`) "
            f"or automatic, the tags of the {per_item} submitted annotation(s) when they all agree (`agreed`), or, "
            "in a project with one annotator per item, that annotator's tags (`single`). Automatic gold that the "
            "annotators' later edits no longer support is withdrawn, and such an item counts as unresolved.")
    if options.agreed_only:
        gold += " Only items whose labels were agreed without the lead editing or choosing are included."
    if options.all_translations:
        return ("Every submitted translation of every sentence (all translators, both phases) that has gold labels, "
                "for augmentation research; `is_final` marks the one chosen as final. " + gold)
    return (f"One translation per source sentence: the lead's latest final choice, which the lead may override. The "
            f"automatic choice (`corpus.final_choice`) takes in each phase the translation with the highest mean "
            f"ROUGE-L against the others, ties going to more aspects kept, then the earlier submission; then, under "
            f"the project policy `{final_policy}`: {POLICIES.get(final_policy, 'see the project settings.')} "
            f"Sentences the majority marked untranslatable (unless a lead chose one of their translations: an automatic "
            f"pick never overrules the majority), that the lead left out, or that are still unresolved are "
            f"not exported and are counted below. " + gold)



def _source_rows(conn, project_id: int):
    """The project's source sentences (export order), the sub-query of their ids, their aspect terms and
    categories in position order, and each aspect term's position by id: one reader for both exports."""
    sentences = conn.execute(
        select(SourceSentence.id, SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id,
               SourceSentence.text)
        .where(SourceSentence.project_id == project_id)
        .order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal, SourceSentence.id)
    ).all()
    in_project = select(SourceSentence.id).where(SourceSentence.project_id == project_id)

    aspects: dict[int, list[EnglishAspect]] = defaultdict(list)
    aspect_position: dict[int, int] = {}
    for row in conn.execute(
        select(AspectTerm.id, AspectTerm.sentence_id, AspectTerm.position, AspectTerm.term, AspectTerm.start,
               AspectTerm.end, AspectTerm.polarity)
        .where(AspectTerm.sentence_id.in_(in_project)).order_by(AspectTerm.sentence_id, AspectTerm.position)
    ).all():
        aspects[row.sentence_id].append(EnglishAspect(row.term, row.start, row.end, row.polarity, row.position))
        aspect_position[row.id] = row.position

    categories: dict[int, list[tuple[str, str | None]]] = defaultdict(list)
    for row in conn.execute(
        select(AspectCategory.sentence_id, AspectCategory.category, AspectCategory.polarity)
        .where(AspectCategory.sentence_id.in_(in_project))
        .order_by(AspectCategory.sentence_id, AspectCategory.position)
    ).all():
        categories[row.sentence_id].append((row.category, row.polarity))
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
        exported_at=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        options_text="source only: every imported SemEval sentence, translated or not",
        tokenizer=TOKENIZER_SIGNATURE,
    )
    return dataset


def pick_final_translations(engine: Engine, project_id: int | None = None) -> tuple[int, str]:
    """Record the automatic final pick for every sentence the lead has not decided, exactly as the Final
    translations page does (``db.final_choice.record_auto_choices``: the rule of ``corpus.final_choice``,
    one row and one revision per pick; a lead's decision is never replaced). Returns (picks recorded,
    the project's policy)."""
    from db.final_choice import project_policy, record_auto_choices

    with Session(reader(engine)) as session:
        project_id = project_id or default_project_id(session)
    policy = project_policy(engine, project_id)
    return record_auto_choices(engine, project_id), policy


def export_files(
    engine: Engine, options: ExportOptions | None = None, formats: Sequence[str] | None = None,
    format_options: FormatOptions | None = None,
) -> tuple[dict[str, str], ExportDataset]:
    """The whole export in memory: ``{relative path: text}`` and the dataset it came from."""
    dataset = load_export(engine, options)
    return build_files(dataset, formats, format_options), dataset
