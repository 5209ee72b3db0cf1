"""Spans <-> BIO: the one module every screen, metric and exporter relies on."""

from __future__ import annotations

import pytest

from corpus.bio import (
    char_span_to_token_span,
    char_spans_to_tags,
    repair_tags,
    selection_to_span,
    spans_to_tags,
    tags_agree,
    tags_to_spans,
    token_disagreement,
    validate_tags,
)
from corpus.tokens import normalize, tokenize, tokenize_with_offsets

HINDI = "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।"
MIXED = "Sony का कीबोर्ड और battery life अच्छी है, लेकिन स्क्रीन रिज़ॉल्यूशन ख़राब।"


def test_devanagari_tokens_keep_matras_and_nukta_inside_words():
    assert tokenize(HINDI) == ["लेकिन", "स्टाफ़", "हमारे", "साथ", "बहुत", "बुरा", "था", "।"]


@pytest.mark.parametrize(
    ("text", "spans", "tags"),
    [
        (HINDI, [(1, 2)], ["O", "B", "O", "O", "O", "O", "O", "O"]),
        (HINDI, [], ["O"] * 8),
        # Sony का कीबोर्ड और battery life अच्छी है , लेकिन स्क्रीन रिज़ॉल्यूशन ख़राब ।
        (MIXED, [(2, 3), (4, 6), (10, 12)], ["O", "O", "B", "O", "B", "I", "O", "O", "O", "O", "B", "I", "O", "O"]),
        ("", [], []),
    ],
    ids=["devanagari-single", "devanagari-none", "mixed-multiword", "empty-sentence"],
)
def test_spans_and_tags_round_trip(text, spans, tags):
    tokens = tokenize(text)
    assert spans_to_tags(len(tokens), spans) == tags
    assert tags_to_spans(tags) == spans
    assert validate_tags(tags) == []


def test_adjacent_spans_stay_two_aspects():
    tags = spans_to_tags(4, [(0, 2), (2, 3)])
    assert tags == ["B", "I", "B", "O"]
    assert tags_to_spans(tags) == [(0, 2), (2, 3)]


@pytest.mark.parametrize(
    ("spans", "message"),
    [
        ([(0, 2), (1, 3)], "overlaps"),
        ([(2, 2)], "empty"),
        ([(3, 5)], "outside"),
        ([(-1, 1)], "outside"),
    ],
)
def test_spans_that_cannot_be_tagged_are_rejected(spans, message):
    with pytest.raises(ValueError, match=message):
        spans_to_tags(4, spans)


@pytest.mark.parametrize(
    ("tags", "problems"),
    [
        (["I", "O"], ["token 1: I starts the sentence"]),
        (["O", "I"], ["token 2: I follows O"]),
        (["B", "O", "I", "I"], ["token 3: I follows O"]),
        (["B", "X"], ["token 2: unknown tag 'X' (expected B, I or O)"]),
        (["b", "O"], ["token 1: unknown tag 'b' (expected B, I or O)"]),
        (["B", "I", "B", "I", "O"], []),
        ([], []),
    ],
)
def test_invalid_sequences_are_reported_with_their_position(tags, problems):
    assert [str(p) for p in validate_tags(tags)] == problems


def test_tags_to_spans_refuses_an_invalid_sequence():
    with pytest.raises(ValueError, match="token 2: I follows O"):
        tags_to_spans(["O", "I"])


def test_repair_reports_what_it_changed_and_leaves_the_input_alone():
    tags = ["O", "I", "I", "O", "I"]
    repaired, problems = repair_tags(tags)
    assert repaired == ["O", "B", "I", "O", "B"]
    assert [p.position for p in problems] == [1, 4]
    assert tags == ["O", "I", "I", "O", "I"]


@pytest.mark.parametrize(
    ("selection", "span"),
    [([1], (1, 2)), ([3, 2, 4], (2, 5)), ([5, 5], (5, 6))],
)
def test_a_consecutive_selection_becomes_one_span(selection, span):
    assert selection_to_span(selection) == span


@pytest.mark.parametrize(("selection", "message"), [([1, 3], "gap"), ([], "at least one")])
def test_a_selection_with_a_gap_or_nothing_is_not_a_span(selection, message):
    with pytest.raises(ValueError, match=message):
        selection_to_span(selection)


def test_char_spans_map_to_whole_devanagari_tokens():
    tokens = tokenize_with_offsets(MIXED)
    text = normalize(MIXED)
    start = text.index("कीबोर्ड")
    # A span cutting the word (without its last matra) still covers the whole token.
    assert char_span_to_token_span(tokens, start, start + 3) == (2, 3)
    life = text.index("battery life")
    assert char_span_to_token_span(tokens, life, life + len("battery life")) == (4, 6)
    assert (tokens[4].start, tokens[5].end) == (life, life + len("battery life"))
    assert char_span_to_token_span(tokens, text.index(" और"), text.index(" और") + 1) is None
    tags = char_spans_to_tags(tokens, [(start, start + len("कीबोर्ड")), (life, life + 7), (life, life + 12)])
    assert tags[:6] == ["O", "O", "B", "O", "B", "I"]


def test_agreement_and_disagreement_over_the_same_tokens():
    a = ["O", "B", "I", "O"]
    b = ["O", "B", "O", "O"]
    assert tags_agree([a, list(a)])
    assert not tags_agree([a, b])
    assert not tags_agree([])
    assert token_disagreement([a, b]) == 0.25
    assert token_disagreement([a, a]) == 0.0
    assert token_disagreement([[], []]) == 0.0
    with pytest.raises(ValueError, match="different numbers"):
        token_disagreement([a, ["O"]])
