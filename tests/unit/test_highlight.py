"""The one highlight rule (corpus/highlight.py): what a mark covers when aspect spans overlap, touch,
run past the text or are empty. Every screen that marks aspect terms goes through it."""

from __future__ import annotations

import pytest

from corpus.highlight import bracketed_tokens, highlight_segments, merged_spans

TEXT = "But the staff service was bad."
STAFF = (TEXT.index("staff"), TEXT.index("staff") + len("staff"))
STAFF_SERVICE = (STAFF[0], TEXT.index("service") + len("service"))
SERVICE = (TEXT.index("service"), STAFF_SERVICE[1])


@pytest.mark.parametrize(
    ("spans", "merged"),
    [
        ([], []),
        ([STAFF_SERVICE, STAFF], [STAFF_SERVICE]),  # one inside the other: one mark, the longer
        ([(8, 15), (12, 21)], [(8, 21)]),  # partly overlapping: one mark over both
        ([(4, 7), (8, 13)], [(4, 7), (8, 13)]),  # apart
        ([(4, 8), (8, 13)], [(4, 8), (8, 13)]),  # touching: two terms side by side stay two marks
        ([(5, 5), (9, 3)], []),  # empty and reversed spans mark nothing
        ([(-4, 3), (25, 99)], [(0, 3), (25, 30)]),  # clipped to the text
        ([(8, 13), (8, 13)], [(8, 13)]),  # the same span twice is marked once
    ],
)
def test_spans_merge_only_where_they_overlap(spans, merged):
    assert merged_spans(spans, len(TEXT)) == merged


def test_overlapping_aspects_mark_every_character_once_and_lose_no_text():
    segments = highlight_segments(TEXT, [SERVICE, STAFF, STAFF_SERVICE])
    assert segments == [("But the ", False), ("staff service", True), (" was bad.", False)]
    assert "".join(piece for piece, _ in segments) == TEXT


def test_touching_aspects_are_two_marks():
    assert highlight_segments("ab", [(0, 1), (1, 2)]) == [("a", True), ("b", True)]


def test_a_tagging_as_text_brackets_each_span():
    tokens = ["लेकिन", "स्टाफ़", "सर्विस", "बहुत", "बुरी", "थी", "।"]
    assert bracketed_tokens(tokens, [(1, 3), (4, 5)]) == "लेकिन [स्टाफ़ सर्विस] बहुत [बुरी] थी ।"
    assert bracketed_tokens(tokens, [(1, 2), (2, 3)]) == "लेकिन [स्टाफ़] [सर्विस] बहुत बुरी थी ।"
    assert bracketed_tokens(tokens, []) == " ".join(tokens)
