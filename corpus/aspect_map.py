"""The aspect-aware map as the translator makes it: a selection of canonical tokens of their own
translation, stored as one character span per source aspect. Pure helpers shared by the page and tests."""

from __future__ import annotations

from collections.abc import Sequence

from corpus.tokens import Token


class NotContiguous(ValueError):
    """The selected words are not next to each other; one aspect maps to one span."""


def selection_to_span(tokens: Sequence[Token], indices: Sequence[int]) -> tuple[int, int] | None:
    """The character span covering the selected tokens; None for an empty selection."""
    chosen = sorted(set(indices))
    if not chosen:
        return None
    if any(i < 0 or i >= len(tokens) for i in chosen):
        raise IndexError("selection_to_span: token index out of range")
    if chosen[-1] - chosen[0] + 1 != len(chosen):
        raise NotContiguous("select words that are next to each other")
    return tokens[chosen[0]].start, tokens[chosen[-1]].end


def span_to_selection(tokens: Sequence[Token], start: int | None, end: int | None) -> list[int]:
    """Indices of the tokens lying inside a stored span (empty if the span does not fit the text)."""
    if start is None or end is None:
        return []
    inside = [i for i, t in enumerate(tokens) if t.start >= start and t.end <= end]
    if not inside or tokens[inside[0]].start != start or tokens[inside[-1]].end != end:
        return []
    return inside


def relocate(old: Sequence[str], indices: Sequence[int], new: Sequence[str]) -> list[int]:
    """Carry a selection over to an edited text: the same run of words, nearest its old place;
    empty if those words are no longer there together."""
    chosen = sorted(set(indices))
    if not chosen or chosen[-1] >= len(old):
        return []
    run = [old[i] for i in range(chosen[0], chosen[-1] + 1)]
    n = len(run)
    hits = [i for i in range(len(new) - n + 1) if list(new[i:i + n]) == run]
    if not hits:
        return []
    best = min(hits, key=lambda i: (abs(i - chosen[0]), i))
    return [best + (i - chosen[0]) for i in chosen]
