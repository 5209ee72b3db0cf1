"""What the Tag aspects page keeps and shows: one ``TagItem`` per item this session opened (the item as
read, the spans being edited, the save bookkeeping, the editor's status line), the queue under its filter,
and the panel beside the editor. The page (``pages/tag.py``) renders and calls ``db.tagging``."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import streamlit as st
from sqlalchemy.engine import Engine

from corpus.guidelines import load_guidelines
from corpus.reopen import WorkKind
from corpus.vocabulary import Status
from db.auth import CurrentUser
from db.tagging import AnnotationState, ItemView, QueueRow, StaleAnnotation, stored_annotation
from ui.chips import marked_text, tagging_lines
from ui.conflict import Choice, Side, conflict_panel
from ui.reopen import worker_reopen_panel
from ui.span_editor import keys_markdown
from ui.translate_view import demoted

Span = tuple[int, int]
FILTERS = {"Unfinished": (Status.ASSIGNED, Status.DRAFT), "Submitted": (Status.SUBMITTED,),
           "All": (Status.ASSIGNED, Status.DRAFT, Status.SUBMITTED)}


@dataclass
class TagItem:
    """One item's state in this browser session, changed in place."""

    view: ItemView
    spans: list[Span] = field(default_factory=list)
    no_aspects: bool = False
    version: int | None = None  # the stored version this session's next save expects
    status: str = Status.ASSIGNED
    rejected: set[Span] = field(default_factory=set)  # suggestions the annotator rejected
    keys: Any = None  # the editor's record of keys used, sent with the next save
    ack: int = 0  # the editor's last commit taken
    line: tuple[str, str] | None = None  # the editor's status line (None: what the status says)
    conflict: StaleAnnotation | None = None

    @classmethod
    def opened(cls, view: ItemView) -> TagItem:
        item = cls(view)
        item.adopt(view.annotation)
        return item

    def reload(self, view: ItemView) -> None:
        """The item read afresh: its stored annotation becomes the one being edited."""
        self.view, self.keys = view, None
        self.adopt(view.annotation)

    def adopt(self, state: AnnotationState) -> None:
        """Make a stored annotation the one being edited."""
        self.spans, self.no_aspects, self.rejected = state.spans, state.no_aspects, set(state.rejected)
        self.version, self.status = state.version, state.status

    @property
    def submitted(self) -> bool:
        return self.status == Status.SUBMITTED

    def status_line(self) -> tuple[str, str]:
        if self.line is not None:
            return self.line
        return ("info", "Submitted · read-only until you reopen it") if self.submitted else ("", "")


def conflict_view(item: TagItem, *, mine: Choice, theirs: Choice) -> None:
    """This session's refused spans beside the version saved meanwhile (or its absence)."""
    conflict, tokens = item.conflict, item.view.tokens
    saved = conflict.theirs
    conflict_panel(
        conflict,
        Side("Your version (not saved)", tagging_lines(tokens, item.spans, item.no_aspects)),
        Side("Saved version", ["none: it no longer exists"]) if saved is None
        else Side(f"Saved version {saved.version}", tagging_lines(tokens, saved.spans, saved.no_aspects),
                  note=saved.status),
        replace_with_mine=mine, keep_theirs=theirs,
    )


def reopen_panel(engine: Engine, user: CurrentUser, item: TagItem, *, key: str) -> None:
    """What the lead said about reopening the item's annotation; on submitted work, a request to the lead."""
    annotation_id = item.view.annotation.annotation_id
    if annotation_id is None and item.submitted:  # submitted since this item was opened
        stored = stored_annotation(engine, user.id, item.view.item_id)
        annotation_id = stored.annotation_id if stored is not None else None
    if annotation_id is not None:
        worker_reopen_panel(engine, user, WorkKind.ANNOTATION, annotation_id, key=key)


def saved_line(state: AnnotationState) -> str:
    done = "Submitted" if state.status == Status.SUBMITTED else "Draft saved"
    return f"{done} · version {state.version} · {datetime.now().strftime('%H:%M:%S')}"


def shown(queue: list[QueueRow], current: int | None, chosen: str | None) -> list[QueueRow]:
    """The queue under the status filter ``chosen``; the open item always stays listed."""
    keep = FILTERS[chosen or "All"]
    return [q for q in queue if q.status in keep or q.translation_id == current]


def next_unfinished(queue: list[QueueRow], after: int) -> int | None:
    """The next item not submitted after ``after``, from the top again past the end."""
    ids = [q.translation_id for q in queue]
    start = ids.index(after) + 1 if after in ids else 0
    return next((q.translation_id for q in queue[start:] + queue[:start]
                 if q.status != Status.SUBMITTED and q.translation_id != after), None)


def stepped(ids: list[int], current: int, step: int) -> int | None:
    """The item ``step`` places from ``current`` in ``ids``, round the ends; None if there is nowhere to go."""
    if current in ids and len(ids) > 1:
        return ids[(ids.index(current) + step) % len(ids)]
    return None


def label(q: QueueRow) -> str:
    return f"{q.snippet or '(empty)'} — {q.sentence_key} · {q.phase} · {q.status} · #{q.translation_id}"


def requested(raw: str | None, ids: set[int]) -> int | None:
    """The item the address names, if it is one of ``ids``."""
    try:
        tid = int(raw) if raw is not None else None
    except ValueError:
        return None
    return tid if tid in ids else None


def source_and_guideline(view: ItemView) -> None:
    """Beside the editor: the English source when the project shows it, the guideline and the keys."""
    if view.source_text is not None:
        st.markdown("**English source** (aspect terms highlighted)")
        st.markdown(marked_text(view.source_text, view.source_aspect_spans), unsafe_allow_html=True)
    version, guideline = load_guidelines("tagging")
    with st.expander(f"Guideline (v{version}) and keys", expanded=False):
        st.markdown(keys_markdown())
        st.markdown(demoted(guideline))  # the guideline's own headings stay below the expander's
