"""Tag aspects: mark aspect spans over the frozen tokens of an assigned translation; B/I/O is derived.

One span editor (``ui/span_editor.py``) does all selecting in the browser and sends one value per
committed change, naming the item it was made on. Items are identified by translation id, in session
state and in the URL (``?item=``), so a reload or a new tab opens the same item and a value from the
editor can never land on another item.
"""

from __future__ import annotations

import functools
import re
import threading
from datetime import datetime

import streamlit as st

from corpus.bio import spans_to_tags
from corpus.guidelines import load_guidelines
from corpus.reopen import WorkKind
from corpus.vocabulary import Status
from db.engine import ProjectBusy
from db.projection import shown_records
from db.tagging import (
    AnnotationState,
    NotAssigned,
    QueueRow,
    StaleAnnotation,
    my_queue,
    open_item,
    reopen_annotation,
    save_annotation,
    stored_annotation,
)
from ui.chips import marked_text, tagging_lines
from ui.common import get_engine, require_role, session_token
from ui.conflict import Choice, Side, conflict_panel
from ui.reopen import worker_reopen_panel
from ui.span_editor import EDITS, Commit, keys_markdown, span_editor

ITEM_PARAM = "item"
FILTERS = {"Unfinished": (Status.ASSIGNED, Status.DRAFT), "Submitted": (Status.SUBMITTED,), "All": (Status.ASSIGNED, Status.DRAFT, Status.SUBMITTED)}

user = require_role("annotator")
engine = get_engine()


if "tag_lock" not in st.session_state:
    st.session_state["tag_lock"] = threading.RLock()


def _one_at_a_time(callback):
    """With fast reruns a new run starts while the stopped one still finishes its callback (a save):
    the callbacks of one browser session take turns, so the later one sees what the earlier saved."""

    @functools.wraps(callback)
    def serialized(*args, **kwargs):
        with st.session_state["tag_lock"]:
            return callback(*args, **kwargs)

    return serialized


def _status(tid: int, kind: str, text: str) -> None:
    """What the editor's fixed status line says for this item (never a banner that moves the editor)."""
    st.session_state[f"tag_status_{tid}"] = (kind, text)


def _goto(tid: int) -> None:
    st.session_state["tag_item"] = tid
    st.query_params[ITEM_PARAM] = str(tid)


def _load(tid: int) -> None:
    view = open_item(engine, user.id, tid)
    st.session_state[f"tag_view_{tid}"] = view
    st.session_state[f"tag_work_{tid}"] = {}
    _adopt(tid, view.annotation)


def _adopt(tid: int, state: AnnotationState) -> None:
    """Make a stored annotation the one being edited."""
    st.session_state[f"tag_work_{tid}"].update(
        spans=state.spans, no_aspects=state.no_aspects, version=state.version, status=state.status,
        rejected=set(state.rejected),
    )
    st.session_state[f"tag_none_{tid}"] = state.no_aspects


def _persist(tid: int, action: str = "autosave") -> bool:
    view = st.session_state[f"tag_view_{tid}"]
    work = st.session_state[f"tag_work_{tid}"]
    tags = spans_to_tags(len(view.tokens), work["spans"])
    try:
        state = save_annotation(engine, user.id, view.item_id, tags, work["no_aspects"], work["version"], action,
                                rejected=sorted(work["rejected"]), session_token=session_token(),
                                shown=shown_records(view.suggestions), keys=work.get("keys"))
    except ProjectBusy:  # an import holds the write lock: nothing written, the editor keeps its spans
        _status(tid, "error", ProjectBusy.MESSAGE)
        return False
    except StaleAnnotation as exc:
        st.session_state[f"tag_conflict_{tid}"] = exc
        _status(tid, "error", "Not saved: changed in another tab or window (see below).")
        return False
    except (ValueError, NotAssigned) as exc:
        _status(tid, "error", str(exc))
        return False
    work["version"], work["status"] = state.version, state.status
    st.session_state.pop(f"tag_conflict_{tid}", None)
    when = datetime.now().strftime("%H:%M:%S")
    done = "Submitted" if state.status == Status.SUBMITTED else "Draft saved"
    _status(tid, "ok", f"{done} · version {state.version} · {when}")
    return True


def _next_unfinished(after: int) -> int | None:
    queue = my_queue(engine, user.id)
    ids = [q.translation_id for q in queue]
    start = ids.index(after) + 1 if after in ids else 0
    return next((q.translation_id for q in queue[start:] + queue[:start]
                 if q.status != Status.SUBMITTED and q.translation_id != after), None)


def _step(tid: int, step: int) -> None:
    """Previous/next item in the queue as the annotator sees it (the status filter applies)."""
    ids = [q.translation_id for q in _shown(my_queue(engine, user.id), tid)]
    if tid in ids and len(ids) > 1:
        _goto(ids[(ids.index(tid) + step) % len(ids)])


@_one_at_a_time
def on_commit(tid: int, commit: Commit) -> None:
    """The editor's committed state for item ``tid`` (the editor names it; a value for another item never
    gets here): save the whole span list once, then submit and/or move as the annotator asked."""
    ack = st.session_state.get(f"tag_ack_{tid}", 0)
    actions = commit.since(ack)
    st.session_state[f"tag_ack_{tid}"] = max(ack, commit.seq)
    if not actions:
        return
    work = st.session_state[f"tag_work_{tid}"]
    edited = any(a in EDITS for a in actions)
    submit = "submit" in actions
    if work["status"] == Status.SUBMITTED:
        if edited:
            _status(tid, "error", "Submitted: choose “Reopen for editing” to change it.")
        elif submit:
            _open_next_unfinished(tid)
        else:
            _move(tid, actions)
        return
    if commit.keys is not None:
        work["keys"] = commit.keys
    if edited or submit:
        work["spans"] = commit.spans
        work["rejected"] = set(commit.rejected)
        if commit.spans and work["no_aspects"]:
            work["no_aspects"] = False
            st.session_state[f"tag_none_{tid}"] = False
        if not _persist(tid, "submit" if submit else "autosave"):
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
    nxt = _next_unfinished(tid)
    if nxt is None:
        done = st.session_state[f"tag_work_{tid}"]["status"] == Status.SUBMITTED
        _status(tid, "ok" if done else "info",
                "Submitted. Every item in your queue is submitted." if done else "No other item is unfinished.")
    else:
        _goto(nxt)


@_one_at_a_time
def on_submit(tid: int) -> None:
    if _persist(tid, "submit"):
        _open_next_unfinished(tid)


@_one_at_a_time
def on_reopen(tid: int) -> None:
    view = st.session_state[f"tag_view_{tid}"]
    work = st.session_state[f"tag_work_{tid}"]
    try:
        state = reopen_annotation(engine, user.id, view.item_id, work["version"])
    except StaleAnnotation as exc:
        if exc.theirs is not None:
            _adopt(tid, exc.theirs)
        _status(tid, "error", "It changed in another tab meanwhile: this is the saved version now.")
        return
    except (ValueError, NotAssigned) as exc:
        _status(tid, "error", str(exc))
        return
    work["version"], work["status"] = state.version, state.status
    _status(tid, "ok", f"Reopened · version {state.version}: your edits are drafts until you submit again.")


@_one_at_a_time
def on_keep_mine(tid: int) -> None:
    """Overwrite the saved version knowingly: save again, now expecting the version that is stored."""
    conflict: StaleAnnotation = st.session_state.pop(f"tag_conflict_{tid}")
    st.session_state[f"tag_work_{tid}"]["version"] = conflict.theirs.version if conflict.theirs else None
    _persist(tid, "save")


@_one_at_a_time
def on_take_theirs(tid: int) -> None:
    conflict: StaleAnnotation = st.session_state.pop(f"tag_conflict_{tid}")
    if conflict.theirs is None:
        try:
            _load(tid)
        except (ValueError, NotAssigned) as exc:  # the session ended meanwhile (db.auth.check_writer)
            _status(tid, "error", str(exc))
            return
    else:
        _adopt(tid, conflict.theirs)
    _status(tid, "info", "Now editing the saved version.")


@_one_at_a_time
def on_none(tid: int) -> None:
    work = st.session_state[f"tag_work_{tid}"]
    value = bool(st.session_state[f"tag_none_{tid}"])
    if value and work["spans"]:
        st.session_state[f"tag_none_{tid}"] = False
        _status(tid, "error", "“No aspects in this sentence” cannot go with marked spans: remove them first.")
        return
    work["no_aspects"] = value
    _persist(tid)


def _picked() -> None:
    st.query_params[ITEM_PARAM] = str(st.session_state["tag_item"])


def _shown(queue: list[QueueRow], current: int | None) -> list[QueueRow]:
    """The queue under the status filter; the open item always stays listed."""
    keep = FILTERS[st.session_state.get("tag_filter") or "All"]
    return [q for q in queue if q.status in keep or q.translation_id == current]


def _label(q: QueueRow) -> str:
    return f"{q.snippet or '(empty)'} — {q.sentence_key} · {q.phase} · {q.status} · #{q.translation_id}"


def _requested(ids: set[int]) -> int | None:
    raw = st.query_params.get(ITEM_PARAM)
    try:
        tid = int(raw) if raw is not None else None
    except ValueError:
        return None
    return tid if tid in ids else None


st.title("Tag aspects")
queue = my_queue(engine, user.id)
if not queue:
    st.info("Nothing is assigned to you yet. A lead assigns translations to annotators.")
    st.stop()

rows = {q.translation_id: q for q in queue}
done = sum(1 for q in queue if q.status == Status.SUBMITTED)
st.progress(done / len(queue), text=f"{done} of {len(queue)} submitted")

tid = _requested(set(rows))
if tid is None:
    remembered = st.session_state.get("tag_item")
    tid = remembered if remembered in rows else next(
        (q.translation_id for q in queue if q.status != Status.SUBMITTED), queue[0].translation_id)
if st.query_params.get(ITEM_PARAM) != str(tid):
    st.query_params[ITEM_PARAM] = str(tid)
st.session_state["tag_item"] = tid

show, pick = st.columns([1, 4], vertical_alignment="bottom")
show.selectbox("Show", list(FILTERS), key="tag_filter")
shown = _shown(queue, tid)
pick.selectbox("Item", [q.translation_id for q in shown], key="tag_item", on_change=_picked,
               format_func=lambda t: _label(rows[t]))

if f"tag_view_{tid}" not in st.session_state:
    try:
        _load(tid)
    except (ValueError, NotAssigned) as exc:  # the session ended since require_role (db.auth.check_writer)
        st.text(str(exc))
        st.stop()
view = st.session_state[f"tag_view_{tid}"]
work = st.session_state[f"tag_work_{tid}"]
submitted = work["status"] == Status.SUBMITTED

main, side = st.columns([3, 2])
with side:
    if view.source_text is not None:
        st.markdown("**English source** (aspect terms highlighted)")
        st.markdown(marked_text(view.source_text, view.source_aspect_spans), unsafe_allow_html=True)
    version, guideline = load_guidelines("tagging")
    with st.expander(f"Guideline (v{version}) and keys", expanded=False):
        st.markdown(keys_markdown())
        # the guideline's own headings stay below the expander's
        st.markdown(re.sub(r"(?m)^(#{1,4}) ", lambda m: "#" * (len(m.group(1)) + 2) + " ", guideline))

with main:
    if view.text_changed:
        st.caption("The translation was edited after tagging began; you tag the tokens as they were frozen.")
    pending = [(s.span, s.term, s.confidence, s.source) for s in view.suggestions]
    default_status = ("info", "Submitted · read-only until you reopen it") if submitted else ("", "")
    span_editor(
        "tag_editor", item=tid, label=f"{view.sentence_key} · {view.phase} · #{tid}",
        tokens=view.tokens, spans=work["spans"], suggestions=pending, rejected=sorted(work["rejected"]),
        readonly=submitted, ack=st.session_state.get(f"tag_ack_{tid}", 0),
        status=st.session_state.get(f"tag_status_{tid}", default_status),
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

    # What the lead said about reopening it; on submitted work, a request to the lead.
    annotation_id = view.annotation.annotation_id
    if annotation_id is None and submitted:  # submitted since this item was opened
        stored = stored_annotation(engine, user.id, view.item_id)
        annotation_id = stored.annotation_id if stored is not None else None
    if annotation_id is not None:
        worker_reopen_panel(engine, user, WorkKind.ANNOTATION, annotation_id, key=f"tag_ask_{tid}")

    conflict = st.session_state.get(f"tag_conflict_{tid}")
    if conflict:
        theirs = conflict.theirs
        conflict_panel(
            conflict,
            Side("Your version (not saved)", tagging_lines(view.tokens, work["spans"], work["no_aspects"])),
            Side("Saved version", ["none: it no longer exists"]) if theirs is None
            else Side(f"Saved version {theirs.version}", tagging_lines(view.tokens, theirs.spans, theirs.no_aspects),
                      note=theirs.status),
            replace_with_mine=Choice("Keep mine", f"tag_keep_mine_{tid}", on_keep_mine, (tid,)),
            keep_theirs=Choice("Use the saved version", f"tag_take_theirs_{tid}", on_take_theirs, (tid,)),
        )
