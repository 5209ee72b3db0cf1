"""Aspect spans <-> BIO tags: the one place tag rules live (tagging UI, metrics, exporters, importers).

Spans are half-open token ranges ``(start, end)``. Plain BIO with one aspect type: ``I`` never
starts a sentence nor follows ``O``. Invalid input is reported, never silently changed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from corpus.tokens import Token

TAGS = ("B", "I", "O")
Span = tuple[int, int]


@dataclass(frozen=True)
class TagProblem:
    position: int
    message: str

    def __str__(self) -> str:
        return f"token {self.position + 1}: {self.message}"


def spans_to_tags(n_tokens: int, spans: Sequence[Span]) -> list[str]:
    """Tags for ``n_tokens`` tokens; overlapping or out-of-range spans are a ValueError."""
    tags = ["O"] * n_tokens
    for start, end in sorted(spans):
        if not 0 <= start < end <= n_tokens:
            raise ValueError(f"span ({start}, {end}) is outside 0..{n_tokens} or empty")
        if any(t != "O" for t in tags[start:end]):
            raise ValueError(f"span ({start}, {end}) overlaps another span")
        tags[start] = "B"
        for i in range(start + 1, end):
            tags[i] = "I"
    return tags


def validate_tags(tags: Sequence[str]) -> list[TagProblem]:
    problems: list[TagProblem] = []
    previous = "O"
    for i, tag in enumerate(tags):
        if tag not in TAGS:
            problems.append(TagProblem(i, f"unknown tag {tag!r} (expected B, I or O)"))
        elif tag == "I" and previous == "O":
            where = "starts the sentence" if i == 0 else "follows O"
            problems.append(TagProblem(i, f"I {where}"))
        previous = tag if tag in TAGS else "O"
    return problems


def annotation_refusal(tags: Sequence[str], n_tokens: int, *, no_aspects: bool = False,
                       submit: bool = False) -> str | None:
    """Why an annotation may not be stored (None: it may), for every path that writes one: the app's save
    (``db.tagging``) and the work-file import (``db.workfile``). One tag per frozen token, valid BIO, "no
    aspects" only without spans, and a submission marks at least one span or says there are none."""
    if len(tags) != n_tokens:
        return f"{len(tags)} tags for {n_tokens} tokens"
    problems = validate_tags(tags)
    if problems:
        return f"invalid BIO sequence: {problems[0]}"
    has_spans = any(t != "O" for t in tags)
    if no_aspects and has_spans:
        return '"No aspects in this sentence" cannot go with marked aspect spans'
    if submit and not (has_spans or no_aspects):
        return 'mark at least one aspect span, or answer "No aspects in this sentence"'
    return None


def tags_to_spans(tags: Sequence[str]) -> list[Span]:
    """Spans of valid tags; invalid sequences are a ValueError naming the first problem."""
    problems = validate_tags(tags)
    if problems:
        raise ValueError(f"invalid BIO sequence: {problems[0]}")
    spans: list[Span] = []
    start = None
    for i, tag in enumerate(tags):
        if tag != "I" and start is not None:
            spans.append((start, i))
            start = None
        if tag == "B":
            start = i
    if start is not None:
        spans.append((start, len(tags)))
    return spans


def repair_tags(tags: Sequence[str]) -> tuple[list[str], list[TagProblem]]:
    """The conventional repair (stray I becomes B) with the problems it fixed, for the caller to report."""
    problems = validate_tags(tags)
    repaired = list(tags)
    for p in problems:
        if repaired[p.position] == "I":
            repaired[p.position] = "B"
    return repaired, problems


def char_span_to_token_span(tokens: Sequence[Token], start: int, end: int) -> Span | None:
    """The tokens a character span touches, or None if it touches none."""
    inside = [i for i, t in enumerate(tokens) if t.start < end and t.end > start]
    if not inside:
        return None
    return inside[0], inside[-1] + 1


def char_spans_to_tags(tokens: Sequence[Token], char_spans: Sequence[tuple[int, int]]) -> list[str]:
    """BIO over tokens from character spans (e.g. SemEval offsets); a span that cuts a token covers all of it."""
    token_spans = []
    for start, end in char_spans:
        span = char_span_to_token_span(tokens, start, end)
        if span is not None and span not in token_spans:
            token_spans.append(span)
    merged: list[Span] = []
    for s in sorted(token_spans):
        if merged and s[0] < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], s[1]))
        else:
            merged.append(s)
    return spans_to_tags(len(tokens), merged)


def selection_to_span(indices: Sequence[int]) -> Span:
    """The span of a token selection; the tagging UI only lets consecutive tokens form a span."""
    chosen = sorted(set(indices))
    if not chosen:
        raise ValueError("select at least one token")
    if chosen[-1] - chosen[0] + 1 != len(chosen):
        raise ValueError("an aspect span is consecutive tokens: the selection has a gap")
    return chosen[0], chosen[-1] + 1


def tags_agree(tag_lists: Sequence[Sequence[str]]) -> bool:
    """Whether every annotator gave the same tags (an item with fewer than one version does not agree)."""
    if not tag_lists:
        return False
    first = list(tag_lists[0])
    return all(list(t) == first for t in tag_lists[1:])


def token_disagreement(tag_lists: Sequence[Sequence[str]]) -> float:
    """Share of tokens on which the annotators do not all give the same tag (0 = full agreement)."""
    if not tag_lists:
        return 0.0
    n = len(tag_lists[0])
    if any(len(t) != n for t in tag_lists):
        raise ValueError("tag lists cover different numbers of tokens")
    if n == 0:
        return 0.0
    differing = sum(1 for i in range(n) if len({t[i] for t in tag_lists}) > 1)
    return differing / n


def parse_spans(raw: object, n_tokens: int, overlapping: bool = False) -> list[Span]:
    """Spans sent by a client (lists of two ints) checked against ``n_tokens``: sorted, deduplicated,
    inside the sentence, and (unless ``overlapping``) not overlapping. Anything else is a ValueError,
    never silently repaired."""
    if not isinstance(raw, (list, tuple)):
        raise ValueError("spans must be a list of [start, end] pairs")
    spans: set[Span] = set()
    for pair in raw:
        if (not isinstance(pair, (list, tuple)) or len(pair) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in pair)):
            raise ValueError(f"not a [start, end] pair of token positions: {pair!r}")
        start, end = pair
        if not 0 <= start < end <= n_tokens:
            raise ValueError(f"span ({start}, {end}) is outside 0..{n_tokens} or empty")
        spans.add((start, end))
    ordered = sorted(spans)
    if not overlapping:
        for a, b in zip(ordered, ordered[1:]):
            if b[0] < a[1]:
                raise ValueError(f"span {b} overlaps span {a}")
    return ordered


def disagreeing_tokens(tag_lists: Sequence[Sequence[str]]) -> list[int]:
    """Positions where the annotators' tags are not all the same (what an adjudicator looks at first)."""
    if not tag_lists:
        return []
    n = len(tag_lists[0])
    if any(len(t) != n for t in tag_lists):
        raise ValueError("tag lists cover different numbers of tokens")
    return [i for i in range(n) if len({t[i] for t in tag_lists}) > 1]
