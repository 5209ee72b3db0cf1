"""Translation agreement (seed paper Table 2, ROUGE-L rows) and aspect coverage, over plain data.

The inputs are what the database layer loads: submitted translations and submitted tag sets only.
A *unit* is one sentence in one phase; its translations are compared pairwise with ROUGE-L F over
canonical words, and the translation with the highest mean F against the others is its *best*.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple
import math
from itertools import repeat
from operator import attrgetter, is_not, itemgetter
from datetime import datetime, timezone

import numpy as np

from corpus.kappa import TagTable, span_count
from corpus.records import PHASES
from corpus.vocabulary import Phase
from corpus.rouge import grouped_pair_f, word_counts

WEIGHTING = "weight = source words + mean words of the unit's translations (best: + words of the best translation)"
ASPECTS_KEPT = (
    "aspects kept by a translation = aspect spans in its tags (the lead's adjudication, else the most any "
    "annotator marked), else for aspect-aware translations the source aspects its aspect map keeps (not dropped)"
)
COVERAGE_DEFINITION = (
    "a sentence lost aspects when the most aspects kept by any of its aspect-blind translations is fewer than "
    "the most kept by any of its aspect-aware translations; " + ASPECTS_KEPT
)


class SentenceInfo(NamedTuple):
    """A source sentence (NamedTuple: immutable and several times cheaper to build than a frozen dataclass)."""

    pk: int
    sentence_id: str
    domain: str
    split: str
    text: str
    n_aspects: int = 0
    ordinal: int = 0

    @property
    def label(self) -> str:
        return f"{self.domain}/{self.split}/{self.sentence_id}"


class TranslationInfo(NamedTuple):
    """A submitted translation; ``aspects_mapped`` is None when it has no aspect map (aspect-blind)."""

    pk: int
    sentence_pk: int
    phase: str
    translator: str
    text: str | None
    untranslatable: bool = False
    submitted_at: datetime | None = None
    aspects_mapped: int | None = None

    @property
    def translated(self) -> bool:
        return not self.untranslatable and self.text is not None


class TagSet(NamedTuple):
    """One annotator's submitted tags of one translation, one letter (B, I, O) per frozen token."""

    translation_pk: int
    annotator: str
    tags: str
    submitted_at: datetime | None = None


@dataclass
class MetricsInput:
    sentences: list[SentenceInfo]
    translations: list[TranslationInfo]
    tag_sets: list[TagSet] = field(default_factory=list)
    adjudicated: dict[int, str] = field(default_factory=dict)  # translation pk -> latest adjudicated tags
    annotators_per_item: int = 2
    invalid_tag_sets: int = 0  # loaded tag sets left out because a tag was not B, I or O


def columns(records: list[tuple], *fields: int) -> list[list]:
    """Some fields of many records, one list per field. (``zip(*records)`` would make an iterator
    per record: hundreds of thousands of short-lived objects that wake the cyclic collector.)"""
    return [list(map(itemgetter(i), records)) for i in fields]


class TranslationColumns:
    """The translations' fields as columns, taken once per computation: ROUGE-L, the aspects kept, coverage and
    the tag tables each read them (``corpus.metrics.base.FigureInputs`` builds one and hands it round)."""

    def __init__(self, translations: list[TranslationInfo]) -> None:
        (self.pk, self.sentence_pk, self.phase, self.translator, self.text, self.untranslatable,
         self.mapped) = columns(translations, 0, 1, 2, 3, 4, 5, 7)
        #: Translated: not untranslatable and a text (``TranslationInfo.translated``), as a mask.
        self.translated = ~np.array(self.untranslatable, dtype=bool)
        if None in self.text:
            self.translated &= np.fromiter(map(is_not, self.text, repeat(None)), dtype=bool, count=len(self.text))


def filter_input(data: MetricsInput, domains: Iterable[str] | None = None, splits: Iterable[str] | None = None) -> MetricsInput:
    """The same input restricted to some domains and splits (the dashboard's filters)."""
    if domains is None and splits is None:
        return data
    domains = set(domains) if domains is not None else None
    splits = set(splits) if splits is not None else None
    sentences = [
        s for s in data.sentences
        if (domains is None or s.domain in domains) and (splits is None or s.split in splits)
    ]
    keep = {s.pk for s in sentences}
    if len(sentences) == len(data.sentences) and keep.issuperset(map(itemgetter(1), data.translations)):
        kept_t = set(map(itemgetter(0), data.translations))
        if kept_t.issuperset(map(itemgetter(0), data.tag_sets)) and kept_t.issuperset(data.adjudicated):
            return data  # the filters keep everything
    return restricted(data, sentences)


def restricted(
    data: MetricsInput, sentences: list[SentenceInfo], phase: str | None = None
) -> MetricsInput:
    """The input over ``sentences`` only (and one ``phase``, None: both), with the tag sets and gold of
    the translations kept: the one narrowing behind the dashboard's filters and its chart selection."""
    keep = {s.pk for s in sentences}
    translations = [t for t in data.translations if t.sentence_pk in keep and (phase is None or t.phase == phase)]
    kept = {t.pk for t in translations}
    return MetricsInput(
        sentences,
        translations,
        [a for a in data.tag_sets if a.translation_pk in kept],
        {pk: tags for pk, tags in data.adjudicated.items() if pk in kept},
        data.annotators_per_item,
        data.invalid_tag_sets,
    )


_EPOCH = datetime(1970, 1, 1)


def seconds(moment: datetime | None) -> float:
    """A naive-UTC timestamp as seconds (NaN when unknown), independent of the machine's time zone."""
    if moment is None:
        return math.nan
    if moment.tzinfo is not None:
        moment = moment.astimezone(timezone.utc).replace(tzinfo=None)
    return (moment - _EPOCH).total_seconds()


def tag_table(data: MetricsInput, cols: TranslationColumns | None = None) -> tuple[TagTable, list[TagSet]]:
    """The submitted tag sets of this input's translations, as arrays grouped by translation, and
    the tag sets themselves in the order the table's ``source`` indexes."""
    known = set(map(itemgetter(0), data.translations) if cols is None else cols.pk)
    chosen = data.tag_sets
    translation, annotator, tags = columns(chosen, 0, 1, 2)
    if not known.issuperset(translation):
        chosen = [ts for ts in chosen if ts.translation_pk in known]
        translation, annotator, tags = columns(chosen, 0, 1, 2)
    return TagTable.from_columns(translation, annotator, tags), list(chosen)


def aspects_kept(
    data: MetricsInput, table: TagTable | None = None, cols: TranslationColumns | None = None,
) -> dict[int, int | None]:
    """Aspects kept per translation pk (see ``ASPECTS_KEPT``); None when nothing tells."""
    table = tag_table(data, cols)[0] if table is None else table
    tagged = dict(zip(table.group_translation.tolist(), table.group_max(table.span_counts()).tolist()))
    if not data.translations:
        return {}
    cols = TranslationColumns(data.translations) if cols is None else cols
    pk = cols.pk
    kept = dict(zip(pk, map(tagged.get, pk, cols.mapped)))
    for translation_pk, tags in data.adjudicated.items():
        if translation_pk in kept:
            kept[translation_pk] = span_count(tags)
    for i in np.flatnonzero(~cols.translated).tolist():
        kept[pk[i]] = 0
    return kept


def kept_values(kept: dict[int, int | None], cols: TranslationColumns) -> np.ndarray:
    """The aspects kept of each translation of ``cols``, in their order, as floats (NaN: nothing tells)."""
    return np.array(list(map(kept.get, cols.pk)), dtype=np.float64)


# --- ROUGE-L --------------------------------------------------------------------------------------


def _sentence_order(sentence: SentenceInfo) -> tuple:
    return (sentence.domain, sentence.split, sentence.ordinal, sentence.sentence_id)


_UNIT_KEYS = ("sentence_id", "domain", "split", "phase", "translations", "mean_f", "best_translator", "best_mean_f", "weight")


@dataclass
class RougeResult:
    """Columnar results: pairs and units index ``translations`` (translated ones, grouped by unit
    in sentence order, phase, translator) and ``sentences``."""

    sentences: list[SentenceInfo]
    translations: list[TranslationInfo]
    pair_a: np.ndarray
    pair_b: np.ndarray
    pair_f: np.ndarray
    pair_unit: np.ndarray
    unit_sentence: np.ndarray
    unit_phase: list[str]
    unit_size: np.ndarray
    unit_mean: np.ndarray
    unit_best: np.ndarray
    unit_best_mean: np.ndarray
    unit_weight: np.ndarray
    unit_best_weight: np.ndarray
    excluded: dict[str, int]

    def pair_columns(self) -> dict[str, list]:
        unit = self.pair_unit.tolist()
        sent = [self.sentences[i] for i in self.unit_sentence[self.pair_unit].tolist()]
        names = [t.translator for t in self.translations]
        return {
            "sentence_id": [s.sentence_id for s in sent],
            "domain": [s.domain for s in sent],
            "split": [s.split for s in sent],
            "phase": [self.unit_phase[u] for u in unit],
            "translator_a": [names[i] for i in self.pair_a.tolist()],
            "translator_b": [names[i] for i in self.pair_b.tolist()],
            "f": self.pair_f.tolist(),
        }

    def translation_mean_f(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Each translation's mean ROUGE-L F against the others of its unit (what a unit's best is ranked
        by): ``(indices into translations, their unit, their mean F)``; translations alone in their unit
        have none and are left out."""
        n = len(self.translations)
        totals = (np.bincount(self.pair_a, weights=self.pair_f, minlength=n)
                  + np.bincount(self.pair_b, weights=self.pair_f, minlength=n))
        unit = np.full(n, -1, dtype=np.int64)
        unit[self.pair_a] = self.pair_unit
        unit[self.pair_b] = self.pair_unit
        in_unit = np.flatnonzero(unit >= 0)
        return in_unit, unit[in_unit], totals[in_unit] / (self.unit_size[unit[in_unit]] - 1)

    def unit_columns(self) -> dict[str, list]:
        sent = [self.sentences[i] for i in self.unit_sentence.tolist()]
        return {
            "sentence_id": [s.sentence_id for s in sent],
            "domain": [s.domain for s in sent],
            "split": [s.split for s in sent],
            "phase": list(self.unit_phase),
            "translations": self.unit_size.tolist(),
            "mean_f": self.unit_mean.tolist(),
            "best_translator": [self.translations[i].translator for i in self.unit_best.tolist()],
            "best_mean_f": self.unit_best_mean.tolist(),
            "weight": self.unit_weight.tolist(),
        }

    def pair_rows(self) -> list[dict]:
        # What a pair says of its unit is looked up once per unit (~12,000), not once per pair (~71,000).
        sentences = self.sentences
        unit_of = [(s.sentence_id, s.domain, s.split, p) for s, p in zip(
            map(sentences.__getitem__, self.unit_sentence.tolist()), self.unit_phase)]
        names = [t.translator for t in self.translations]
        return [
            {"sentence_id": u[0], "domain": u[1], "split": u[2], "phase": u[3], "translator_a": a, "translator_b": b,
             "f": f}
            for u, a, b, f in zip(
                map(unit_of.__getitem__, self.pair_unit.tolist()), map(names.__getitem__, self.pair_a.tolist()),
                map(names.__getitem__, self.pair_b.tolist()), self.pair_f.tolist(),
            )
        ]

    def unit_rows(self) -> list[dict]:
        columns = self.unit_columns()
        return [dict(zip(_UNIT_KEYS, row)) for row in zip(*(columns[k] for k in _UNIT_KEYS))]


def _pairs_within(unit_start: np.ndarray, unit_size: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every (i, j), i < j, of every unit's translations, grouped by unit in order."""
    lefts, rights, units = [], [], []
    for k in np.unique(unit_size).tolist():
        chosen = np.flatnonzero(unit_size == k)
        i, j = np.triu_indices(k, 1)
        lefts.append((unit_start[chosen][:, None] + i[None, :]).ravel())
        rights.append((unit_start[chosen][:, None] + j[None, :]).ravel())
        units.append(np.repeat(chosen, len(i)))
    if not units:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    unit = np.concatenate(units)
    order = np.argsort(unit, kind="stable")
    return np.concatenate(lefts)[order], np.concatenate(rights)[order], unit[order]


#: ROUGE-L of units already scored, keyed by the unit's texts in order: (F of its pairs in
#: ``_pairs_within`` order, its texts' word counts). A save changes one unit's texts, so the next
#: figures score that unit only. Pure (the key is the content); cleared when it grows past the limit.
_UNIT_MEMO: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}
UNIT_MEMO_LIMIT = 200_000


def unit_pair_f(texts: list[str], starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ROUGE-L F of every pair within each unit (units are ``texts[start:start + size]``, in order, each
    unit's pairs in ``_pairs_within`` order; units of one text have none) and every text's word count:
    the same values as ``grouped_pair_f`` over all units, each unit's taken from ``_UNIT_MEMO`` when its
    texts were scored before."""
    last = _LAST_CALL
    if last and _UNIT_MEMO and last[0] == texts and np.array_equal(last[1], starts) and np.array_equal(last[2], sizes):
        return last[3].copy(), last[4].copy()  # the same texts as the last call (the same corpus read again)
    f, lengths = _unit_pair_f(texts, starts, sizes)
    _LAST_CALL[:] = [list(texts), starts.copy(), sizes.copy(), f.copy(), lengths.copy()]
    return f, lengths


def source_word_counts(texts: tuple[str, ...]) -> np.ndarray:
    """``word_counts`` of the source sentences, as floats, remembered for the last texts asked: a save changes
    translations and tags, never the sources, so the figures after it need not tokenize ~6,000 sentences again."""
    if _SOURCE_WORDS and _SOURCE_WORDS[0] == texts:
        return _SOURCE_WORDS[1].copy()
    counts = word_counts(list(texts)).astype(np.float64)
    _SOURCE_WORDS[:] = [texts, counts.copy()]
    return counts


_SOURCE_WORDS: list = []  # [texts, their word counts] of the last ``source_word_counts`` call


#: The last ``unit_pair_f`` call's arguments and result: a corpus read again unchanged (a second process
#: asking, the figures recomputed for another view) skips even the per-unit look-ups. Used only while
#: ``_UNIT_MEMO`` holds something: clearing it forgets both.
_LAST_CALL: list = []


def _unit_pair_f(texts: list[str], starts: np.ndarray, sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    memo = _UNIT_MEMO
    bounds = list(zip(starts.tolist(), sizes.tolist()))
    unit_texts = [tuple(texts[s:s + n]) for s, n in bounds]
    scored = list(map(memo.get, unit_texts))
    missing = [u for u, found in enumerate(scored) if found is None]
    if missing:
        m_sizes = np.array([bounds[u][1] for u in missing], dtype=np.int64)
        local = np.zeros(len(missing), dtype=np.int64)
        np.cumsum(m_sizes[:-1], out=local[1:])
        groups = np.repeat(np.arange(len(missing), dtype=np.int64), m_sizes)
        a, b, unit = _pairs_within(local, m_sizes)
        f_new, len_new = grouped_pair_f([t for u in missing for t in unit_texts[u]], groups, a, b)
        pair_start = np.searchsorted(unit, np.arange(len(missing) + 1)).tolist()
        if len(memo) + len(missing) > UNIT_MEMO_LIMIT:
            memo.clear()
        for i, (u, at, n) in enumerate(zip(missing, local.tolist(), m_sizes.tolist())):
            scored[u] = memo[unit_texts[u]] = (f_new[pair_start[i]:pair_start[i + 1]].copy(), len_new[at:at + n].copy())
    f_parts = [fs for fs, _ in scored if len(fs)]
    f = np.concatenate(f_parts) if f_parts else np.zeros(0, dtype=np.float64)
    # The units cover the texts in order (texts come sorted by unit).
    lengths = np.concatenate([ls for _, ls in scored]) if scored else np.zeros(0, dtype=np.int64)
    if len(lengths) != len(texts):
        raise ValueError("unit_pair_f: the units must cover the texts in order")
    return f, lengths


def sentences_in_order(data: MetricsInput) -> list[SentenceInfo]:
    """The sentences in the order every figure lists them (domain, split, ordinal, id)."""
    return sorted(data.sentences, key=_sentence_order)


def rouge_agreement(
    data: MetricsInput, kept: dict[int, int | None] | None = None, cols: TranslationColumns | None = None,
    ordered: list[SentenceInfo] | None = None, kept_array: np.ndarray | None = None,
) -> RougeResult:
    """Pairwise ROUGE-L per unit, each unit's mean and best translation (ties: more aspects kept,
    then earlier submission, then translator name, so the choice never depends on load order).
    ``cols``, ``ordered``, ``kept_array``: ``TranslationColumns``, ``sentences_in_order`` and ``kept_values``
    of this input, when the caller has them."""
    cols = TranslationColumns(data.translations) if cols is None else cols
    kept = aspects_kept(data, cols=cols) if kept is None else kept
    sentences = sentences_in_order(data) if ordered is None else ordered
    phase_rank = {p: i for i, p in enumerate(PHASES)}
    trs = data.translations
    n = len(trs)
    own, sentence_pk, phase, translator, text = cols.pk, cols.sentence_pk, cols.phase, cols.translator, cols.text
    phases = sorted(set(phase), key=lambda p: (phase_rank.get(p, 9), p))
    phase_index = {p: i for i, p in enumerate(phases)}
    sentence_pks = np.fromiter((s.pk for s in sentences), dtype=np.int64, count=len(sentences))
    by_pk = np.argsort(sentence_pks)
    pk_of = np.array(sentence_pk, dtype=np.int64)
    at = np.minimum(np.searchsorted(sentence_pks[by_pk], pk_of), max(len(sentences) - 1, 0))
    known = (sentence_pks[by_pk][at] == pk_of) if len(sentences) else np.zeros(n, dtype=bool)
    sentence_of = np.where(known, by_pk[at] if len(sentences) else 0, -1)
    phase_of = np.fromiter(map(phase_index.__getitem__, phase), dtype=np.int64, count=n)
    names = sorted(set(translator))
    name_code = {name: i for i, name in enumerate(names)}
    translator_of = np.fromiter(map(name_code.__getitem__, translator), dtype=np.int64, count=n)
    own_pk = np.array(own, dtype=np.int64)
    usable = cols.translated
    n_phases = max(len(phases), 1)
    unit_of = sentence_of * n_phases + phase_of
    has_any = set(unit_of[known].tolist())
    chosen = np.flatnonzero(known & usable)
    chosen = chosen[np.lexsort((own_pk[chosen], translator_of[chosen], unit_of[chosen]))]
    chosen_list = chosen.tolist()
    translated = list(map(trs.__getitem__, chosen_list))
    unit_key = unit_of[chosen]
    keys, starts, sizes = np.unique(unit_key, return_index=True, return_counts=True)
    counted = sizes >= 2
    excluded: dict[str, int] = defaultdict(int)
    for key in has_any - set(keys[counted].tolist()):
        excluded[phases[key % n_phases]] += 1
    f, lengths = unit_pair_f(list(map(text.__getitem__, chosen_list)), starts, sizes)
    keys, starts, sizes = keys[counted], starts[counted], sizes[counted]

    a, b, unit = _pairs_within(starts, sizes)

    n_units = len(keys)
    pairs_per_unit = sizes * (sizes - 1) / 2
    unit_mean = np.bincount(unit, weights=f, minlength=n_units) / np.maximum(pairs_per_unit, 1)
    totals = np.bincount(a, weights=f, minlength=len(translated)) + np.bincount(b, weights=f, minlength=len(translated))
    owner_unit = np.full(len(translated), -1, dtype=np.int64)
    if n_units:
        at = np.minimum(np.searchsorted(keys, unit_key), n_units - 1)
        owner_unit = np.where(keys[at] == unit_key, at, -1)
    in_unit = owner_unit >= 0
    means = np.zeros(len(translated))
    means[in_unit] = totals[in_unit] / (sizes[owner_unit[in_unit]] - 1)
    kept_array = kept_values(kept, cols) if kept_array is None else kept_array
    aspects = kept_array[chosen]  # None -> NaN
    aspects = np.where(np.isnan(aspects), -1, aspects).astype(np.int64)
    candidates = np.flatnonzero(in_unit)
    rounded = -np.round(means[candidates], 12)
    order = np.lexsort((candidates, -aspects[candidates], rounded, owner_unit[candidates]))
    ranked = candidates[order]
    # Submission times only matter where mean F and aspects kept tie: convert just those.
    tied = np.zeros(len(ranked), dtype=bool)
    if len(ranked) > 1:
        same = (
            (owner_unit[ranked][1:] == owner_unit[ranked][:-1])
            & (np.round(means[ranked][1:], 12) == np.round(means[ranked][:-1], 12))
            & (aspects[ranked][1:] == aspects[ranked][:-1])
        )
        tied[1:] |= same
        tied[:-1] |= same
    if tied.any():
        moments = np.full(len(translated), np.inf)
        for i in ranked[tied].tolist():
            moment = seconds(translated[i].submitted_at)
            moments[i] = np.inf if math.isnan(moment) else moment
        order = np.lexsort((candidates, moments[candidates], -aspects[candidates], rounded, owner_unit[candidates]))
        ranked = candidates[order]
    first = np.r_[True, owner_unit[ranked][1:] != owner_unit[ranked][:-1]] if len(ranked) else np.zeros(0, bool)
    best = ranked[first]

    source_words = source_word_counts(tuple(s.text for s in sentences))
    unit_sentence = keys // n_phases
    word_sums = np.bincount(owner_unit[in_unit], weights=lengths[in_unit], minlength=n_units)
    return RougeResult(
        sentences=sentences,
        translations=translated,
        pair_a=a,
        pair_b=b,
        pair_f=f,
        pair_unit=unit,
        unit_sentence=unit_sentence,
        unit_phase=[phases[p] for p in (keys % n_phases).tolist()],
        unit_size=sizes,
        unit_mean=unit_mean,
        unit_best=best,
        unit_best_mean=means[best] if n_units else np.zeros(0),
        unit_weight=source_words[unit_sentence] + word_sums / np.maximum(sizes, 1),
        unit_best_weight=source_words[unit_sentence] + lengths[best] if n_units else np.zeros(0),
        excluded=dict(excluded),
    )


def _weighted(values: np.ndarray, weights: np.ndarray) -> float | None:
    if len(values) == 0:
        return None
    total = float(weights.sum())
    if total <= 0:
        return float(values.mean())
    return float((values * weights).sum() / total)


def _mean(values: np.ndarray) -> float | None:
    return float(values.mean()) if len(values) else None


def rouge_summary(result: RougeResult) -> dict:
    """Corpus averages (Table 2): weighted by sentence length, and unweighted, with what was left out."""
    phase = np.array(result.unit_phase, dtype=object)
    masks = {p: phase == p for p in PHASES} if len(phase) else {p: np.zeros(0, bool) for p in PHASES}
    mean, weight = result.unit_mean, result.unit_weight
    best, best_weight = result.unit_best_mean, result.unit_best_weight
    summary: dict = {p: _weighted(mean[masks[p]], weight[masks[p]]) for p in PHASES}
    summary["overall"] = _weighted(mean, weight)
    summary["best"] = _weighted(best, best_weight)
    summary["best_by_phase"] = {p: _weighted(best[masks[p]], best_weight[masks[p]]) for p in PHASES}
    summary["unweighted"] = {
        **{p: _mean(mean[masks[p]]) for p in PHASES},
        "overall": _mean(mean),
        "best": _mean(best),
    }
    summary["units"] = {p: int(masks[p].sum()) for p in PHASES}
    summary["pairs"] = int(len(result.pair_f))
    summary["excluded_units"] = int(sum(result.excluded.values()))
    summary["excluded_by_phase"] = {p: result.excluded.get(p, 0) for p in PHASES}
    summary["weighting"] = WEIGHTING
    summary["per_translator"] = per_translator(result)
    return summary


def per_translator(result: RougeResult) -> list[dict]:
    """Each translator's mean ROUGE-L against peers, per phase and over both: an outlier stands out."""
    names = sorted({t.translator for t in result.translations})
    name_index = {n: i for i, n in enumerate(names)}
    who = np.fromiter(map(name_index.__getitem__, map(itemgetter(3), result.translations)), dtype=np.int64,
                      count=len(result.translations))
    # Phases as small integers (one per unit), compared per pair as integers, not as strings.
    phase_code = {p: i for i, p in enumerate(dict.fromkeys((*PHASES, *result.unit_phase)))}
    unit_code = np.fromiter(map(phase_code.__getitem__, result.unit_phase), dtype=np.int64,
                            count=len(result.unit_phase))
    phase_of_pair = unit_code[result.pair_unit] if len(result.pair_unit) else np.zeros(0, np.int64)
    rows = []
    for phase in (*PHASES, "all"):
        chosen = np.ones(len(result.pair_f), bool) if phase == "all" else phase_of_pair == phase_code[phase]
        ends = np.concatenate([who[result.pair_a[chosen]], who[result.pair_b[chosen]]])
        fs = np.concatenate([result.pair_f[chosen], result.pair_f[chosen]])
        counts = np.bincount(ends, minlength=len(names))
        sums = np.bincount(ends, weights=fs, minlength=len(names))
        for i, name in enumerate(names):
            if counts[i]:
                rows.append({"translator": name, "phase": phase, "pairs": int(counts[i]), "mean_f": float(sums[i] / counts[i])})
    order = {p: i for i, p in enumerate((*PHASES, "all"))}
    return sorted(rows, key=lambda r: (r["translator"], order[r["phase"]]))


# --- Aspect coverage --------------------------------------------------------------------------------


def coverage(
    data: MetricsInput, kept: dict[int, int | None] | None = None, cols: TranslationColumns | None = None,
    ordered: list[SentenceInfo] | None = None, kept_array: np.ndarray | None = None,
) -> dict:
    """Sentences whose aspect-blind translations kept fewer aspects than the aspect-aware ones (``cols``,
    ``ordered``, ``kept_array``: as for ``rouge_agreement``)."""
    cols = TranslationColumns(data.translations) if cols is None else cols
    kept = aspects_kept(data, cols=cols) if kept is None else kept
    sentences = sentences_in_order(data) if ordered is None else ordered
    most = {phase: np.full(len(sentences), -1, dtype=np.int64) for phase in (Phase.AWARE, Phase.BLIND)}
    if data.translations and sentences:
        sentence_pk, phase = cols.sentence_pk, cols.phase
        n = kept_values(kept, cols) if kept_array is None else kept_array  # None (nothing tells) -> NaN
        sentence_pks = np.fromiter(map(attrgetter("pk"), sentences), dtype=np.int64, count=len(sentences))
        by_pk = np.argsort(sentence_pks)
        spk = np.array(sentence_pk, dtype=np.int64)
        at = np.minimum(np.searchsorted(sentence_pks[by_pk], spk), len(sentences) - 1)
        found = (sentence_pks[by_pk][at] == spk) & ~np.isnan(n)
        phases = np.array(phase, dtype=object)
        for name, best in most.items():
            chosen = found & (phases == name)
            np.maximum.at(best, by_pk[at[chosen]], n[chosen].astype(np.int64))
    aware, blind = most[Phase.AWARE], most[Phase.BLIND]
    compared = int(np.count_nonzero((aware >= 0) & (blind >= 0)))
    rows = []
    for i in np.flatnonzero((blind >= 0) & (blind < aware)).tolist():
        s = sentences[i]
        rows.append({
            "sentence_id": s.sentence_id,
            "domain": s.domain,
            "split": s.split,
            "source_aspects": s.n_aspects,
            "aware_kept": int(aware[i]),
            "blind_kept": int(blind[i]),
            "text": s.text,
        })
    return {
        "compared": compared,
        "fewer_in_blind": len(rows),
        "percent": 100.0 * len(rows) / compared if compared else None,
        "sentences": rows,
        "definition": COVERAGE_DEFINITION,
    }
