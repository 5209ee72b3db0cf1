"""What the Adjudication page shows and keeps, as typed data: the item on screen (its source, the tokens the
annotators differ on, its decisions), a lead's decision before it is recorded, and this session's work on
the page (edits not saved, the gold seen when an item opened) as one object. The page
(``pages/adjudicate.py``) renders these and calls ``db.adjudication``."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

import streamlit as st
from sqlalchemy.engine import Engine

from corpus.bio import disagreeing_tokens, tags_to_spans
from corpus.vocabulary import GoldSource
from db.adjudication import StaleDecision
from db.disagreement_queue import Disagreement, GoldDecision, QueueEntry, decisions, item_entry
from db.tagging import item_source
from ui.chips import span_text, tagging_lines
from ui.conflict import Choice, Side, conflict_panel
from ui.text import md_escape

Span = tuple[int, int]


@dataclass(frozen=True)
class Decision:
    """A lead's decision as made on the page: accept one annotator's version, or edited tags."""

    item_id: int
    how: str  # "accepted" or "edited"
    tags: tuple[str, ...]
    note: str | None
    annotation_id: int | None = None  # the version accepted
    annotator: str | None = None


@dataclass(frozen=True)
class RefusedDecision:
    """A decision refused because another came into force meanwhile: kept to compare and decide again."""

    mine: Decision
    refused: StaleDecision


@dataclass
class AdjudicationState:
    """This session's work on the page, one object under one key, changed in place."""

    edits: dict[int, list[Span]] = field(default_factory=dict)  # item -> gold edited, not saved
    seen: dict[int, int | None] = field(default_factory=dict)  # item -> the gold in force when it opened
    acks: dict[int, int] = field(default_factory=dict)  # item -> the gold editor's last commit taken
    status: dict[int, tuple[str, str]] = field(default_factory=dict)  # item -> the editor's status line
    conflict: RefusedDecision | None = None
    flash: tuple[str, str] | None = None
    synced: tuple | None = None  # the tagging stamp automatic gold was last brought up to date at
    gold: tuple[int, int] = (0, 0)  # (items with gold in force, tagging items) as of ``synced``
    lock: threading.RLock = field(default_factory=threading.RLock)  # callbacks take turns (fast reruns)


@dataclass(frozen=True)
class ItemScreen:
    """The item on screen: its queue entry, English source, the tokens the annotators differ on, decisions."""

    entry: QueueEntry
    source_text: str
    source_spans: list[Span]
    differ: set[int]
    history: list[GoldDecision]


def conflict_view(engine: Engine, conflict: RefusedDecision, *, mine: Choice, theirs: Choice) -> None:
    """The lead's refused decision beside the one that came into force meanwhile, to decide again."""
    decision, now = conflict.mine, conflict.refused.theirs
    shown = item_entry(engine, decision.item_id)
    st.subheader(f"Decided meanwhile: {md_escape(shown.sentence_key)} · {shown.phase}")
    how = f"accept {decision.annotator}'s version" if decision.how == GoldSource.ACCEPTED else "edited tags"
    conflict_panel(
        conflict.refused,
        Side("Your decision (not recorded)", tagging_lines(shown.tokens, tags_to_spans(list(decision.tags))), note=how),
        Side("In force now", ["no gold (the automatic gold was withdrawn)"]) if now is None
        else Side("In force now", tagging_lines(shown.tokens, now.spans), note=now.source),
        replace_with_mine=mine, keep_theirs=theirs,
    )


def item_screen(engine: Engine, entry: QueueEntry) -> ItemScreen:
    source_text, source_spans = item_source(engine, entry.item_id)
    return ItemScreen(entry, source_text, source_spans, disagreeing_tokens([v.tags for v in entry.versions]),
                      decisions(engine, entry.item_id))


def next_open(lines: list[Disagreement], after: int | None) -> int | None:
    """The next undecided disagreement after ``after`` in the queue's order (worst first), from the top
    again past the end; None when no other waits."""
    waiting = [line.item_id for line in lines if not line.resolved and line.item_id != after]
    ids = [line.item_id for line in lines]
    if after in ids:
        later = [line.item_id for line in lines[ids.index(after) + 1:] if line.item_id in waiting]
        if later:
            return later[0]
    return waiting[0] if waiting else None


def item_label(line: Disagreement | None, entry: QueueEntry) -> str:
    """An item in the picker; ``entry`` stands for an item opened by address that is no disagreement."""
    if line is None:
        return f"{entry.sentence_key} · {entry.phase} · by {entry.translator} · not a disagreement"
    return (f"{line.sentence_key} · {line.phase} · by {line.translator} · {line.disagreement:.0%} of tokens differ"
            + (" · decided" if line.resolved else ""))


def history_rows(history: list[GoldDecision], tokens: list[str]) -> list[dict[str, str]]:
    """The item's decisions as the history table shows them, oldest first."""
    return [
        {"when (UTC)": d.created_at.strftime("%Y-%m-%d %H:%M:%S"), "who": d.decided_by or "automatic",
         "how": d.source,
         "spans": "; ".join(span_text(tokens, s) for s in d.spans) if d.tags is not None else "— (no gold)",
         "note": d.note or ""}
        for d in history
    ]
