"""Which part of a text a highlight marks: one rule for every screen that shows aspect terms.

Spans are clipped to the text, empty ones are dropped, and overlapping ones are merged into one mark,
so every highlighted character is marked once and no span's text is lost or shown twice (a source
sentence can name "staff" inside "staff service"). Spans that only touch stay separate marks: two
aspect terms side by side are two terms. The screens escape the pieces themselves (``ui/chips.py``).
"""

from __future__ import annotations

from collections.abc import Sequence


def merged_spans(spans: Sequence[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """``spans`` (half-open [start, end)) clipped to ``0..length``, empty ones dropped, overlapping ones
    merged, in order."""
    clipped = sorted((max(0, start), min(length, end)) for start, end in spans)
    merged: list[tuple[int, int]] = []
    for start, end in clipped:
        if start >= end:
            continue
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def highlight_segments(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[str, bool]]:
    """``text`` cut into consecutive (piece, highlighted) runs by character ``spans``; the pieces join
    back to ``text``. Empty pieces are left out."""
    out: list[tuple[str, bool]] = []
    cursor = 0
    for start, end in merged_spans(spans, len(text)):
        if start > cursor:
            out.append((text[cursor:start], False))
        out.append((text[start:end], True))
        cursor = end
    if cursor < len(text):
        out.append((text[cursor:], False))
    return out


def bracketed_tokens(tokens: Sequence[str], spans: Sequence[tuple[int, int]]) -> str:
    """Tokens joined by spaces with each token span in square brackets: a tagging as plain text
    (``लेकिन [स्टाफ़ सर्विस] बहुत बुरी थी ।``), for places that show text, never HTML."""
    words: list[str] = []
    cursor = 0
    for start, end in merged_spans(spans, len(tokens)):
        words.extend(tokens[cursor:start])
        words.append("[" + " ".join(tokens[start:end]) + "]")
        cursor = end
    words.extend(tokens[cursor:])
    return " ".join(words)
