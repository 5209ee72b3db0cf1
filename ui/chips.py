"""Token chips and highlighted text as HTML for the editor pages. Every token, term and text is escaped,
so a translation holding ``<script>`` or ``<img onerror=...>`` shows as text and never runs."""

from __future__ import annotations

import html
from collections.abc import Collection, Sequence

from corpus.bio import spans_to_tags
from corpus.highlight import bracketed_tokens, highlight_segments

MARK_STYLE = "background:#fff0a8"
_BASE = "display:inline-block;margin:2px 1px;padding:2px 6px;border-radius:6px;font-size:1.05rem;"
_STYLE = {
    "O": _BASE + "border:1px solid #ccc;background:#fafafa;",
    "B": _BASE + "border:2px solid #1b7f4b;border-left-width:6px;background:#d8f3dc;font-weight:600;",
    "I": _BASE + "border:2px solid #1b7f4b;background:#d8f3dc;font-weight:600;",
    "S": _BASE + "border:2px dashed #c77700;background:#fff4dc;",
}


# A token the annotators tag differently: underlined in red (as in the gold editor) and said in its title.
DIFFER_STYLE = "box-shadow:inset 0 -3px 0 #c62828;"


def token_chips(
    tokens: Sequence[str], spans: Sequence[tuple[int, int]] = (), suggested: Sequence[tuple[int, int]] = (),
    differ: Collection[int] = (),
) -> str:
    """One chip per token: aspect spans solid green (B has the thick left edge), suggestions dashed orange;
    tokens at the positions ``differ`` (0-based; e.g. ``corpus.bio.disagreeing_tokens``) underlined in red,
    with ``data-differ`` and "annotators differ" in the title."""
    tags = spans_to_tags(len(tokens), list(spans))
    hinted = {i for s, e in suggested for i in range(s, e)}
    differing = set(differ)
    chips = []
    for i, (token, tag) in enumerate(zip(tokens, tags)):
        style = _STYLE["S"] if tag == "O" and i in hinted else _STYLE[tag]
        kind = "suggestion" if tag == "O" and i in hinted else tag
        mark = ""
        if i in differing:
            style, kind, mark = style + DIFFER_STYLE, kind + " · annotators differ", ' data-differ="1"'
        chips.append(
            f'<span class="tok" data-i="{i}" data-tag="{tag}"{mark} title="token {i + 1}: {kind}" style="{style}">'
            f'{html.escape(token)}<sub style="color:#777;font-size:0.6em;margin-left:2px">{i + 1}</sub></span>'
        )
    return f'<div class="token-chips" lang="hi" style="line-height:2.2">{"".join(chips)}</div>'


def marked_text(text: str, spans: Sequence[tuple[int, int]]) -> str:
    """Plain text with character spans highlighted (the English source and its aspect terms), every piece
    escaped. Which characters are marked is ``corpus.highlight``'s rule: overlapping spans merge."""
    body = "".join(
        f'<mark style="{MARK_STYLE}">{html.escape(piece)}</mark>' if marked else html.escape(piece)
        for piece, marked in highlight_segments(text, spans)
    )
    return f'<div class="source-text" style="white-space:pre-wrap;line-height:1.8">{body}</div>'


def span_text(tokens: Sequence[str], span: tuple[int, int]) -> str:
    return " ".join(tokens[span[0]:span[1]])


def span_where(span: tuple[int, int]) -> str:
    """Token positions as people count them (from 1)."""
    return f"token {span[0] + 1}" if span[1] - span[0] == 1 else f"tokens {span[0] + 1}–{span[1]}"


def tagging_lines(tokens: Sequence[str], spans: Sequence[tuple[int, int]], no_aspects: bool = False) -> list[str]:
    """A tagging as lines of plain text (for ``st.text``, e.g. in the conflict panel): the tokens with each
    span in brackets, then each span and where it is."""
    lines = [bracketed_tokens(tokens, spans)]
    lines += [f"• {span_text(tokens, span)}  ({span_where(span)})" for span in spans]
    if no_aspects:
        lines.append("No aspects in this sentence.")
    return lines


_DIFF_STYLE = {
    "same": "",
    "added": "background:#d8f3dc;border-bottom:2px solid #1b7f4b;",
    "removed": "background:#fde2e1;text-decoration:line-through;color:#8a1c1c;",
}


def diff_html(diff) -> str:
    """A ``corpus.word_diff`` result as escaped HTML: added words green, removed words struck through red,
    each with a title so the change is not told by colour alone."""
    words = []
    for token in diff:
        title = "" if token.change == "same" else f' title="{token.change}"'
        style = _DIFF_STYLE[token.change]
        words.append(f'<span class="diff-{token.change}"{title} style="{style}">{html.escape(token.text)}</span>')
    return f'<div class="word-diff" lang="hi" style="line-height:1.9">{" ".join(words)}</div>'
