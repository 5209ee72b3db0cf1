"""Behaviour of the aspect map's helpers that a mutation run over corpus/aspect_map.py (docs/mutation.md) found
no test pinned: which links the rule looks at, the words a refusal names, a stale selection never wrapping
round or ending the map early. Each test names the mutants it kills (``mutmut show
corpus.aspect_map.x_<function>__mutmut_<n>``), each planted by hand and seen to fail its test."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from corpus.aspect_map import (
    CUTS_A_WORD,
    OUTSIDE_THE_TEXT,
    MapLink,
    NotContiguous,
    links_of_map,
    map_refusals,
    relocate,
    selection_to_span,
    span_to_selection,
)
from corpus.tokens import tokenize_with_offsets

HINDI = "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।"  # लेकिन 0:5, स्टाफ़ 6:12, हमारे 13:18
TOKENS = tokenize_with_offsets(HINDI)


@dataclass(frozen=True)
class Marked:
    tokens: tuple[int, int] | None = None
    dropped: bool = False
    reason: str | None = None


def test_a_link_with_half_a_span_marks_nothing_and_a_dropped_link_keeps_no_span_to_check():
    # map_refusals 15: ``start is None or end is None`` -> ``and`` compared None with an int (a TypeError);
    # 16: ``dropped or ...`` -> ``dropped and ...`` checked the stale span of a dropped aspect
    assert map_refusals(HINDI, [(0, 6, None, False), (1, None, 12, False)], (0, 1)) == []
    assert map_refusals(HINDI, [(0, 900, 999, True)], (0,)) == []


@pytest.mark.parametrize(("start", "end", "where"), [
    (5, 12, "starts or ends in the space between words"),  # the word before ends where the span starts
    (6, 13, "starts or ends in the space between words"),  # the word after starts where the span ends
    (1, 6, "cuts “लेकिन”"),  # not the next word, which starts where the span ends
    (0, 8, "cuts “स्टाफ़”"),  # not the whole first word, which starts where the span does
    (1, 12, "cuts “लेकिन”"),  # not the whole word the span ends with
    (1, 11, "cuts “लेकिन”, “स्टाफ़”"),
])
def test_a_refusal_names_exactly_the_words_the_span_cuts(start, end, where):
    # _span_refusal 25, 26, 28, 29: the bounds deciding which words are cut; 32, 34-36: the wording
    [refusal] = map_refusals(HINDI, [(0, start, end, False)], (0,))
    assert refusal.message == (f"aspect 0's span {start}:{end} (“{HINDI[start:end]}”) {where}; "
                               f"aspect-map rule: {CUTS_A_WORD}")


def test_a_span_outside_the_text_says_how_long_the_text_is_or_that_there_is_none():
    # _span_refusal 8, 10-12
    [long] = map_refusals(HINDI, [(0, 30, 40, False)], (0,))
    [none] = map_refusals(None, [(0, 0, 5, False)], (0,))
    assert long.message == f"aspect 0's span 30:40 is outside the translation (36 characters); " \
                           f"aspect-map rule: {OUTSIDE_THE_TEXT}"
    assert none.message.startswith("aspect 0's span 0:5 is outside the translation (it has no text);")


def test_an_aspect_whose_words_are_gone_leaves_the_aspects_after_it_mapped():
    # links_of_map 21: ``continue`` -> ``break`` dropped every aspect after the first stale one
    links, problems = links_of_map(TOKENS, [(1, "staff"), (2, "food")], {1: Marked((40, 41)), 2: Marked((0, 1))})
    assert links == [MapLink(2, 0, 5)]
    assert problems == ["the words marked for “staff” are no longer in your translation; mark them again"]


@pytest.mark.parametrize("indices", [[-1], [len(TOKENS)], [len(TOKENS) - 1, len(TOKENS)]])
def test_a_selection_outside_the_tokens_is_refused_never_wrapped_round(indices):
    # selection_to_span 6: ``i < 0 or i >= n`` -> ``and`` let -1 select the last token; 9-12: the message
    with pytest.raises(IndexError, match="^selection_to_span: token index out of range$"):
        selection_to_span(TOKENS, indices)


def test_a_selection_with_a_gap_asks_for_words_next_to_each_other():
    # selection_to_span 20-22: the message the translator reads
    with pytest.raises(NotContiguous, match="^select words that are next to each other$"):
        selection_to_span(TOKENS, [0, 2])


@pytest.mark.parametrize("indices", [[3], [2, 3], [5]])
def test_a_selection_past_the_old_words_carries_nothing_over(indices):
    # relocate 4, 8: ``not chosen or chosen[-1] >= len(old)`` -> ``and`` / ``>`` read past the old words
    assert relocate(["क", "ख", "ग"], indices, ["क", "ख", "ग"]) == []


@pytest.mark.parametrize(("start", "end", "selected"), [
    (6, 12, [1]),  # one word
    (0, 12, [0, 1]),  # two words
    (None, 12, []), (6, None, []),  # no span stored
    (6, 11, []),  # the span cuts its last word: nothing selected, never a part
    (7, 12, []),  # the span starts inside its word
    (5, 12, []),  # the span starts on a space
    (30, 40, []),  # beyond the last word
])
def test_a_stored_span_selects_its_whole_words_or_nothing(start, end, selected):
    # span_to_selection (no test reached it): what the editor shows selected for a stored map
    assert span_to_selection(TOKENS, start, end) == selected
