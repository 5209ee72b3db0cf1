"""Figures the export needs: per-sentence agreement, Table 2 at export speed, KL divergence.

ROUGE-L and kappa here are stand-ins used only while ``corpus.rouge`` / ``corpus.agreement`` are
absent (the card names which produced its figures). ROUGE-L is the F-measure (beta = 1) of the
longest common subsequence over canonical words, computed bit-parallel (Hyyrö 2004) so a
paper-scale export stays fast.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

from corpus.tokens import words


def word_masks(target: Sequence[str]) -> dict[str, int]:
    masks: dict[str, int] = {}
    for i, sym in enumerate(target):
        masks[sym] = masks.get(sym, 0) | (1 << i)
    return masks


def lcs_with_masks(masks: dict[str, int], target_len: int, other: Sequence[str]) -> int:
    if target_len == 0 or not other:
        return 0
    full = (1 << target_len) - 1
    v = full
    for sym in other:
        u = v & masks.get(sym, 0)
        v = ((v + u) | (v - u)) & full
    return target_len - bin(v).count("1")


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    return lcs_with_masks(word_masks(a), len(a), b)


def f_from_lcs(lcs: int, target_len: int, prediction_len: int) -> float:
    if lcs == 0 or target_len == 0 or prediction_len == 0:
        return 0.0
    p, r = lcs / prediction_len, lcs / target_len
    return 2 * p * r / (p + r)


def rouge_l_f(a_words: Sequence[str], b_words: Sequence[str]) -> float:
    return f_from_lcs(lcs_length(a_words, b_words), len(a_words), len(b_words))


def rouge_l_text(a: str, b: str) -> float:
    return rouge_l_f(words(a), words(b))


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float | None:
    """Cohen's kappa over paired labels; None where it is undefined (expected agreement 1)."""
    n = len(a)
    if n == 0 or n != len(b):
        return None
    observed = sum(1 for x, y in zip(a, b) if x == y) / n
    ca, cb = Counter(a), Counter(b)
    expected = sum(ca[k] * cb[k] for k in ca) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def fleiss_kappa(items: Iterable[Sequence[str]], categories: Sequence[str] = ("B", "I", "O")) -> float | None:
    """Fleiss' kappa; every item carries the same number (>= 2) of ratings. None where undefined."""
    n_items, raters, p_sum = 0, None, 0.0
    totals = Counter()
    for ratings in items:
        m = len(ratings)
        if raters is None:
            raters = m
        if m != raters or m < 2:
            raise ValueError("fleiss_kappa: every item needs the same number (>= 2) of ratings")
        counts = Counter(ratings)
        totals.update(counts)
        p_sum += (sum(c * c for c in counts.values()) - m) / (m * (m - 1))
        n_items += 1
    if not n_items:
        return None
    p_bar = p_sum / n_items
    all_ratings = n_items * raters
    p_e = sum((totals[c] / all_ratings) ** 2 for c in categories)
    if p_e >= 1.0:
        return None
    return (p_bar - p_e) / (1 - p_e)


def distribution(labels: Iterable[str], support: Sequence[str]) -> list[float]:
    counts = Counter(labels)
    total = sum(counts[s] for s in support)
    return [counts[s] / total if total else 0.0 for s in support]


def kl_divergence(p: Sequence[float], q: Sequence[float], eps: float = 1e-12) -> float:
    """KL(p || q) in nats; ``eps`` keeps an empty category from making it infinite."""
    return sum(pi * math.log((pi + eps) / (qi + eps)) for pi, qi in zip(p, q) if pi > 0)


# --- Table 2 at export speed --------------------------------------------------------------------------

_STRIP = str.maketrans("", "", '[]", \n\t')


def compact_tags(raw_json: str) -> str | None:
    """``'["O", "B"]'`` -> ``"OB"`` without a JSON parse; None unless every element is a one-letter B/I/O tag."""
    s = raw_json.translate(_STRIP)
    if s.strip("BIO") or len(s) * 2 != raw_json.count('"'):
        return None
    return s


def tag_count_table(groups: Iterable[Sequence[str]], raters: int):
    """Per token of every group tagged by exactly ``raters`` annotators (tag strings of equal length), how
    many gave B, I and O: the table Fleiss' kappa is computed from. Returns (table, groups used)."""
    import numpy as np

    columns: list[list[str]] = [[] for _ in range(raters)]
    used = 0
    for group in groups:
        if len(group) != raters or raters < 2 or len({len(t) for t in group}) != 1:
            continue
        used += 1
        for column, tags in zip(columns, group):
            column.append(tags)
    if not used:
        return np.zeros((0, 3)), 0
    codes = np.stack([np.frombuffer("".join(c).encode("ascii"), dtype=np.uint8) for c in columns], axis=1)
    return np.stack([(codes == ord(c)).sum(axis=1) for c in "BIO"], axis=1).astype(np.float64), used


def fleiss_from_counts(counts) -> float | None:
    """Fleiss' kappa of a (tokens x categories) count table with the same number of raters per row."""
    if counts.shape[0] == 0:
        return None
    n, m = counts.shape[0], int(counts[0].sum())
    if m < 2:
        return None
    p_bar = (((counts * counts).sum(axis=1) - m) / (m * (m - 1))).mean()
    p_cat = counts.sum(axis=0) / (n * m)
    p_e = float((p_cat * p_cat).sum())
    if p_e >= 1.0:
        return None
    return float((p_bar - p_e) / (1 - p_e))


def fleiss_over_tag_strings(groups: Iterable[Sequence[str]], raters: int) -> tuple[float | None, int]:
    """Fleiss' kappa over the tokens of every group tagged by exactly ``raters`` annotators."""
    counts, used = tag_count_table(groups, raters)
    return fleiss_from_counts(counts), used
