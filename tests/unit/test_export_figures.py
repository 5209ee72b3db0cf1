"""A record's agreement figures equal what ``corpus.bio`` and ``corpus.kappa`` compute for the item's versions,
whichever way ``corpus.export.figures.RecordFigures`` counts them (two annotators' tag strings: one confusion)."""

from __future__ import annotations

import statistics
from itertools import combinations

import numpy as np
import pytest

from corpus.agreement import MetricsInput, rouge_agreement
from corpus.bio import token_disagreement
from corpus.export.figures import RecordFigures
from corpus.kappa import cohen_from_confusion, tag_codes


def _figures() -> RecordFigures:
    return RecordFigures(rouge_agreement(MetricsInput(sentences=[], translations=[])))


def _expected(versions) -> tuple[float | None, float | None]:
    """Token agreement and mean Cohen's kappa straight from the one implementation, pair by pair."""
    if len(versions) < 2 or len({len(v) for v in versions}) != 1:
        return None, None
    agreement = 1.0 - token_disagreement(versions)
    if not all(isinstance(v, str) for v in versions):
        return agreement, None
    kappas = []
    for a, b in combinations(versions, 2):
        confusion = np.bincount(tag_codes(a).astype(np.int64) * 3 + tag_codes(b), minlength=9).reshape(3, 3)
        if (k := cohen_from_confusion(confusion).kappa) is not None:
            kappas.append(k)
    return agreement, statistics.fmean(kappas) if kappas else None


@pytest.mark.parametrize("versions", [
    ["OBIOO", "OBIOO"],  # full agreement
    ["OBIOO", "OBOOO"],
    ["BIIIO", "OOOBI"],
    ["OOOO", "OOOO"],  # one label everywhere: kappa undefined
    ["", ""],  # no tokens
    ["B", "O"],
    ["OBIOO", "OBIO"],  # different lengths: no figure
    ["OBIOO", "OBOOO", "BIOOO"],  # three annotators
    ["OBIOO"],  # one annotator
    [["O", "B-X", "O"], ["O", "B-X", "O"]],  # tags other than B, I, O are kept as lists
])
def test_a_records_token_agreement_and_kappa_are_the_one_implementations(versions):
    figures = _figures()
    for _ in range(2):  # the second time from the memo
        got = figures(7, versions)
        assert (got["token_agreement"], got["cohen_kappa"]) == _expected(versions)
        assert got["annotators"] == len(versions)


def test_the_same_pair_in_either_order_and_after_other_pairs_gives_the_same_figures():
    figures = _figures()
    pairs = [("OBIOOBO", "OBOOOBO"), ("OBOOOBO", "OBIOOBO"), ("BIIOOOO", "OOOOOOB"), ("OBIOOBO", "OBOOOBO")]
    for a, b in pairs:
        got = figures(1, [a, b])
        assert (got["token_agreement"], got["cohen_kappa"]) == _expected([a, b])
