"""Adjudication (lead): disagreements worst first, annotators side by side, accept one version or edit gold."""

from __future__ import annotations

import threading

import streamlit as st

from corpus.bio import disagreeing_tokens, spans_to_tags, tags_to_spans
from db.adjudication import (
    StaleDecision,
    accept,
    decisions,
    disagreement_queue,
    edit,
    gold_count,
    item_entry,
    sync_agreed,
    tagging_stamp,
)
from db.tagging import item_source
from ui.chips import marked_text, span_text, span_where, tagging_lines, token_chips
from ui.common import get_engine, project_id, require_role, session_token
from ui.conflict import Choice, Side, conflict_panel
from ui.span_editor import EDITS, Commit, span_editor
from ui.text import md_escape

user = require_role("lead")
engine = get_engine()
pid = project_id()
DB_KEY = engine.url.render_as_string(hide_password=True)


@st.cache_data(show_spinner=False, max_entries=4)
def _queue(db: str, project: int, stamp: tuple) -> list:
    """Every disagreement (decided ones too), kept until the next change: at paper scale reading it
    takes over a second, and a lead's every click reruns this page."""
    return disagreement_queue(engine, project, include_resolved=True)


@st.cache_data(show_spinner=False, max_entries=4)
def _gold_count(db: str, project: int, stamp: tuple) -> tuple[int, int]:
    """Items with gold in force, by the rule over every item (``db.gold``): read once per change, not per click."""
    return gold_count(engine, project)


def _flash(kind: str, message: str) -> None:
    st.session_state["adj_flash"] = (kind, message)


def _decide(mine: dict, expected: int | None) -> bool:
    """Record the lead's decision against the gold in force they saw; on a conflict keep both for the
    lead to compare. ``mine``: how ("accepted"/"edited"), tags, and the accepted version or None."""
    item_id, note = mine["item_id"], mine["note"]
    try:
        if mine["how"] == "accepted":
            accept(engine, item_id, mine["annotation_id"], user.id, expected=expected, note=note,
                   session_token=session_token())
        else:
            edit(engine, item_id, mine["tags"], user.id, expected=expected, note=note,
                 session_token=session_token())
    except StaleDecision as exc:
        st.session_state["adj_conflict"] = {"mine": mine, "refused": exc}
        return False
    except (ValueError, PermissionError) as exc:
        _flash("error", md_escape(str(exc)))
        return False
    st.session_state.pop("adj_conflict", None)
    st.session_state.pop(f"adj_edit_{item_id}", None)
    st.session_state.pop(f"adj_base_{item_id}", None)
    return True


def on_accept(item_id: int, annotation_id: int, annotator: str, tags: list[str], expected: int | None) -> None:
    mine = {"item_id": item_id, "how": "accepted", "annotation_id": annotation_id, "annotator": annotator,
            "tags": list(tags), "note": st.session_state.get(f"adj_note_{item_id}")}
    if _decide(mine, expected):
        _flash("success", f"Gold set to {md_escape(annotator)}'s version.")


def on_start_edit(item_id: int, spans: list[tuple[int, int]]) -> None:
    st.session_state[f"adj_edit_{item_id}"] = list(spans)


def on_open_item() -> None:
    """Opening an item (again) is when the lead looks at its gold: forget what they saw before."""
    for key in [k for k in st.session_state if str(k).startswith("adj_base_")]:
        del st.session_state[key]


if "adj_lock" not in st.session_state:
    st.session_state["adj_lock"] = threading.RLock()


def on_editor_commit(item_id: int, n_tokens: int, commit: Commit) -> None:
    """The gold editor's state for ``item_id``: edits stay in the page until the lead saves them
    (Ctrl+Enter in the editor, or the button). Callbacks of one session take turns (fast reruns)."""
    with st.session_state["adj_lock"]:
        ack = st.session_state.get(f"adj_ack_{item_id}", 0)
        actions = commit.since(ack)
        st.session_state[f"adj_ack_{item_id}"] = max(ack, commit.seq)
        if any(a in EDITS for a in actions) or "submit" in actions:
            st.session_state[f"adj_edit_{item_id}"] = list(commit.spans)
        if "submit" in actions:
            on_save_edit(item_id, n_tokens)


def on_save_edit(item_id: int, n_tokens: int) -> None:
    spans = st.session_state.get(f"adj_edit_{item_id}")
    if spans is None:
        return
    mine = {"item_id": item_id, "how": "edited", "annotation_id": None, "annotator": None,
            "tags": spans_to_tags(n_tokens, spans), "note": st.session_state.get(f"adj_note_{item_id}")}
    if _decide(mine, st.session_state.get(f"adj_base_{item_id}")):
        st.session_state[f"adj_status_{item_id}"] = ("ok", "Edited gold saved.")
        _flash("success", "Edited gold saved.")


def on_keep_theirs() -> None:
    conflict = st.session_state.pop("adj_conflict")
    st.session_state.pop(f"adj_edit_{conflict['mine']['item_id']}", None)
    st.session_state.pop(f"adj_base_{conflict['mine']['item_id']}", None)
    _flash("info", "Kept the decision in force; yours was not recorded.")


def on_replace_with_mine() -> None:
    conflict = st.session_state["adj_conflict"]
    theirs = conflict["refused"].theirs
    if _decide(conflict["mine"], theirs.id if theirs is not None else None):
        _flash("success", "Your decision replaced the one in force (both are kept in the history).")


def show_conflict(conflict: dict) -> None:
    """The lead's refused decision beside the one that came into force meanwhile, to decide again."""
    mine, refused = conflict["mine"], conflict["refused"]
    theirs = refused.theirs
    shown = item_entry(engine, mine["item_id"])
    st.subheader(f"Decided meanwhile: {md_escape(shown.sentence_key)} · {shown.phase}")
    how = f"accept {mine['annotator']}'s version" if mine["how"] == "accepted" else "edited tags"
    conflict_panel(
        refused,
        Side("Your decision (not recorded)", tagging_lines(shown.tokens, tags_to_spans(mine["tags"])), note=how),
        Side("In force now", ["no gold (the automatic gold was withdrawn)"]) if theirs is None
        else Side("In force now", tagging_lines(shown.tokens, theirs.spans), note=theirs.source),
        replace_with_mine=Choice("Replace it with mine", "adj_conflict_replace", on_replace_with_mine),
        keep_theirs=Choice("Keep the decision in force", "adj_conflict_keep", on_keep_theirs),
    )


st.title("Adjudication")
st.caption("Items whose annotators all submitted and disagree, the most differing tokens first. "
           "Items where the annotators agree become gold automatically, and stop being gold if an annotator "
           "later changes their tags; a lead's decision stays.")
stamp = tagging_stamp(engine, pid)
if st.session_state.get("adj_synced") != stamp:  # bring automatic gold up to date once per change, not per rerun
    if sync_agreed(engine, pid):
        stamp = tagging_stamp(engine, pid)
    st.session_state["adj_synced"] = stamp
with_gold, items = _gold_count(DB_KEY, pid, stamp)
show_resolved = st.toggle("Show items already decided", key="adj_show_resolved")
every_disagreement = _queue(DB_KEY, pid, stamp)
# An item this lead is editing stays on screen even if another lead decides it meanwhile: saving then
# shows both decisions instead of the edit silently vanishing.
queue = [e for e in every_disagreement
         if show_resolved or not e.resolved or f"adj_edit_{e.item_id}" in st.session_state]
left, right = st.columns(2)
left.metric("Items with gold labels", f"{with_gold} of {items}")
right.metric("Disagreements waiting" if not show_resolved else "Disagreements",
             sum(1 for e in queue if show_resolved or not e.resolved))

st.caption("Annotators are assigned on the Assignments page.")

flash = st.session_state.pop("adj_flash", None)
if flash:
    getattr(st, flash[0])(flash[1])
if "adj_conflict" in st.session_state:
    show_conflict(st.session_state["adj_conflict"])

if not queue:
    st.success("No disagreements waiting.")
    st.stop()

entries = {e.item_id: e for e in queue}
if st.session_state.get("adj_item") not in entries:
    st.session_state["adj_item"] = queue[0].item_id
item_id = st.selectbox(
    "Item", list(entries), key="adj_item", on_change=on_open_item,
    format_func=lambda i: (f"{entries[i].sentence_key} · {entries[i].phase} · by {entries[i].translator} · "
                           f"{entries[i].disagreement:.0%} of tokens differ" + (" · decided" if entries[i].resolved else "")),
)
entry = item_entry(engine, item_id)
tokens = entry.tokens
# The gold in force when the lead opened the item: their decision is made against it, so one that another
# lead (or the automatic rule) made while they were looking is shown to them, not silently replaced.
in_force_id = st.session_state.setdefault(f"adj_base_{item_id}", entry.gold.id if entry.gold is not None else None)

st.subheader("Annotators side by side")
columns = st.columns(len(entry.versions))
for column, version in zip(columns, entry.versions):
    with column:
        st.markdown(f"**{md_escape(version.annotator)}**" + (" — *no aspects*" if version.no_aspects else ""))
        st.markdown(token_chips(tokens, version.spans), unsafe_allow_html=True)
        for span in version.spans:
            st.text(f"• {span_text(tokens, span)}  ({span_where(span)})")
        st.button(f"Accept {md_escape(version.annotator)}'s version", key=f"adj_accept_{item_id}_{version.annotation_id}",
                  on_click=on_accept, args=(item_id, version.annotation_id, version.annotator, version.tags,
                                            in_force_id))
        st.button("Edit from this version", key=f"adj_from_{item_id}_{version.annotation_id}",
                  on_click=on_start_edit, args=(item_id, version.spans))

st.text_input("Note for the decision (optional)", key=f"adj_note_{item_id}")

if entry.gold is not None:
    st.subheader("Gold in force")
    who = entry.gold.decided_by or "automatic"
    st.caption(f"{md_escape(entry.gold.source)} · {md_escape(who)} · {entry.gold.created_at:%Y-%m-%d %H:%M} UTC")
    st.markdown(token_chips(tokens, entry.gold.spans), unsafe_allow_html=True)

edit_key = f"adj_edit_{item_id}"
st.subheader("Edit gold")
source_text, source_spans = item_source(engine, item_id)
st.markdown("**English source** (aspect terms highlighted)")
st.markdown(marked_text(source_text, source_spans), unsafe_allow_html=True)
editing = st.session_state.get(edit_key)
start_spans = editing if editing is not None else (entry.gold.spans if entry.gold is not None else [])
st.caption("Tokens the annotators tag differently are underlined in red. Same keys as tagging; "
           "Ctrl+Enter saves the edited gold.")
span_editor(
    "adj_editor", item=item_id,
    label=f"gold · {entry.sentence_key} · {entry.phase} · item {item_id}"
          + (" · edited, not saved" if editing is not None else ""),
    tokens=tokens, spans=start_spans, ack=st.session_state.get(f"adj_ack_{item_id}", 0),
    status=st.session_state.get(f"adj_status_{item_id}", ("", "")),
    disagree=disagreeing_tokens([v.tags for v in entry.versions]),
    on_commit=lambda commit, item_id=item_id, n=len(tokens): on_editor_commit(item_id, n, commit),
    hints="Click/drag tokens · Enter or A mark · Backspace remove · Ctrl+Z undo · Ctrl+Enter save gold",
)
st.button("Save edited gold", key=f"adj_save_{item_id}", type="primary", on_click=on_save_edit,
          args=(item_id, len(tokens)), disabled=editing is None)

history = decisions(engine, item_id)
if history:
    with st.expander(f"Decisions for this item ({len(history)}; the last one is in force)"):
        st.dataframe(
            [
                {"when (UTC)": d.created_at.strftime("%Y-%m-%d %H:%M:%S"), "who": d.decided_by or "automatic",
                 "how": d.source,
                 "spans": "; ".join(span_text(tokens, s) for s in d.spans) if d.tags is not None else "— (no gold)",
                 "note": d.note or ""}
                for d in history
            ],
            hide_index=True,
        )
