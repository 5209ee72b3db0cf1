"""The span editor: one widget where an annotator (or a lead editing gold) marks aspect spans directly on
the frozen tokens of an item.

Every selection step (click, drag, shift-click, arrow keys, tab to a suggestion) happens in the browser;
the server hears about a change only when it is committed (mark, unmark, accept, reject, undo, redo,
submit, next/previous item), as ONE state value carrying the item it was made on, the whole new span list
and the actions the page has not acknowledged yet.
The page refuses a commit that names another item than the one the editor was mounted for, so a value
can never land on the wrong item. Tokens reach the DOM only through ``textContent``.

Keys (also in the guideline expander and the README): see ``KEYS``; the browser's key map is ``keyCommand`` in
``ui/components/span_editor/model.js``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from corpus.bio import Span, parse_spans
from corpus.projection import AWARE
from ui.components import asset, bundle

ACTIONS = ("mark", "unmark", "accept", "reject", "undo", "redo", "submit", "next", "prev")  # not-vocabulary: events
EDITS = ("mark", "unmark", "accept", "reject", "undo", "redo")

KEYS: list[tuple[str, str]] = [
    ("click · drag · Shift+click", "select tokens (whole tokens only)"),
    ("← / →", "move the cursor"),
    ("Shift+← / Shift+→", "extend the selection"),
    ("Enter or A", "mark the selection as an aspect (or accept the suggestion)"),
    ("Backspace / Delete", "remove the selected aspect"),
    ("Tab / Shift+Tab", "next / previous suggestion (dashed)"),
    ("X", "reject the suggestion"),
    ("Shift+A", "accept every open suggestion (then Ctrl+Enter submits)"),
    ("Ctrl+Shift+Enter", "accept every open suggestion and submit"),
    ("Ctrl+Z / Ctrl+Shift+Z", "undo / redo within the item"),
    ("N or J / P or K", "next / previous item"),
    ("Ctrl+Enter", "submit and open the next unfinished item"),
    ("Esc", "clear the selection"),
]


def keys_markdown() -> str:
    """The key table as Markdown (guideline expander, README)."""
    rows = "\n".join(f"| {k} | {what} |" for k, what in KEYS)
    return f"| Keys | Action |\n|---|---|\n{rows}"


@dataclass(frozen=True)
class Commit:
    """The editor's state after its latest committed change, with every change the page has not yet
    acknowledged (``actions``: (seq, action) pairs, oldest first). Spans are the whole list, so saving the
    latest state covers every edit; a submit or a move among the actions must still happen."""

    item: int
    seq: int
    spans: list[Span]
    rejected: list[Span]
    actions: tuple[tuple[int, str], ...]
    keys: int | None = None  # key presses and clicks in the editor on this item since it was mounted

    def since(self, ack: int) -> list[str]:
        """The actions the page has not handled yet (it has handled everything up to ``ack``)."""
        return [action for seq, action in self.actions if seq > ack]


def read_commit(raw: Any, item: int, n_tokens: int) -> Commit | None:
    """The editor's committed value if it was made on ``item``; None for a value about another item.
    Malformed spans are a ValueError (the editor never sends them); unknown actions are dropped."""
    if not isinstance(raw, dict) or raw.get("item") != item:
        return None
    seq = raw.get("seq")
    actions = tuple(
        (a["seq"], a["action"]) for a in raw.get("actions") or []
        if isinstance(a, dict) and isinstance(a.get("seq"), int) and a.get("action") in ACTIONS
    )
    return Commit(
        item=item,
        seq=seq if isinstance(seq, int) else max((s for s, _ in actions), default=0),
        spans=parse_spans(raw.get("spans") or [], n_tokens),
        rejected=parse_spans(raw.get("rejected") or [], n_tokens, overlapping=True),
        actions=actions,
        keys=raw["keys"] if isinstance(raw.get("keys"), int) and raw["keys"] >= 0 else None,
    )


# The editor's JavaScript and CSS are files (ui/components/span_editor/: index.js, its pure parts model.js,
# style.css), linted by eslint and tested by node --test (tests/js/span_editor.test.mjs).
_CSS = asset("span_editor/style.css")
_JS = bundle("span_editor/index.js")

_component = st.components.v2.component("corpus_tool_span_editor", css=_CSS, js=_JS, isolate_styles=False)

HINTS = ("Click/drag tokens · Enter or A mark · Backspace remove · Tab suggestion, Enter accept, X reject · "
         "Shift+A accept all · Ctrl+Z undo · N/P next/previous · Ctrl+Enter submit")


SOURCE_NAMES = {"map": "the translator's aspect map", AWARE: "the aware translations' aspect maps",
                "glossary": "the glossary", "transliteration": "the loanword's transliteration", "crf": "the model",
                "llm": "the local language model"}


def _suggestion(span: Span, term: str, confidence: float | None = None, source: str | None = None) -> dict:
    """A suggestion for the editor: the aspect map's name the English term; the model's carry its confidence,
    which the token's title shows ("model suggestion, confidence 87%"); a projected one names its source and
    term ("suggested for “staff” from the aware translations' aspect maps · 95%")."""
    out = {"span": list(span), "term": term}
    if confidence is not None:
        out["confidence"] = float(confidence)
    if source is not None and source not in ("map", "crf"):  # the two older kinds keep their plain form
        out["source"] = source
        out["title"] = f"suggested for “{term}” from {SOURCE_NAMES.get(source, source)}" + (
            f" · {confidence:.0%}" if confidence is not None else "")
    return out


def span_editor(
    key: str,
    *,
    item: int,
    label: str,
    tokens: Sequence[str],
    spans: Sequence[Span],
    on_commit: Callable[[Commit], None],
    suggestions: Sequence[tuple[Span, str] | tuple[Span, str, float | None] | tuple[Span, str, float | None, str]] = (),
    rejected: Sequence[Span] = (),
    readonly: bool = False,
    ack: int = 0,
    status: tuple[str, str] = ("", ""),
    disagree: Sequence[int] = (),
    hints: str = HINTS,
    on_refused: Callable[[str], None] | None = None,
) -> None:
    """Mount the editor for one item. ``on_commit`` receives a committed change made on THIS item only;
    ``ack`` is the last commit the page has handled (until the page catches up the editor keeps its own
    newer state); ``status`` is (kind, text) for the fixed status line: kind ok, error, info or "".
    A malformed value (which the editor never sends) goes to ``on_refused`` and changes nothing."""

    def committed() -> None:
        raw = getattr(st.session_state.get(key), "commit", None)
        try:
            commit = read_commit(raw, item, len(tokens))
        except ValueError as exc:
            if on_refused is not None:
                on_refused(f"Not saved: {exc}")
            return
        if commit is not None:
            on_commit(commit)

    _component(
        key=key,
        data={
            "item": item, "label": label, "tokens": list(tokens), "spans": [list(s) for s in spans],
            "suggestions": [_suggestion(*s) for s in suggestions],
            "rejected": [list(s) for s in rejected], "readonly": readonly, "ack": ack,
            "status": {"kind": status[0], "text": status[1]}, "disagree": list(disagree), "hints": hints,
            "focus": True,
        },
        on_commit_change=committed,
    )
