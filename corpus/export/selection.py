"""Which sentences the export ships, with which gold labels, and why every other one is left out.

A pure function over plain rows (``ExportRows``, loaded by ``db.export_data`` in one read transaction):
per source sentence its final translation (the latest final choice) with the gold in force of its
tagging item (``corpus.gold.in_force``, read through ``db.gold``: the one rule the adjudication, the
statistics and the metrics use too). Sentences that the majority found untranslatable, that the lead
left out, or that are still unresolved are listed with their reason in ``left_out``; nothing is
dropped silently.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from corpus.export.records import (
    Alignment,
    EnglishAspect,
    ExportSentence,
    LeftOut,
    RecordProblem,
    build_sentence,
    checked_hindi,
)
from corpus.final_choice import POLICIES
from corpus.gold import AGREED, SINGLE, Gold, ItemGold
from corpus.tokens import normalize
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


class SourceRow(NamedTuple):
    id: int
    domain: str
    split: str
    sentence_id: str
    text: str


#: The submitted status as a plain string: a translation's status is compared with it ~50,000 times an export,
#: and an enum member's look-up and comparison cost several times a string's.
SUBMITTED: str = Status.SUBMITTED.value


class TranslationRow(NamedTuple):
    """A translation as the selection reads it (NamedTuple: a paper-scale project reads ~48,000 of them,
    several times cheaper to build than a dataclass)."""

    id: int
    sentence: int
    phase: str
    translator_id: int
    username: str
    text: str | None
    untranslatable: bool
    status: str
    guidelines_version: str | None

    @property
    def usable(self) -> bool:
        return self.status == SUBMITTED and not self.untranslatable and bool(self.text and self.text.strip())


@dataclass
class ExportRows:
    """What the export reads of a project, as plain rows keyed by row id."""

    sentences: list[SourceRow]  # in export order
    annotators_per_item: int = 2
    aspects: dict[int, list[EnglishAspect]] = field(default_factory=dict)  # sentence -> its SemEval aspects
    categories: dict[int, list[tuple[str, str | None]]] = field(default_factory=dict)  # sentence -> categories
    translations: dict[int, list[TranslationRow]] = field(default_factory=dict)  # sentence -> by phase, translator
    finals: dict[int, tuple[int | None, str | None]] = field(default_factory=dict)  # sentence -> (final, note)
    lead_decided: set[int] = field(default_factory=set)  # sentences whose final choice a lead made
    alignments: dict[int, list[Alignment]] = field(default_factory=dict)  # translation -> aspect map links
    gold: dict[int, ItemGold] = field(default_factory=dict)  # translation -> its tagging item's gold in force
    frozen_tokens: dict[int, list[str]] = field(default_factory=dict)  # translation -> tagged tokens
    proper_nouns: list[str] = field(default_factory=list)  # the glossary's keep-roman forms


class NoGold(NamedTuple):
    reason: str
    detail: str = ""


def gold_for_export(item: ItemGold | None, annotators_per_item: int, agreed_only: bool = False) -> Gold | NoGold:
    """The gold labels a translation is exported with, or why it has none the export can use."""
    if item is None:
        return NoGold("not tagged")
    if item.gold is None:
        submitted = len(item.versions)
        if item.awaited or submitted < annotators_per_item:
            needed = max(annotators_per_item, submitted + item.awaited)
            return NoGold("tagging incomplete", f"{submitted} of {needed} annotations submitted")
        return NoGold("annotators disagree", f"{submitted} annotations differ; no adjudication")
    source = item.gold.source
    if agreed_only and source != AGREED:
        why = "one annotator only (single)" if source == SINGLE else f"adjudication ({source})"
        return NoGold("not agreed", f"gold labels come from {why}")
    return item.gold


def select_records(
    rows: ExportRows, options: ExportOptions, agreement: Callable[[int, list], dict],
    translators: dict[str, str] | None = None,
) -> tuple[list[ExportSentence], list[LeftOut]]:
    """The exported records and the left-out list, in export order. ``agreement(translation id, versions)``
    gives a record's agreement figures (``corpus.export.figures.RecordFigures``); ``translators``: pseudonyms
    by username."""
    translators = translators or {}
    by_id = {t.id: t for ts in rows.translations.values() for t in ts}
    records: list[ExportSentence] = []
    left_out: list[LeftOut] = []
    for s in rows.sentences:
        candidates = (_every_translation(rows, s, translators) if options.all_translations
                      else _final_translation(rows, s, by_id))
        for candidate in candidates:
            if isinstance(candidate, LeftOut):
                left_out.append(candidate)
                continue
            out = _record(rows, options, agreement, translators, s, *candidate)
            (records if isinstance(out, ExportSentence) else left_out).append(out)
    return records, left_out


def select_left_out(rows: ExportRows, options: ExportOptions) -> list[LeftOut]:
    """``select_records``' left-out list (same order, same reasons) without making the records: a candidate
    with gold is left out only when its Hindi fails ``checked_hindi``, which is all that is checked of it
    (no English side, language ids or figures). For the dashboard's counts."""
    by_id = {t.id: t for ts in rows.translations.values() for t in ts}
    left_out: list[LeftOut] = []
    for s in rows.sentences:
        candidates = (_every_translation(rows, s, {}) if options.all_translations
                      else _final_translation(rows, s, by_id))
        for candidate in candidates:
            if isinstance(candidate, LeftOut):
                left_out.append(candidate)
                continue
            t = candidate[0]
            gold = gold_for_export(rows.gold.get(t.id), rows.annotators_per_item, options.agreed_only)
            if isinstance(gold, NoGold):
                left_out.append(LeftOut(s.domain, s.split, s.sentence_id, gold.reason, gold.detail, t.id))
                continue
            frozen = rows.frozen_tokens.get(t.id, [])
            try:
                problem = _hindi_problem(t.text, tuple(frozen), tuple(gold.tags))
            except TypeError:  # a stored tag that is no string (unhashable): checked as it is
                problem = _hindi_problem.__wrapped__(t.text, frozen, gold.tags)
            if problem is not None:
                left_out.append(LeftOut(s.domain, s.split, s.sentence_id, *problem, t.id))
    return left_out


@lru_cache(maxsize=1 << 16)
def _hindi_problem(text: str, frozen_tokens: Sequence[str], tags: Sequence[str]) -> tuple[str, str] | None:
    """``checked_hindi``'s reason and detail, or None: remembered, since the dashboard counts again after
    each save and all but the saved translation are as they were."""
    try:
        checked_hindi(text, frozen_tokens, tags, offsets=False)
    except RecordProblem as problem:
        return problem.reason, problem.detail
    return None


#: Left-out reasons of sentences nobody has decided on yet: no submitted translation, or translations that wait
#: for the final choice (the Export page and the card count them apart from those left out for a reason).
NOT_TRANSLATED_YET = "not translated yet"
AWAITING_DECISION = "no final translation"
UNRESOLVED = (NOT_TRANSLATED_YET, AWAITING_DECISION)


class LeftOutSummary(NamedTuple):
    """The left-out sentences as the Export page and the dashboard count them: not translated yet (the
    Assignments page resolves them), awaiting a final decision (Final translations) and left out for a
    reason (untranslatable, no gold, ...: listed by reason)."""

    not_translated: int
    awaiting_decision: int
    for_a_reason: int


def left_out_summary(counts: Mapping[str, int]) -> LeftOutSummary:
    """``ExportDataset.left_out_counts()`` (reason -> count) in the three groups."""
    not_translated, awaiting = counts.get(NOT_TRANSLATED_YET, 0), counts.get(AWAITING_DECISION, 0)
    return LeftOutSummary(not_translated, awaiting, sum(counts.values()) - not_translated - awaiting)

Candidate = tuple[TranslationRow, str, bool]  # a translation to export, its record uid, whether it is final


def _every_translation(rows: ExportRows, s: SourceRow, translators: dict[str, str]) -> Iterator[Candidate | LeftOut]:
    final_id, _ = rows.finals.get(s.id, (None, None))
    ts = rows.translations.get(s.id, [])
    if not ts:
        yield LeftOut(s.domain, s.split, s.sentence_id, "not translated")
    for t in ts:
        if t.status != SUBMITTED:
            yield LeftOut(s.domain, s.split, s.sentence_id, "translation not submitted", "", t.id)
        elif not t.usable:
            yield LeftOut(s.domain, s.split, s.sentence_id, "translation untranslatable", "", t.id)
        else:
            translator = translators.get(t.username, t.username)
            yield t, f"{s.domain}/{s.split}/{s.sentence_id}/{t.phase}/{translator}", t.id == final_id


def _final_translation(rows: ExportRows, s: SourceRow, by_id: dict[int, TranslationRow]) -> Iterator[Candidate | LeftOut]:
    final_id, note = rows.finals.get(s.id, (None, None))
    translations = rows.translations.get(s.id, ())
    submitted = untranslatable = 0  # counted in one pass: ~6,000 sentences each time the dashboard counts
    for t in translations:
        if t.status == SUBMITTED:
            submitted += 1
            untranslatable += t.untranslatable
    majority_untranslatable = untranslatable * 2 > submitted > 0
    if majority_untranslatable and s.id not in rows.lead_decided:
        final_id = None  # an automatic pick never overrules the majority; only a lead's decision does
    if final_id is None:
        if majority_untranslatable:
            reason, detail = "untranslatable by majority", f"{untranslatable} of {submitted} translators"
        elif s.id in rows.finals:
            reason, detail = "left out by lead", note or ""
        elif not submitted:
            reason, detail = NOT_TRANSLATED_YET, f"{len(translations)} draft(s)"
        else:
            reason, detail = AWAITING_DECISION, f"{submitted} submitted translations"
        yield LeftOut(s.domain, s.split, s.sentence_id, reason, detail)
        return
    t = by_id.get(final_id)
    if t is None or not t.usable:
        yield LeftOut(s.domain, s.split, s.sentence_id, "final translation has no text", "", final_id)
        return
    yield t, f"{s.domain}/{s.split}/{s.sentence_id}", True


def _record(
    rows: ExportRows, options: ExportOptions, agreement: Callable[[int, list], dict], translators: dict[str, str],
    s: SourceRow, t: TranslationRow, uid: str, is_final: bool,
) -> ExportSentence | LeftOut:
    item = rows.gold.get(t.id)
    gold = gold_for_export(item, rows.annotators_per_item, options.agreed_only)
    if isinstance(gold, NoGold):
        return LeftOut(s.domain, s.split, s.sentence_id, gold.reason, gold.detail, t.id)
    try:
        return build_sentence(
            uid=uid, sentence_id=s.sentence_id, domain=s.domain, split=s.split, en_text=s.text,
            en_aspects=rows.aspects.get(s.id, []), hi_text=t.text, frozen_tokens=rows.frozen_tokens.get(t.id, []),
            tags=gold.tags, phase=t.phase, translator=translators.get(t.username, t.username),
            alignments=rows.alignments.get(t.id, []), term_links=_MappedTerms(rows, s.id, t.id),
            translation_id=t.id, is_final=is_final,
            gold_source=gold.source, categories=rows.categories.get(s.id, []),
            agreement=agreement(t.id, item.versions), guidelines_version=t.guidelines_version,
            proper_nouns=rows.proper_nouns,
        )
    except RecordProblem as problem:
        return LeftOut(s.domain, s.split, s.sentence_id, problem.reason, problem.detail, t.id)


class _MappedTerms:
    """``_mapped_terms``, computed on the first look-up only (most spans are linked by their own map)."""

    def __init__(self, rows: ExportRows, sentence_id: int, translation_id: int):
        self._args = (rows, sentence_id, translation_id)
        self._terms: dict[str, int] | None = None

    def get(self, term: str) -> int | None:
        if self._terms is None:
            self._terms = _mapped_terms(*self._args)
        return self._terms.get(term)


def _mapped_terms(rows: ExportRows, sentence_id: int, translation_id: int) -> dict[str, int]:
    """The Hindi words the aspect maps of the sentence's other translations give to exactly one English aspect
    (NFC): a span of this translation with the same words renders that aspect, although its own translation
    (an aspect-blind one) has no map. Words mapped to two different aspects link neither."""
    positions: dict[str, set[int]] = {}
    for other in rows.translations.get(sentence_id, []):
        if other.id == translation_id or not other.text:
            continue
        for link in rows.alignments.get(other.id, []):
            term = normalize(other.text[link.start:link.end]).strip()
            if term:
                positions.setdefault(term, set()).add(link.position)
    return {term: next(iter(p)) for term, p in positions.items() if len(p) == 1}


def selection_text(options: ExportOptions, final_policy: str, per_item: int) -> str:
    """How the records were selected, for the dataset card."""
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
