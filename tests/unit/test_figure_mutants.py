"""Hand-checked values for changes a mutation run (docs/mutation.md) made to the figure modules and the
unit tests did not notice. Each test names the survivor it kills."""

import numpy as np
import pytest

from corpus.bio import spans_to_tags, token_disagreement
from corpus.kappa import KappaResult, PairTally, cohen_from_confusion, pair_tallies, per_annotator_tallies, span_f1
from corpus.rouge import WordNumbering, word_id_arrays


def test_a_span_may_end_at_the_last_token():
    # bio.spans_to_tags: ``end <= n_tokens`` -> ``end < n_tokens`` refused every aspect at a sentence's end
    assert spans_to_tags(3, [(1, 3)]) == ["O", "B", "I"]
    assert spans_to_tags(1, [(0, 1)]) == ["B"]
    with pytest.raises(ValueError):
        spans_to_tags(3, [(1, 4)])


def test_no_annotations_is_no_disagreement():
    # bio.token_disagreement: nothing to disagree on is 0, not 1
    assert token_disagreement([]) == 0.0
    assert token_disagreement([[], []]) == 0.0
    assert token_disagreement([["O", "B"], ["O", "O"]]) == 0.5


def _tally(spans_a: int, spans_b: int, matched: int) -> PairTally:
    return PairTally(np.zeros((3, 3), dtype=np.int64), 1, spans_a, spans_b, matched)


def test_span_f1_is_undefined_only_when_nobody_marked_a_span():
    # kappa.span_f1: ``total == 0`` -> ``total == 1``
    assert span_f1(_tally(0, 0, 0)) == (None, "no aspect spans marked by either annotator")
    assert span_f1(_tally(1, 0, 0)) == (0.0, None)  # one span, unmatched: F1 0, not undefined
    assert span_f1(_tally(1, 1, 1)) == (1.0, None)


def test_cohen_of_nothing_or_one_label_says_why_over_how_many():
    # kappa.cohen_from_confusion: the items and raters of an undefined kappa
    assert cohen_from_confusion(np.zeros((3, 3), dtype=np.int64)) == KappaResult(
        None, "no tokens tagged by both annotators", 0, 2)
    only_o = cohen_from_confusion(np.array([[0, 0, 0], [0, 0, 0], [0, 0, 7]]))
    assert (only_o.kappa, only_o.items, only_o.raters) == (None, 7, 2)
    assert "(O)" in only_o.reason
    # integer counts give the float computation's value (kappa = (po - pe) / (1 - pe) by hand: 0.6)
    counts = np.array([[4, 0, 1], [0, 0, 0], [1, 0, 4]])
    assert cohen_from_confusion(counts).kappa == pytest.approx(0.6, abs=1e-12)


def test_pooled_tallies_keep_every_count_of_both_orientations():
    # kappa.PairTally.flipped / __iadd__ / per_annotator_tallies
    tallies = pair_tallies([{"arjun": "BOO", "meera": "BOB"}, {"arjun": "OBI", "meera": "OBI"}])
    ((a, b), tally), = tallies.items()
    assert (a, b) == ("arjun", "meera")
    assert (tally.translations, tally.spans_a, tally.spans_b, tally.matched) == (2, 2, 3, 2)
    flipped = tally.flipped()
    assert (flipped.translations, flipped.spans_a, flipped.spans_b, flipped.matched) == (2, 3, 2, 2)
    assert (flipped.confusion == tally.confusion.T).all()
    pooled = per_annotator_tallies(tallies)
    assert (pooled["meera"].spans_a, pooled["meera"].spans_b, pooled["meera"].translations) == (3, 2, 2)
    assert (pooled["meera"].confusion == tally.confusion.T).all()


def test_word_numbers_are_shared_through_a_given_numbering():
    # rouge word numbering: a numbering passed in numbers the words of later calls the same way
    numbering = WordNumbering()
    first, _ = word_id_arrays(["खाना अच्छा था"], numbering)
    second, counts = word_id_arrays(["था खाना"], numbering)
    assert second.tolist() == [first[2], first[0]] and counts.tolist() == [2]
    assert len(numbering.vocabulary) == 3


def test_adjacent_aspects_stay_two_spans_and_overlapping_ones_merge():
    # bio.char_spans_to_tags: ``<`` -> ``<=`` merged touching spans; ``and`` -> ``or`` let a span of no token in
    from corpus.bio import char_spans_to_tags
    from corpus.tokens import tokenize_with_offsets

    tokens = tokenize_with_offsets("खाना सेवा अच्छी थी")
    assert char_spans_to_tags(tokens, [(0, 4), (5, 9)]) == ["B", "B", "O", "O"]  # two aspects side by side
    assert char_spans_to_tags(tokens, [(0, 9), (5, 15)]) == ["B", "I", "I", "O"]  # overlapping: one span
    assert char_spans_to_tags(tokens, [(4, 5), (0, 4), (0, 4)]) == ["B", "O", "O", "O"]  # a space; a repeat
