"""HTML for highlighted text. Every user string is escaped here: text is rendered as text, never as markup."""

from __future__ import annotations

import html
from collections.abc import Sequence

MARK_STYLE = "background:#fde68a;border-radius:3px;padding:0 2px"


def highlight_spans_html(text: str, spans: Sequence[tuple[int, int]], title: str = "aspect term") -> str:
    """``text`` with the character spans wrapped in <mark>; overlapping spans are merged."""
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, cursor = [], 0
    for start, end in merged:
        out.append(html.escape(text[cursor:start]))
        out.append(f'<mark style="{MARK_STYLE}" title="{html.escape(title)}">{html.escape(text[start:end])}</mark>')
        cursor = end
    out.append(html.escape(text[cursor:]))
    return '<div style="font-size:1.1rem;line-height:1.8;white-space:pre-wrap">' + "".join(out) + "</div>"
