"""Tagging agreement: Fleiss' kappa (statsmodels), Cohen's kappa per annotator pair, exact span F1.

Tag sets are strings with one letter per token (``"OBIO"``): compact, hashable, and turned into
numpy codes in one step. statsmodels has two traps that this module reports instead of passing on:
``fleiss_kappa`` asserts when items have unequal numbers of raters and returns NaN when a single
category is all there is. Every undefined kappa comes back as ``None`` with a reason.

The tag rules live in ``corpus.bio``; the span readings here (``tag_string``, ``spans_of``, ``span_count``,
``has_stray_i`` and the table's numpy counts) are fast paths of its repair-then-``tags_to_spans`` reading,
3.4x faster per tag set than calling it, and pinned equal to it by ``tests/test_kappa_matches_bio.py``.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

import numpy as np

LABELS = "BIO"
FLEISS_SETTINGS = "statsmodels fleiss_kappa(method='fleiss') over tokens; categories B, I, O"
COHEN_SETTINGS = "statsmodels cohens_kappa (unweighted) per annotator pair over the tokens both tagged"
SPAN_F1_SETTINGS = "exact-match aspect spans (same start and end token), micro F1 per annotator pair; stray I read as B"

_CODE = np.full(256, 255, dtype=np.uint8)
for _i, _label in enumerate(LABELS):
    _CODE[ord(_label)] = _i
_SPAN = re.compile(r"[BI]I*")
_VALID = re.compile(r"[BIO]*")


@dataclass(frozen=True)
class KappaResult:
    """A kappa or ``None`` with the reason it is undefined; ``items`` is what it was computed over."""

    kappa: float | None
    reason: str | None
    items: int
    raters: int | None = None

    def as_dict(self) -> dict:
        return asdict(self)


def tag_string(tags: Sequence[str]) -> str | None:
    """Tags as one letter per token, or None when a tag is not B, I or O."""
    if isinstance(tags, str):
        text = tags
    else:
        if not all(isinstance(t, str) and len(t) == 1 for t in tags):
            return None
        text = "".join(tags)
    return text if _VALID.fullmatch(text) else None


def tag_codes(tags: str) -> np.ndarray:
    """B, I, O -> 0, 1, 2 for a whole tag string at once."""
    return _CODE[np.frombuffer(tags.encode("ascii"), dtype=np.uint8)]


def spans_of(tags: str) -> list[tuple[int, int]]:
    """Aspect spans as half-open token ranges, a stray I starting a span (``corpus.bio.repair_tags``)."""
    return [m.span() for m in _SPAN.finditer(tags)]


def span_count(tags: str) -> int:
    if "I" not in tags:
        return tags.count("B")
    return len(_SPAN.findall(tags))


def has_stray_i(tags: str) -> bool:
    return tags.startswith("I") or "OI" in tags


# --- Fleiss' kappa -------------------------------------------------------------------------------


def _fleiss_checks(table: np.ndarray, labels: str | None) -> KappaResult | None:
    """The reason kappa is undefined for a count table, or None when statsmodels can compute it."""
    if table.ndim != 2 or table.shape[0] == 0:
        return KappaResult(None, "no items to compare", 0)
    n_items = int(table.shape[0])
    per_item = table.sum(axis=1)
    low, high = int(per_item.min()), int(per_item.max())
    if low != high:
        return KappaResult(
            None,
            f"unequal numbers of annotators per item ({low} to {high}); Fleiss' kappa needs the same number "
            "for every item (statsmodels asserts)",
            n_items,
        )
    if high < 2:
        return KappaResult(None, "fewer than 2 annotators per item", n_items, high)
    used = np.flatnonzero(table.sum(axis=0))
    if len(used) < 2:
        only = labels[used[0]] if labels and len(used) == 1 else "one category"
        return KappaResult(
            None,
            f"every annotator gave every item the same label ({only}): chance agreement is 1, kappa undefined "
            "(statsmodels gives NaN)",
            n_items,
            high,
        )
    return None


def _statsmodels_fleiss(table: np.ndarray, n_items: int, raters: int) -> KappaResult:
    from statsmodels.stats.inter_rater import fleiss_kappa  # here: statsmodels brings scipy (~140 MB, ~1.5 s)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        kappa = float(fleiss_kappa(table, method="fleiss"))
    if not math.isfinite(kappa):
        return KappaResult(None, "kappa undefined (statsmodels returned NaN)", n_items, raters)
    return KappaResult(kappa, None, n_items, raters)


def fleiss_from_table(table: np.ndarray | Sequence[Sequence[int]], labels: str | None = None) -> KappaResult:
    """Fleiss' kappa of a subjects x categories count table, or None with the reason it is undefined."""
    table = np.asarray(table)
    problem = _fleiss_checks(table, labels)
    if problem is not None:
        return problem
    return _statsmodels_fleiss(table, int(table.shape[0]), int(table.sum(axis=1)[0]))


def fleiss_from_ratings(data: np.ndarray, n_cat: int = len(LABELS), labels: str | None = LABELS) -> KappaResult:
    """Fleiss' kappa of a subjects x raters matrix of category codes ``0 .. n_cat-1``.

    ``aggregate_raters`` loops over subjects in Python (seconds for a corpus), so it is run on one
    representative subject per distinct rating pattern and its count rows are repeated by frequency:
    the same table up to row order, which Fleiss' kappa does not depend on. The table is laid out
    column-major so statsmodels' row sums run over contiguous memory.
    """
    data = np.asarray(data)
    if data.ndim != 2 or data.shape[0] == 0:
        return KappaResult(None, "no items: no token was tagged by the full number of annotators", 0)
    n_items, n_raters = data.shape
    if n_raters < 2:
        return KappaResult(None, "fewer than 2 annotators per item", n_items, n_raters)
    return fleiss_from_patterns(np.bincount(rating_patterns(data, n_cat)), n_raters, n_cat, labels)


def rating_patterns(data: np.ndarray, n_cat: int = len(LABELS)) -> np.ndarray:
    """Each subject's rating pattern (how many raters chose each category) as one int."""
    n_items, n_raters = data.shape
    place = (n_raters + 1) ** np.arange(n_cat, dtype=np.int64)
    key = np.zeros(n_items, dtype=np.int64)
    for k in range(n_raters):
        key += place[data[:, k]]  # sum over raters of base**category = sum over categories of count * base**category
    return key


def fleiss_from_patterns(
    frequency: np.ndarray, n_raters: int, n_cat: int = len(LABELS), labels: str | None = LABELS
) -> KappaResult:
    """``fleiss_from_ratings`` given how many subjects have each ``rating_patterns`` value."""
    n_items = int(frequency.sum())
    if n_items == 0:
        return KappaResult(None, "no items: no token was tagged by the full number of annotators", 0)
    if n_raters < 2:
        return KappaResult(None, "fewer than 2 annotators per item", n_items, n_raters)
    base = n_raters + 1
    place = base ** np.arange(n_cat, dtype=np.int64)
    present = np.flatnonzero(frequency)
    pattern_counts = (present[:, None] // place[None, :]) % base
    representatives = np.stack([np.repeat(np.arange(n_cat), row) for row in pattern_counts])
    from statsmodels.stats.inter_rater import aggregate_raters  # late, as in _statsmodels_fleiss

    patterns, _ = aggregate_raters(representatives, n_cat=n_cat)
    problem = _fleiss_checks(patterns, labels)
    if problem is not None:
        return KappaResult(problem.kappa, problem.reason, n_items, problem.raters)
    if n_raters == 2:
        return _two_rater_fleiss(patterns, frequency[present], n_items)
    table = np.asfortranarray(np.repeat(patterns, frequency[present], axis=0), dtype=np.float64)
    return _statsmodels_fleiss(table, n_items, n_raters)


def _two_rater_fleiss(patterns: np.ndarray, frequency: np.ndarray, n_items: int) -> KappaResult:
    """statsmodels' ``fleiss_kappa(table, method='fleiss')`` of the table whose rows are ``patterns``
    repeated ``frequency`` times, without building that table (millions of rows on a large corpus).

    The value is bit-identical: statsmodels' sums over rows are sums of integers (exact in float64),
    and with two raters each row's agreement ``(sum of squared counts - 2) / 2`` is 0 or 1, so
    their mean is the exact count of agreeing rows divided by the rows; the remaining operations
    are statsmodels' own, in its order, on the same values.
    """
    table = patterns.astype(np.float64)
    n_rat = table.sum(1).max()
    n_total = np.float64(n_items) * n_rat
    p_cat = (patterns * frequency[:, None]).sum(0).astype(np.float64) / n_total
    p_rat = ((table * table).sum(1) - n_rat) / (n_rat * (n_rat - 1.0))
    agreeing = int(frequency[p_rat == 1.0].sum())
    p_mean = np.float64(agreeing) / n_items
    p_mean_exp = (p_cat * p_cat).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        kappa = float((p_mean - p_mean_exp) / (1 - p_mean_exp))
    if not math.isfinite(kappa):
        return KappaResult(None, "kappa undefined (statsmodels returned NaN)", n_items, 2)
    return KappaResult(kappa, None, n_items, 2)


def fleiss_from_label_lists(items: Sequence[Sequence[str]], categories: Sequence[str] = tuple(LABELS)) -> KappaResult:
    """Fleiss' kappa from per-item label lists; items may have unequal counts (then None, with why)."""
    if not items:
        return KappaResult(None, "no items to compare", 0)
    index = {c: i for i, c in enumerate(categories)}
    table = np.zeros((len(items), len(categories)), dtype=np.int64)
    for row, labels in enumerate(items):
        for label in labels:
            table[row, index[label]] += 1
    return fleiss_from_table(table, "".join(categories) if all(len(c) == 1 for c in categories) else None)


@dataclass(frozen=True)
class FleissResult:
    result: KappaResult
    translations: int
    excluded_fewer: int
    excluded_more: int
    excluded_length: int

    def as_dict(self) -> dict:
        return {
            **self.result.as_dict(),
            "translations": self.translations,
            "excluded": {
                "fewer_annotators": self.excluded_fewer,
                "more_annotators": self.excluded_more,
                "token_count_mismatch": self.excluded_length,
            },
        }


@dataclass
class TagTable:
    """Tag sets sorted by (translation, annotator) and grouped by translation, as arrays.

    Agreement is computed over whole columns of tags at once; the Python-level work per tag set
    is building this table.
    """

    translation: np.ndarray  # translation key per tag set
    annotator: np.ndarray  # annotator code per tag set (index into ``names``)
    names: list[str]
    tags: np.ndarray  # object array of tag strings
    length: np.ndarray
    source: np.ndarray  # position of each tag set in the rows the table was built from
    group_start: np.ndarray
    group_size: np.ndarray

    @classmethod
    def build(cls, rows: Iterable[tuple[int, str, str]]) -> TagTable:
        """From ``(translation key, annotator, tags)``; a repeated (translation, annotator) keeps the first."""
        rows = list(rows)
        translation, annotator, tags = ([r[i] for r in rows] for i in range(3))
        return cls.from_columns(translation, annotator, tags)

    @classmethod
    def from_columns(cls, translations: Sequence[int], annotators: Sequence[str], tags: Sequence[str]) -> TagTable:
        """Like ``build``, from the three columns."""
        names = sorted(set(annotators))
        code = {n: i for i, n in enumerate(names)}
        n = len(translations)
        translation = np.array(translations, dtype=np.int64).reshape(n)
        annotator = np.fromiter(map(code.__getitem__, annotators), dtype=np.int64, count=n)
        tag_array = np.empty(n, dtype=object)
        tag_array[:] = tags
        length = np.fromiter(map(len, tags), dtype=np.int64, count=n)  # over the list: an array's items cost more
        order = np.lexsort((annotator, translation))  # stable: the first of a repeated pair stays first
        translation, annotator, tag_array, source = translation[order], annotator[order], tag_array[order], order
        length = length[order]
        if n:
            fresh = np.r_[True, (translation[1:] != translation[:-1]) | (annotator[1:] != annotator[:-1])]
            if not fresh.all():
                translation, annotator, tag_array, source = translation[fresh], annotator[fresh], tag_array[fresh], source[fresh]
                length = length[fresh]
        starts = np.flatnonzero(np.r_[True, translation[1:] != translation[:-1]]) if len(translation) else np.zeros(0, np.int64)
        sizes = np.diff(np.r_[starts, len(translation)])
        return cls(translation, annotator, names, tag_array, length, source, starts, sizes)

    @classmethod
    def from_groups(cls, groups: Iterable[Mapping[str, str] | Sequence[str]]) -> TagTable:
        """From plain groups (one per translation): annotator -> tags, or tag strings in rater order."""
        rows = []
        for key, group in enumerate(groups):
            items = group.items() if isinstance(group, Mapping) else ((f"rater{i:03d}", t) for i, t in enumerate(group))
            rows.extend((key, name, tags) for name, tags in items)
        return cls.build(rows)

    @property
    def group_translation(self) -> np.ndarray:
        return self.translation[self.group_start]

    def group_equal_length(self) -> np.ndarray:
        if not len(self.group_start):
            return np.zeros(0, dtype=bool)
        cached = self.__dict__.get("_equal_length")  # built once per table (each figure asks)
        if cached is None:
            low = np.minimum.reduceat(self.length, self.group_start)
            high = np.maximum.reduceat(self.length, self.group_start)
            cached = self.__dict__["_equal_length"] = low == high
        return cached.copy()

    def _joined_codes(self) -> tuple[np.ndarray, np.ndarray]:
        """Every tag set's codes in one array, an O after each (so spans never run across), and
        where each tag set starts; built once per table."""
        cached = self.__dict__.get("_joined")
        if cached is None:
            codes = tag_codes("O".join(self.tags.tolist()) + "O")
            offsets = np.zeros(len(self.tags), dtype=np.int64)
            np.cumsum(self.length[:-1] + 1, out=offsets[1:])
            cached = self.__dict__["_joined"] = (codes, offsets)
        return cached

    def span_counts(self) -> np.ndarray:
        """Aspect spans per tag set (a stray I starts a span), counted over one joined code array."""
        if not len(self.tags):
            return np.zeros(0, dtype=np.int64)
        codes, offsets = self._joined_codes()
        previous = np.r_[2, codes[:-1]]
        starts = ((codes == 0) | ((codes == 1) & (previous == 2))).astype(np.int64)
        return np.add.reduceat(starts, offsets)

    def stray_i_counts(self) -> np.ndarray:
        """Per tag set, how many I tags start a span (follow an O or open the sentence): ``has_stray_i``."""
        if not len(self.tags):
            return np.zeros(0, dtype=np.int64)
        codes, offsets = self._joined_codes()
        previous = np.r_[2, codes[:-1]]
        return np.add.reduceat(((codes == 1) & (previous == 2)).astype(np.int64), offsets)

    def group_max(self, values: np.ndarray) -> np.ndarray:
        if not len(self.group_start):
            return np.zeros(0, dtype=values.dtype)
        return np.maximum.reduceat(values, self.group_start)

    def fleiss(self, group_labels: Sequence[str], raters: int) -> dict[str, FleissResult]:
        """Fleiss' kappa per label of the translation groups (e.g. phase), over the tokens of the
        translations tagged by exactly ``raters`` annotators; the others are counted, not mixed in."""
        names, labels = _label_codes(group_labels)
        equal = self.group_equal_length()
        fewer = self.group_size < raters
        more = self.group_size > raters
        mismatch = ~fewer & ~more & ~equal
        usable, data = self._ratings(raters, equal)
        if raters >= 2:
            _, frequency = self.pattern_frequency(group_labels, raters)
        else:
            item_label = np.repeat(labels[usable], self.length[self.group_start[usable]])
        results: dict[str, FleissResult] = {}
        for code, name in enumerate(names):
            in_label = labels == code
            results[name] = FleissResult(
                fleiss_from_patterns(frequency[code], raters) if raters >= 2 else fleiss_from_ratings(data[item_label == code]),
                int(in_label[usable].sum()),
                int((fewer & in_label).sum()),
                int((more & in_label).sum()),
                int((mismatch & in_label).sum()),
            )
        return results

    def pattern_frequency(self, group_labels: Sequence[str], raters: int) -> tuple[list[str], np.ndarray]:
        """Fleiss' units, counted: per label of the translation groups (first-seen order), how many tokens of
        the translations tagged by exactly ``raters`` (2 or more) annotators with equal token counts have each
        rating pattern (``rating_patterns``: how many annotators gave B, I and O). Rows: labels; columns:
        patterns, ``(raters + 1) ** 3`` of them. Any agreement measure over those units reads it."""
        # Counted once per table, raters and labelling (Fleiss and alpha each ask per phase and pooled).
        key = (raters, tuple(group_labels))
        counted = self.__dict__.setdefault("_frequencies", {}).get(key)
        if counted is None:
            counted = self.__dict__["_frequencies"][key] = self._pattern_frequency(group_labels, raters)
        return list(counted[0]), counted[1].copy()

    def _pattern_frequency(self, group_labels: Sequence[str], raters: int) -> tuple[list[str], np.ndarray]:
        names, labels = _label_codes(group_labels)
        usable, data = self._ratings(raters, self.group_equal_length())
        patterns = self.__dict__.get(f"_patterns_{raters}")
        if patterns is None:
            patterns = self.__dict__[f"_patterns_{raters}"] = rating_patterns(data)
        width = (raters + 1) ** len(LABELS)
        if len(names) == 1:  # one label (pooled): every token counts in its one row
            return names, np.bincount(patterns, minlength=width).reshape(-1, width)
        item_label = np.repeat(labels[usable], self.length[self.group_start[usable]])
        return names, np.bincount(item_label * width + patterns, minlength=len(names) * width).reshape(-1, width)

    def _ratings(self, raters: int, equal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The groups tagged by exactly ``raters`` annotators with equal token counts, and their
        tokens x raters matrix of codes; built once per table and number of raters."""
        key = f"_ratings_{raters}"
        cached = self.__dict__.get(key)
        if cached is None:
            usable = np.flatnonzero((self.group_size == raters) & equal)
            if raters >= 1 and len(usable):
                columns = [tag_codes("".join(self.tags[self.group_start[usable] + k].tolist())) for k in range(raters)]
                data = np.stack(columns, axis=1)
            else:
                data = np.zeros((0, max(raters, 1)), dtype=np.uint8)
            cached = self.__dict__[key] = (usable, data)
        return cached

    def agreed_tokens(self) -> tuple[np.ndarray, np.ndarray]:
        """Per translation tagged by 2+ annotators with equal token counts: how many tokens every
        annotator tagged alike; and the mask of those groups."""
        usable = (self.group_size >= 2) & self.group_equal_length()
        first = self.group_start[usable]
        sizes = self.group_size[usable]
        lengths = self.length[first]
        if not len(first):
            return np.zeros(0, dtype=np.int64), usable
        offsets = np.r_[0, np.cumsum(lengths)[:-1]]
        agree = np.ones(int(lengths.sum()), dtype=bool)
        tags = self.tags
        for r in range(1, int(sizes.max())):
            chosen = np.flatnonzero(sizes > r)
            same = tag_codes("".join(tags[first[chosen]].tolist())) == tag_codes("".join(tags[first[chosen] + r].tolist()))
            n = lengths[chosen]
            at = np.repeat(offsets[chosen], n) + np.arange(int(n.sum())) - np.repeat(np.cumsum(n) - n, n)
            agree[at] &= same
        counts = np.add.reduceat(np.r_[agree, False].astype(np.int64), offsets)  # the pad keeps a trailing empty group in range
        return np.where(lengths > 0, counts, 0), usable

    def pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every two tag sets of the same translation with the same token count (first has the lower code)."""
        lefts, rights = [], []
        for k in np.unique(self.group_size).tolist():
            if k < 2:
                continue
            chosen = self.group_start[self.group_size == k]
            i, j = np.triu_indices(k, 1)
            lefts.append((chosen[:, None] + i[None, :]).ravel())
            rights.append((chosen[:, None] + j[None, :]).ravel())
        if not lefts:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty
        left, right = np.concatenate(lefts), np.concatenate(rights)
        same = self.length[left] == self.length[right]
        return left[same], right[same]

    def pair_tallies(self) -> dict[tuple[str, str], PairTally]:
        """Token confusion and exact span matches per annotator pair ``(a, b)``, ``a < b``."""
        left, right = self.pairs()
        width = max(len(self.names), 1)
        combo = self.annotator[left] * width + self.annotator[right]
        tallies: dict[tuple[str, str], PairTally] = {}
        for value in np.unique(combo).tolist():
            chosen = combo == value
            pair = (self.names[value // width], self.names[value % width])
            tallies[pair] = _tally(self.tags[left[chosen]].tolist(), self.tags[right[chosen]].tolist())
        return tallies


def _label_codes(group_labels: Sequence[str]) -> tuple[list[str], np.ndarray]:
    names = list(dict.fromkeys(group_labels))
    index = {name: i for i, name in enumerate(names)}
    return names, np.fromiter(map(index.__getitem__, group_labels), dtype=np.int64, count=len(group_labels))


def pattern_counts(raters: int, n_cat: int = len(LABELS)) -> np.ndarray:
    """Every ``rating_patterns`` value's counts per category: row p holds how many raters chose each category."""
    base = raters + 1
    return (np.arange(base ** n_cat)[:, None] // base ** np.arange(n_cat)[None, :]) % base


def fleiss_over_translations(tag_sets: Iterable[Sequence[str]], raters: int) -> FleissResult:
    """Fleiss' kappa over the tokens of every translation tagged by exactly ``raters`` annotators.

    Each element of ``tag_sets`` is one translation's tag strings, one per annotator. Translations
    with fewer or more annotators, or whose tag sets disagree on the token count, are left out and
    counted, never silently mixed in.
    """
    table = TagTable.from_groups(list(tag_sets))
    return table.fleiss(["all"] * len(table.group_start), raters).get("all") or FleissResult(
        fleiss_from_ratings(np.zeros((0, max(raters, 1)))), 0, 0, 0, 0
    )


# --- Cohen's kappa and span F1 per annotator pair --------------------------------------------------


def cohen_from_confusion(confusion: np.ndarray, labels: str = LABELS) -> KappaResult:
    """Cohen's kappa of a square confusion matrix (rows: first annotator), None with why when undefined."""
    confusion = np.asarray(confusion, dtype=np.float64)
    n = int(confusion.sum())
    if n == 0:
        return KappaResult(None, "no tokens tagged by both annotators", 0, 2)
    rows, cols = confusion.sum(axis=1), confusion.sum(axis=0)
    expected = float((rows * cols).sum()) / (n * n)
    if expected >= 1.0:
        only = labels[int(np.argmax(rows))] if len(labels) == len(rows) else "one label"
        return KappaResult(
            None, f"both annotators gave every token the same label ({only}): kappa undefined", n, 2
        )
    from statsmodels.stats.inter_rater import cohens_kappa  # late, as in _statsmodels_fleiss

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        kappa = float(cohens_kappa(confusion, return_results=False))
    if not math.isfinite(kappa):
        return KappaResult(None, "kappa undefined (statsmodels returned NaN)", n, 2)
    return KappaResult(kappa, None, n, 2)


@dataclass
class PairTally:
    """What two annotators did on the translations both tagged: token confusion and span matches."""

    confusion: np.ndarray
    translations: int = 0
    spans_a: int = 0
    spans_b: int = 0
    matched: int = 0

    def flipped(self) -> PairTally:
        return PairTally(self.confusion.T.copy(), self.translations, self.spans_b, self.spans_a, self.matched)

    def __iadd__(self, other: PairTally) -> PairTally:
        self.confusion = self.confusion + other.confusion
        self.translations += other.translations
        self.spans_a += other.spans_a
        self.spans_b += other.spans_b
        self.matched += other.matched
        return self


def _span_keys(codes: np.ndarray) -> np.ndarray:
    """Each aspect span of a code array as one int (start * (n + 1) + end); a stray I starts a span."""
    n = len(codes)
    inside = codes != 2
    previous = np.r_[2, codes[:-1]] if n else codes
    following = np.r_[codes[1:], 2] if n else codes
    starts = np.flatnonzero((codes == 0) | ((codes == 1) & (previous == 2)))
    ends = np.flatnonzero(inside & (following != 1)) + 1
    return starts.astype(np.int64) * (n + 1) + ends


def _tally(left: list[str], right: list[str]) -> PairTally:
    """Two annotators' tags of the same translations, joined (an O between translations keeps spans apart)."""
    a, b = tag_codes("O".join(left)), tag_codes("O".join(right))
    confusion = np.bincount(a.astype(np.int64) * 3 + b, minlength=9).reshape(3, 3)
    confusion[2, 2] -= len(left) - 1
    spans_a, spans_b = _span_keys(a), _span_keys(b)
    matched = len(np.intersect1d(spans_a, spans_b, assume_unique=True))
    return PairTally(confusion, len(left), len(spans_a), len(spans_b), matched)


def pair_tallies(tag_sets: Iterable[Mapping[str, str]]) -> dict[tuple[str, str], PairTally]:
    """Tallies per annotator pair ``(a, b)``, ``a < b``; each element maps annotator -> tag string of one translation."""
    return TagTable.from_groups(list(tag_sets)).pair_tallies()


def span_f1(tally: PairTally) -> tuple[float | None, str | None]:
    total = tally.spans_a + tally.spans_b
    if total == 0:
        return None, "no aspect spans marked by either annotator"
    return 2 * tally.matched / total, None


def per_annotator_tallies(tallies: Mapping[tuple[str, str], PairTally]) -> dict[str, PairTally]:
    """Each annotator against everyone they share translations with, oriented annotator-first."""
    pooled: dict[str, PairTally] = {}
    for (a, b), tally in tallies.items():
        for name, oriented in ((a, tally), (b, tally.flipped())):
            if name not in pooled:
                pooled[name] = PairTally(np.zeros((3, 3), dtype=np.int64))
            pooled[name] += oriented
    return pooled
