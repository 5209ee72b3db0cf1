"""The agreement figures an exported record carries, and the pseudonyms that replace people's names.

Every figure comes from the one implementation behind ``python -m corpus metrics --json``
(``corpus.metrics.compute_agreement``): per translation its ROUGE-L against the others of its unit
(``corpus.agreement.RougeResult``), per item the annotators' token agreement and mean Cohen's kappa
(``corpus.kappa``) over the submitted versions.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from itertools import combinations
from operator import add

import numpy as np

from corpus.agreement import RougeResult
from corpus.bio import token_disagreement
from corpus.kappa import cohen_from_confusion, tag_codes


def translation_figures(rouge: RougeResult) -> dict[int, tuple[float, float, int, bool]]:
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


#: Cohen's kappa by 3 x 3 token confusion (its nine counts): a function of the confusion alone, so remembered
#: across exports (a few hundred distinct confusions occur; bounded all the same).
_KAPPA_OF: dict[tuple[int, ...], float | None] = {}
_KAPPA_OF_MAX = 1 << 16
#: The confusion's cells as two-letter strings, row-major in ``corpus.kappa``'s code order (B, I, O).
_CELLS = tuple(a + b for a in "BIO" for b in "BIO")
_AGREE = ("BB", "II", "OO")


class RecordFigures:
    """The ``agreement`` field of each exported record, from the project's ROUGE-L and the item's versions."""

    def __init__(self, rouge: RougeResult) -> None:
        self.by_translation = translation_figures(rouge)
        self._kappa_of = _KAPPA_OF
        self._pair_kappa: dict[tuple[str, str], float | None] = {}
        self._disagreement: dict[tuple[str, ...], float] = {}
        self._pair: dict[tuple[str, str], tuple[float, float | None]] = {}

    def pair_kappa(self, a: str, b: str) -> float | None:
        """``corpus.kappa``'s Cohen's kappa of two annotators' tags of one item, from their 3 x 3 token
        confusion (memoized on it: few distinct confusions occur; and on the pair of tag strings, which
        recur too)."""
        pair = (a, b)
        kappa = self._pair_kappa.get(pair, self)
        if kappa is self:
            kappa = self._pair_kappa[pair] = self._confusion_kappa(a, b)
        return kappa

    def disagreement(self, versions: Sequence[str | list]) -> float:
        """``corpus.bio.token_disagreement`` of an item's versions, memoized on the tag strings (the same
        versions recur across items)."""
        if not all(isinstance(v, str) for v in versions):
            return token_disagreement(versions)
        key = tuple(versions)
        value = self._disagreement.get(key)
        if value is None:
            value = self._disagreement[key] = token_disagreement(versions)
        return value

    def _confusion_kappa(self, a: str, b: str) -> float | None:
        return self._kappa(tuple(np.bincount(tag_codes(a).astype(np.int64) * 3 + tag_codes(b), minlength=9).tolist()))

    def _kappa(self, confusion: tuple[int, ...]) -> float | None:
        kappa = self._kappa_of.get(confusion, self)
        if kappa is self:  # not yet known (None is a kappa: undefined)
            if len(self._kappa_of) >= _KAPPA_OF_MAX:
                self._kappa_of.clear()
            matrix = np.array(confusion, dtype=np.int64).reshape(3, 3)
            kappa = self._kappa_of[confusion] = cohen_from_confusion(matrix).kappa
        return kappa

    def pair_figures(self, a: str, b: str) -> tuple[float, float | None]:
        """Token agreement and Cohen's kappa of an item tagged by two annotators (tag strings of one length):
        ``1 - token_disagreement`` and ``pair_kappa``, both from the pair's token confusion, counted at once
        (memoized on the pair)."""
        pair = (a, b)
        figures = self._pair.get(pair)
        if figures is None:
            cells = Counter(map(add, a, b))
            confusion = tuple(cells[c] for c in _CELLS)
            if sum(confusion) != len(a):  # a tag other than B, I, O: as the general path computes it
                figures = (1.0 - self.disagreement(pair), self.pair_kappa(a, b))
            else:
                n = len(a)
                differing = n - sum(cells[c] for c in _AGREE)
                figures = (1.0 - (differing / n if n else 0.0), self._kappa(confusion))
            self._pair[pair] = figures
        return figures

    def __call__(self, translation_id: int, versions: Sequence[str | list]) -> dict:
        """``versions``: the item's submitted tags by annotator (one letter per token; a list if not B/I/O)."""
        vs_others, phase_mean, in_phase, best = self.by_translation.get(translation_id, (None, None, 1, None))
        figures = {
            "rouge_l_vs_others": vs_others,
            "rouge_l_phase_mean": phase_mean,
            "translations_in_phase": in_phase,
            "best_in_phase": best,
            "annotators": len(versions),
            "token_agreement": None,
            "cohen_kappa": None,
        }
        if len(versions) == 2 and isinstance(versions[0], str) and isinstance(versions[1], str):
            if len(versions[0]) == len(versions[1]):
                figures["token_agreement"], figures["cohen_kappa"] = self.pair_figures(*versions)
        elif len(versions) >= 2 and len({len(v) for v in versions}) == 1:
            figures["token_agreement"] = 1.0 - self.disagreement(versions)
            if all(isinstance(v, str) for v in versions):
                kappas = [k for a, b in combinations(versions, 2) if (k := self.pair_kappa(a, b)) is not None]
                figures["cohen_kappa"] = statistics.fmean(kappas) if kappas else None
        return figures


def pseudonyms(names: set[str], user_order: Sequence[str], role: str) -> dict[str, str]:
    """``role-01``, ``role-02``, ... for ``names`` in the order the users were created."""
    return {name: f"{role}-{i:02d}" for i, name in enumerate(sorted(names, key=user_order.index), 1)}


_TRANSLATOR_KEYS = frozenset({"translator", "translator_a", "translator_b", "best_translator"})  # not-vocabulary: keys
_ANNOTATOR_KEYS = frozenset({"annotator", "annotator_a", "annotator_b"})  # not-vocabulary: keys


def renamed(value, translators: dict[str, str], annotators: dict[str, str]):
    """The report with people's names replaced by their pseudonyms (names not in a map stay as they are)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in _TRANSLATOR_KEYS and isinstance(item, str):
                out[key] = translators.get(item, item)
            elif key in _ANNOTATOR_KEYS and isinstance(item, str):
                out[key] = annotators.get(item, item)
            else:
                out[key] = renamed(item, translators, annotators)
        return out
    if isinstance(value, list):
        return [renamed(item, translators, annotators) for item in value]
    return value
