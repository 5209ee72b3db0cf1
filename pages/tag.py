"""Tag aspects: mark aspect spans over the frozen tokens of an assigned translation; B/I/O is derived.

One span editor (``ui/span_editor.py``) does all selecting in the browser and sends one value per
committed change, naming the item it was made on. Items are identified by translation id, in session
state and in the URL (``?item=``), so a reload or a new tab opens the same item and a value from the
editor can never land on another item. Each item this session opened is one ``ui.tag_view.TagItem``.
"""

from __future__ import annotations

import streamlit as st

from corpus.bio import spans_to_tags
from corpus.vocabulary import RevisionAction, Role, Status
from db.engine import ProjectBusy
from db.projection import shown_records
from db.tagging import NotAssigned, StaleAnnotation, my_queue
from db.workflows import open_item, reopen_annotation, save_annotation
from ui.common import get_engine, require_role, session_token
from ui.conflict import Choice
from ui.span_editor import EDITS, Commit, span_editor
from ui.tag_view import (
    FILTERS,
    TagItem,
    conflict_view,
    label,
    next_unfinished,
    requested,
    saved_line,
    shown,
    reopen_panel,
    source_and_guideline,
    stepped,
)
from ui.turns import one_at_a_time

ITEM_PARAM = "item"

user = require_role(Role.ANNOTATOR)
engine = get_engine()
items: dict[int, TagItem] = st.session_state.setdefault("tag_items", {})
_one_at_a_time = one_at_a_time("tag_lock")  # a later callback sees what an earlier one saved


def _status(tid: int, kind: str, text: str) -> None:
    """What the editor's fixed status line says for this item (never a banner that moves the editor)."""
    items[tid].line = (kind, text)


def _goto(tid: int) -> None:
    st.session_state["tag_item"] = tid
    st.query_params[ITEM_PARAM] = str(tid)


def _load(tid: int) -> None:
    view = open_item(engine, user.id, tid)
    if tid in items:
        items[tid].reload(view)
    else:
        items[tid] = TagItem.opened(view)
    st.session_state[f"tag_none_{tid}"] = view.annotation.no_aspects


def _adopt(tid: int, state) -> None:
    items[tid].adopt(state)
    st.session_state[f"tag_none_{tid}"] = state.no_aspects


def _persist(tid: int, action: str = RevisionAction.AUTOSAVE) -> bool:
    item = items[tid]
    tags = spans_to_tags(len(item.view.tokens), item.spans)
    try:
        state = save_annotation(engine, user.id, item.view.item_id, tags, item.no_aspects, item.version, action,
                                rejected=sorted(item.rejected), session_token=session_token(),
                                shown=shown_records(item.view.suggestions), keys=item.keys)
    except ProjectBusy:  # an import holds the write lock: nothing written, the editor keeps its spans
        _status(tid, "error", ProjectBusy.MESSAGE)
        return False
    except StaleAnnotation as exc:
        item.conflict = exc
        _status(tid, "error", "Not saved: changed in another tab or window (see below).")
        return False
    except (ValueError, NotAssigned) as exc:
        _status(tid, "error", str(exc))
        return False
    item.version, item.status = state.version, state.status
    item.conflict = None
    _status(tid, "ok", saved_line(state))
    return True


def _step(tid: int, step: int) -> None:
    """Previous/next item in the queue as the annotator sees it (the status filter applies)."""
    ids = [q.translation_id for q in shown(my_queue(engine, user.id), tid, st.session_state.get("tag_filter"))]
    target = stepped(ids, tid, step)
    if target is not None:
        _goto(target)


@_one_at_a_time
def on_commit(tid: int, commit: Commit) -> None:
    """The editor's committed state for item ``tid`` (the editor names it; a value for another item never
    gets here): save the whole span list once, then submit and/or move as the annotator asked."""
    item = items[tid]
    actions = commit.since(item.ack)
    item.ack = max(item.ack, commit.seq)
    if not actions:
        return
    edited = any(a in EDITS for a in actions)
    submit = "submit" in actions  # not-vocabulary: the span editor's event
    if item.submitted:
        if edited:
            _status(tid, "error", "Submitted: choose “Reopen for editing” to change it.")
        elif submit:
            _open_next_unfinished(tid)
        else:
            _move(tid, actions)
        return
    if commit.keys is not None:
        item.keys = commit.keys
    if edited or submit:
        item.spans = commit.spans
        item.rejected = set(commit.rejected)
        if commit.spans and item.no_aspects:
            item.no_aspects = False
            st.session_state[f"tag_none_{tid}"] = False
        if not _persist(tid, RevisionAction.SUBMIT if submit else RevisionAction.AUTOSAVE):
            return
        if submit:
            _open_next_unfinished(tid)
            return
    _move(tid, actions)


def _move(tid: int, actions: list[str]) -> None:
    moves = [a for a in actions if a in ("next", "prev")]
    if moves:
        _step(tid, 1 if moves[-1] == "next" else -1)


def _open_next_unfinished(tid: int) -> None:
    nxt = next_unfinished(my_queue(engine, user.id), tid)
    if nxt is None:
        done = items[tid].submitted
        _status(tid, "ok" if done else "info",
                "Submitted. Every item in your queue is submitted." if done else "No other item is unfinished.")
    else:
        _goto(nxt)


@_one_at_a_time
def on_submit(tid: int) -> None:
    if _persist(tid, RevisionAction.SUBMIT):
        _open_next_unfinished(tid)


@_one_at_a_time
def on_reopen(tid: int) -> None:
    item = items[tid]
    try:
        state = reopen_annotation(engine, user.id, item.view.item_id, item.version)
    except StaleAnnotation as exc:
        if exc.theirs is not None:
            _adopt(tid, exc.theirs)
        _status(tid, "error", "It changed in another tab meanwhile: this is the saved version now.")
        return
    except (ValueError, NotAssigned) as exc:
        _status(tid, "error", str(exc))
        return
    item.version, item.status = state.version, state.status
    _status(tid, "ok", f"Reopened · version {state.version}: your edits are drafts until you submit again.")


@_one_at_a_time
def on_keep_mine(tid: int) -> None:
    """Overwrite the saved version knowingly: save again, now expecting the version that is stored."""
    conflict, items[tid].conflict = items[tid].conflict, None
    items[tid].version = conflict.theirs.version if conflict.theirs else None
    _persist(tid, RevisionAction.SAVE)


@_one_at_a_time
def on_take_theirs(tid: int) -> None:
    conflict, items[tid].conflict = items[tid].conflict, None
    if conflict.theirs is None:
        try:
            _load(tid)
        except (ValueError, NotAssigned) as exc:  # the session ended meanwhile (db.access.check_writer)
            _status(tid, "error", str(exc))
            return
    else:
        _adopt(tid, conflict.theirs)
    _status(tid, "info", "Now editing the saved version.")


@_one_at_a_time
def on_none(tid: int) -> None:
    item = items[tid]
    value = bool(st.session_state[f"tag_none_{tid}"])
    if value and item.spans:
        st.session_state[f"tag_none_{tid}"] = False
        _status(tid, "error", "“No aspects in this sentence” cannot go with marked spans: remove them first.")
        return
    item.no_aspects = value
    _persist(tid)


def _picked() -> None:
    st.query_params[ITEM_PARAM] = str(st.session_state["tag_item"])


st.title("Tag aspects")
queue = my_queue(engine, user.id)
if not queue:
    st.info("Nothing is assigned to you yet. A lead assigns translations to annotators.")
    st.stop()

rows = {q.translation_id: q for q in queue}
done = sum(1 for q in queue if q.status == Status.SUBMITTED)
st.progress(done / len(queue), text=f"{done} of {len(queue)} submitted")

tid = requested(st.query_params.get(ITEM_PARAM), set(rows))
if tid is None:
    remembered = st.session_state.get("tag_item")
    tid = remembered if remembered in rows else next(
        (q.translation_id for q in queue if q.status != Status.SUBMITTED), queue[0].translation_id)
if st.query_params.get(ITEM_PARAM) != str(tid):
    st.query_params[ITEM_PARAM] = str(tid)
st.session_state["tag_item"] = tid

show, pick = st.columns([1, 4], vertical_alignment="bottom")
show.selectbox("Show", list(FILTERS), key="tag_filter")
pick.selectbox("Item", [q.translation_id for q in shown(queue, tid, st.session_state.get("tag_filter"))],
               key="tag_item", on_change=_picked, format_func=lambda t: label(rows[t]))

if tid not in items:
    try:
        _load(tid)
    except (ValueError, NotAssigned) as exc:  # the session ended since require_role (db.access.check_writer)
        st.text(str(exc))
        st.stop()
item = items[tid]
view = item.view
submitted = item.submitted

main, side = st.columns([3, 2])
with side:
    source_and_guideline(view)

with main:
    if view.text_changed:
        st.caption("The translation was edited after tagging began; you tag the tokens as they were frozen.")
    pending = [(s.span, s.term, s.confidence, s.source) for s in view.suggestions]
    span_editor(
        "tag_editor", item=tid, label=f"{view.sentence_key} · {view.phase} · #{tid}",
        tokens=view.tokens, spans=item.spans, suggestions=pending, rejected=sorted(item.rejected),
        readonly=submitted, ack=item.ack, status=item.status_line(),
        on_commit=lambda commit, tid=tid: on_commit(tid, commit),
        on_refused=lambda message, tid=tid: _status(tid, "error", message),
    )
    left, mid, right = st.columns([2, 1, 1], vertical_alignment="center")
    left.checkbox("No aspects in this sentence", key=f"tag_none_{tid}", on_change=on_none, args=(tid,),
                  disabled=submitted, help="An explicit answer; an empty save is not one.")
    if submitted:
        mid.button("Reopen for editing", key=f"tag_reopen_{tid}", on_click=on_reopen, args=(tid,),
                   help="A submitted annotation feeds gold labels: reopening is recorded in its history.")
    else:
        mid.button("Submit", key=f"tag_submit_{tid}", on_click=on_submit, args=(tid,), type="primary",
                   help="Ctrl+Enter in the editor; opens the next unfinished item.")
    right.button("Next unfinished", key=f"tag_next_{tid}", on_click=_open_next_unfinished, args=(tid,))

    reopen_panel(engine, user, item, key=f"tag_ask_{tid}")  # what the lead said; on submitted work, a request

    if item.conflict:
        conflict_view(item, mine=Choice("Keep mine", f"tag_keep_mine_{tid}", on_keep_mine, (tid,)),
                      theirs=Choice("Use the saved version", f"tag_take_theirs_{tid}", on_take_theirs, (tid,)))
