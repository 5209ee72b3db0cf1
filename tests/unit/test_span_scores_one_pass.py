"""``span_scores`` extracts the spans once and gives exactly what seqeval's precision_score, recall_score and
f1_score give in strict IOB2 mode (the baseline's figures did not move when it stopped calling all three)."""

from __future__ import annotations

import pytest
from seqeval.metrics import f1_score, precision_score, recall_score
from seqeval.scheme import IOB2

from corpus.baseline import span_scores

CASES = [
    ([["B", "I", "O", "B"], ["O", "B", "O"]], [["B", "O", "O", "B"], ["O", "B", "I"]]),  # cut short, I after B
    ([["O", "B"]], [["I", "B"]]),  # a stray I is no span in strict IOB2
    ([["O", "O"]], [["O", "O"]]),  # no spans on either side: zero division
    ([["B", "O"]], [["O", "O"]]),  # nothing predicted
    ([["O", "O"]], [["B", "I"]]),  # nothing to find
    ([["B", "I", "I"], ["B", "B"]], [["B", "I", "I"], ["B", "B"]]),  # perfect
]


def _typed(rows):
    return [[t if t == "O" else f"{t}-ASP" for t in row] for row in rows]


@pytest.mark.parametrize(("gold", "predicted"), CASES)
def test_span_scores_equal_seqevals_three_functions_in_strict_mode(gold, predicted):
    kwargs = {"mode": "strict", "scheme": IOB2, "zero_division": 0}
    expected = {name: float(fn(_typed(gold), _typed(predicted), **kwargs))
                for name, fn in (("precision", precision_score), ("recall", recall_score), ("f1", f1_score))}
    assert span_scores(gold, predicted) == expected
