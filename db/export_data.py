"""Load the corpus for export as plain records (export = load -> formatters -> writer).

Per source sentence: its final translation (the latest FinalChoice) with gold BIO labels, the
latest Adjudication of its tagging item, or, without one, the submitted annotations when they all
agree. Sentences that the majority found untranslatable, that the lead left out, or that are still
unresolved are not exported and are listed with their reason in ``ExportDataset.left_out``; nothing
is dropped silently. Tables are read in bulk with plain column selects so a paper-scale corpus
loads in well under a second.
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

from corpus.bio import tags_agree, token_disagreement
from corpus.export import FormatOptions, build_files
from corpus.export.lid import SOURCE as LID_SOURCE
from corpus.export.metrics import cohen_kappa, compact_tags, fleiss_from_counts, tag_count_table
from corpus.export.records import (
    Alignment,
    EnglishAspect,
    ExportDataset,
    ExportSentence,
    LeftOut,
    RecordProblem,
    build_sentence,
)
from corpus.export.splits import apply_dev_split
from corpus.tokens import TOKENIZER_SIGNATURE, words
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

try:  # the project's ROUGE-L (metrics issue): values equal rouge-score's
    from corpus.rouge import f_from_lcs, lcs_with_masks, word_lists, word_masks
except ImportError:  # pragma: no cover - the export's stand-in gives the same values
    from corpus.export.metrics import f_from_lcs, lcs_with_masks, word_masks

    def word_lists(texts):
        return [words(t or "") for t in texts]


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
            parts.append("translators pseudonymized")
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
    options = options or ExportOptions()
    with Session(engine) as session:
        project_id = options.project_id or default_project_id(session)
        project = session.get(Project, project_id)
        per_item = project.annotators_per_item
        settings = dict(project.settings or {})
        final_policy = project.final_policy
        project_name = project.name

        sentences = session.execute(
            select(SourceSentence.id, SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id,
                   SourceSentence.text)
            .where(SourceSentence.project_id == project_id)
            .order_by(SourceSentence.domain, SourceSentence.split, SourceSentence.ordinal, SourceSentence.id)
        ).all()
        in_project = select(SourceSentence.id).where(SourceSentence.project_id == project_id)

        aspects: dict[int, list[EnglishAspect]] = defaultdict(list)
        aspect_position: dict[int, int] = {}
        for row in session.execute(
            select(AspectTerm.id, AspectTerm.sentence_id, AspectTerm.position, AspectTerm.term, AspectTerm.start,
                   AspectTerm.end, AspectTerm.polarity)
            .where(AspectTerm.sentence_id.in_(in_project)).order_by(AspectTerm.sentence_id, AspectTerm.position)
        ):
            aspects[row.sentence_id].append(EnglishAspect(row.term, row.start, row.end, row.polarity, row.position))
            aspect_position[row.id] = row.position

        categories: dict[int, list[tuple[str, str | None]]] = defaultdict(list)
        for row in session.execute(
            select(AspectCategory.sentence_id, AspectCategory.category, AspectCategory.polarity)
            .where(AspectCategory.sentence_id.in_(in_project))
            .order_by(AspectCategory.sentence_id, AspectCategory.position)
        ):
            categories[row.sentence_id].append((row.category, row.polarity))

        translations: dict[int, list[_Translation]] = defaultdict(list)
        by_id: dict[int, _Translation] = {}
        for row in session.execute(
            select(Translation.id, Translation.sentence_id, Translation.phase, Translation.translator_id,
                   User.username, Translation.text, Translation.untranslatable, Translation.status,
                   Translation.guidelines_version, Translation.submitted_at)
            .join(User, User.id == Translation.translator_id)
            .where(Translation.sentence_id.in_(in_project))
            .order_by(Translation.sentence_id, Translation.phase, User.username)
        ):
            t = _Translation(*row)
            translations[t.sentence].append(t)
            by_id[t.id] = t
        in_translations = select(Translation.id).where(Translation.sentence_id.in_(in_project))

        finals: dict[int, tuple[int | None, str | None]] = {}
        latest_fc = (select(func.max(FinalChoice.id)).where(FinalChoice.sentence_id.in_(in_project))
                     .group_by(FinalChoice.sentence_id))
        for row in session.execute(
            select(FinalChoice.sentence_id, FinalChoice.translation_id, FinalChoice.note)
            .where(FinalChoice.id.in_(latest_fc))
        ):
            finals[row.sentence_id] = (row.translation_id, row.note)

        alignments: dict[int, list[Alignment]] = defaultdict(list)
        for row in session.execute(
            select(AspectAlignment.translation_id, AspectAlignment.aspect_term_id, AspectAlignment.start,
                   AspectAlignment.end)
            .where(AspectAlignment.translation_id.in_(in_translations), AspectAlignment.dropped.is_(False))
        ):
            if row.aspect_term_id in aspect_position:
                alignments[row.translation_id].append(Alignment(aspect_position[row.aspect_term_id], row.start, row.end))

        item_of = dict(session.execute(
            select(TaggingItem.translation_id, TaggingItem.id).where(TaggingItem.translation_id.in_(in_translations))
        ).all())
        in_items = select(TaggingItem.id).where(TaggingItem.translation_id.in_(in_translations))
        # Raw JSON text: a paper-scale project has ~100k annotations, and decoding each one through the
        # JSON type is most of the load time; Table 2 only needs them as tag strings.
        raw_annotations: dict[int, list[str]] = defaultdict(list)
        for item_id, raw in session.execute(
            select(Annotation.item_id, cast(Annotation.tags, Text))
            .where(Annotation.item_id.in_(in_items), Annotation.status == "submitted")
            .order_by(Annotation.item_id, Annotation.annotator_id)
        ):
            raw_annotations[item_id].append(raw)

        adjudications: dict[int, tuple[list[str], str]] = {}
        latest_adj = (select(func.max(Adjudication.id)).where(Adjudication.item_id.in_(in_items))
                      .group_by(Adjudication.item_id))
        for row in session.execute(
            select(Adjudication.item_id, Adjudication.tags, Adjudication.source).where(Adjudication.id.in_(latest_adj))
        ):
            adjudications[row.item_id] = (list(row.tags), row.source)

        if options.all_translations:
            wanted_items = in_items
        else:
            final_ids = select(FinalChoice.translation_id).where(FinalChoice.id.in_(latest_fc))
            wanted_items = select(TaggingItem.id).where(TaggingItem.translation_id.in_(final_ids))
        frozen_tokens: dict[int, list[str]] = {
            row.translation_id: list(row.tokens)
            for row in session.execute(
                select(TaggingItem.translation_id, TaggingItem.tokens).where(TaggingItem.id.in_(wanted_items))
            )
        }

        proper_nouns = sorted({
            form
            for english, hindi in session.execute(
                select(GlossaryTerm.english, GlossaryTerm.hindi)
                .where(GlossaryTerm.project_id == project_id, GlossaryTerm.rule == "keep-roman")
            )
            for form in (english, hindi) if form
        })
        user_order = [u for (u,) in session.execute(select(User.username).order_by(User.id))]

    pseudonyms = {}
    if options.pseudonymize:
        translators = sorted({t.username for ts in translations.values() for t in ts}, key=user_order.index)
        pseudonyms = {name: f"translator-{i:02d}" for i, name in enumerate(translators, 1)}

    def usable(t: _Translation) -> bool:
        return t.status == "submitted" and not t.untranslatable and bool(t.text and t.text.strip())

    rouge = _rouge_units(sentences, translations, usable)

    def annotations_of(item_id: int) -> list[list[str]]:
        out = []
        for raw in raw_annotations.get(item_id, []):
            compact = compact_tags(raw)
            out.append(list(compact) if compact is not None else list(json.loads(raw)))
        return out

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
            tags, source = anns[0], "agreed"
        else:
            return None, "annotators disagree", f"{len(anns)} annotations differ; no adjudication"
        if options.agreed_only and source != "agreed":
            return None, "not agreed", f"gold labels come from adjudication ({source})"
        return tags, source, anns

    def agreement(t: _Translation, anns: list[list[str]]) -> dict:
        unit = rouge["units"].get((t.sentence, t.phase))
        figures = {
            "rouge_l_vs_others": rouge["vs_others"].get(t.id),
            "rouge_l_phase_mean": unit["mean_f"] if unit else None,
            "translations_in_phase": unit["translations"] if unit else 1,
            "annotators": len(anns),
            "token_agreement": None,
            "cohen_kappa": None,
        }
        if len(anns) >= 2 and len({len(a) for a in anns}) == 1:
            figures["token_agreement"] = 1.0 - token_disagreement(anns)
            kappas = [k for a, b in combinations(anns, 2) if (k := cohen_kappa(a, b)) is not None]
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
                if t.status != "submitted":
                    left_out.append(LeftOut(s.domain, s.split, s.sentence_id, "translation not submitted", "", t.id))
                elif not usable(t):
                    left_out.append(LeftOut(s.domain, s.split, s.sentence_id, "translation untranslatable", "", t.id))
                else:
                    translator = pseudonyms.get(t.username, t.username)
                    export_one(s, t, f"{s.domain}/{s.split}/{s.sentence_id}/{t.phase}/{translator}", t.id == final_id)
            continue
        submitted = [t for t in translations.get(s.id, []) if t.status == "submitted"]
        majority_untranslatable = sum(t.untranslatable for t in submitted) * 2 > len(submitted) > 0
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

    tag_groups: dict[str, list[list[str]]] = {"aware": [], "blind": []}
    for tid, item_id in item_of.items():
        t = by_id.get(tid)
        raws = raw_annotations.get(item_id, [])
        if t is not None and len(raws) == per_item:
            compact = [compact_tags(r) for r in raws]
            if all(c is not None for c in compact):
                tag_groups[t.phase].append(compact)

    dataset = ExportDataset(records, left_out)
    dataset.meta.update(
        title=settings.get("dataset_title") or f"Hindi aspect extraction corpus ({project_name})",
        license=settings.get("license"),
        exported_at=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        options_text=options.describe(),
        tokenizer=TOKENIZER_SIGNATURE,
        lid_source=LID_SOURCE,
        tagging_guidelines=settings.get("tagging_guidelines_version") or settings.get("guidelines_version"),
        selection=_selection_text(options, final_policy, per_item),
        table2=_table2(rouge, tag_groups, per_item),
    )
    return apply_dev_split(dataset, options.dev_fraction, options.seed)


def _rouge_units(sentences, translations, usable) -> dict:
    """Pairwise ROUGE-L per (sentence, phase) with >= 2 usable translations: each unit's mean F, each
    translation's mean F against the others, the best translation (ties: earlier submission)."""
    groups: dict[tuple[int, str], list[_Translation]] = defaultdict(list)
    for sentence_pk, ts in translations.items():
        for t in ts:
            if usable(t):
                groups[(sentence_pk, t.phase)].append(t)
    texts = [t for group in groups.values() if len(group) >= 2 for t in group]
    word_of = dict(zip((t.id for t in texts), word_lists(t.text for t in texts)))
    src_words = dict(zip((s.id for s in sentences), (len(w) for w in word_lists(s.text for s in sentences))))
    units, vs_others, excluded = {}, {}, 0
    for (sentence_pk, phase), group in groups.items():
        if len(group) < 2:
            excluded += 1
            continue
        per: dict[int, list[float]] = {t.id: [] for t in group}
        masks = {t.id: word_masks(word_of[t.id]) for t in group}
        pair_fs = []
        for a, b in combinations(group, 2):
            wa, wb = word_of[a.id], word_of[b.id]
            f = f_from_lcs(lcs_with_masks(masks[a.id], len(wa), wb), len(wa), len(wb))
            pair_fs.append(f)
            per[a.id].append(f)
            per[b.id].append(f)
        means = {tid: statistics.fmean(v) for tid, v in per.items()}
        vs_others.update(means)
        best = max(group, key=lambda t: (means[t.id], -(t.submitted_at.timestamp() if t.submitted_at else float("inf"))))
        src = src_words.get(sentence_pk, 0)
        units[(sentence_pk, phase)] = {
            "phase": phase, "translations": len(group), "mean_f": statistics.fmean(pair_fs),
            "weight": src + statistics.fmean(len(word_of[t.id]) for t in group),
            "best_mean_f": means[best.id], "best_weight": src + len(word_of[best.id]),
        }
    return {"units": units, "vs_others": vs_others, "excluded": excluded}


def _weighted(pairs: list[tuple[float, float]]) -> float | None:
    if not pairs:
        return None
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total > 0 else statistics.fmean(v for v, _ in pairs)


def _table2(rouge: dict, tag_groups: dict[str, list[list[str]]], per_item: int) -> dict:
    """Seed paper Table 2 over the whole project, with the definitions of ``metrics --json``."""
    units = list(rouge["units"].values())
    tables = {p: tag_count_table(tag_groups[p], per_item)[0] for p in ("aware", "blind")}
    kappa = {p: fleiss_from_counts(t) for p, t in tables.items()}
    kappa["overall"] = fleiss_from_counts(np.concatenate([tables["aware"], tables["blind"]]))
    return {
        "rouge_aware": _weighted([(u["mean_f"], u["weight"]) for u in units if u["phase"] == "aware"]),
        "rouge_blind": _weighted([(u["mean_f"], u["weight"]) for u in units if u["phase"] == "blind"]),
        "rouge_overall": _weighted([(u["mean_f"], u["weight"]) for u in units]),
        "rouge_best": _weighted([(u["best_mean_f"], u["best_weight"]) for u in units]),
        "kappa_aware": kappa["aware"],
        "kappa_blind": kappa["blind"],
        "kappa_overall": kappa["overall"],
        "note": (
            "Over the whole project, with the definitions of `python -m corpus metrics --json`: ROUGE-L F (beta = 1) "
            f"over canonical words ({TOKENIZER_SIGNATURE}), averaged over (sentence, phase) units with >= 2 submitted "
            f"translations ({rouge['excluded']} units with a single translation excluded), weighted by source words + "
            "mean words of the unit's translations (chosen translation: the unit's highest mean ROUGE-L, weighted by "
            "source words + its words); Fleiss' kappa over the B/I/O tags of every token of every translation tagged "
            f"by exactly {per_item} annotators."
        ),
    }


def _selection_text(options: ExportOptions, final_policy: str, per_item: int) -> str:
    gold = (f"Gold labels are the lead's latest adjudication of the tagging item (`agreed`, `accepted` or `edited`), "
            f"or, where there is none, the tags of the {per_item} submitted annotation(s) when they all agree (`agreed`).")
    if options.agreed_only:
        gold += " Only items whose labels were agreed without the lead editing or choosing are included."
    if options.all_translations:
        return ("Every submitted translation of every sentence (all translators, both phases) that has gold labels, "
                "for augmentation research; `is_final` marks the one chosen as final. " + gold)
    return (f"One translation per source sentence: the lead's latest final choice (automatic policy "
            f"`{final_policy}`: the highest-ROUGE-L translation of each phase, then aware vs blind; the lead may "
            f"override). Sentences the majority marked untranslatable, that the lead left out, or that are still "
            f"unresolved are not exported and are counted below. " + gold)


def export_files(
    engine: Engine, options: ExportOptions | None = None, formats: Sequence[str] | None = None,
    format_options: FormatOptions | None = None,
) -> tuple[dict[str, str], ExportDataset]:
    """The whole export in memory: ``{relative path: text}`` and the dataset it came from."""
    dataset = load_export(engine, options)
    return build_files(dataset, formats, format_options), dataset
