"""One panel for "someone saved first" (``db.conflicts.SavedFirst``) on every editor page.

A refused save is shown the same way on Translate, Tag aspects, Adjudication and Final translations:
what happened (who saved, when), the author's version beside the stored one, and two buttons, one to
keep the stored version and one to replace it with theirs knowingly. The page says what each version is
(``Side``) and what each button does (``Choice``); the panel shows every string as text (titles and
notes through ``md_escape``, the versions through ``st.text``), never as HTML.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from db.conflicts import SavedFirst
from ui.text import md_escape

NOTHING_WRITTEN = "Nothing was overwritten: compare the two versions and choose which one to keep."
EMPTY = "(empty)"


@dataclass(frozen=True)
class Side:
    """One version as a person reads it: a title, an optional note under it, and the version as lines of text."""

    title: str
    lines: Sequence[str] = ()
    note: str | None = None


@dataclass(frozen=True)
class Choice:
    """A button of the panel: its label, widget key and the callback it runs (with ``args``)."""

    label: str
    key: str
    on_click: Callable[..., Any]
    args: tuple = ()


def headline(conflict: SavedFirst) -> str:
    """What happened, as one sentence a page shows as it is."""
    message = conflict.message.strip().rstrip(".") or "this was saved by someone else after you opened it"
    return f"{message[:1].upper()}{message[1:]}. {NOTHING_WRITTEN}"


def saved_by(conflict: SavedFirst) -> str | None:
    """Who saved the stored version and when (None when neither is known)."""
    if conflict.who and conflict.when:
        return f"saved by {conflict.who} at {conflict.when}"
    if conflict.who:
        return f"saved by {conflict.who}"
    return f"saved at {conflict.when}" if conflict.when else None


def _side(side: Side, extra: str | None = None) -> None:
    st.markdown(f"**{md_escape(side.title)}**")
    note = " · ".join(n for n in (side.note, extra) if n)
    if note:
        st.caption(md_escape(note))
    for line in side.lines or (EMPTY,):
        st.text(line or EMPTY)


def conflict_panel(conflict: SavedFirst, mine: Side, theirs: Side, *, replace_with_mine: Choice,
                   keep_theirs: Choice) -> None:
    """The refused save's version beside the stored one, with the two ways out. Render it where the page
    keeps the conflict (session state) until one of the buttons is used."""
    st.warning(md_escape(headline(conflict)))
    ours, others = st.columns(2)
    with ours:
        _side(mine)
        st.button(replace_with_mine.label, key=replace_with_mine.key, on_click=replace_with_mine.on_click,
                  args=replace_with_mine.args)
    with others:
        _side(theirs, saved_by(conflict))
        st.button(keep_theirs.label, key=keep_theirs.key, on_click=keep_theirs.on_click, args=keep_theirs.args)
