"""Adjudication (lead): disagreements worst first, the English source above the annotators' versions side by
side (the tokens they differ on marked), accept one version or edit gold, then on to the next disagreement.

Address: ``?show=open`` (the lead's Home links here: undecided disagreements only, the first opened at once)
or ``?show=all``; ``?item=<tagging item id>`` opens that item (the sentence view links here). The address
follows the item on screen. What the page shows comes from ``ui.adjudicate_view``; this session's work on
the page is one ``AdjudicationState``."""

from __future__ import annotations

import streamlit as st

from corpus.bio import spans_to_tags
from corpus.vocabulary import GoldSource, Role
from db.adjudication import StaleDecision, accept, edit, sync_and_count
from db.disagreement_queue import item_entry, tagging_stamp
from ui.adjudicate_view import (
    AdjudicationState,
    Decision,
    RefusedDecision,
    conflict_view,
    history_rows,
    item_label,
    item_screen,
    next_open,
)
from ui.chips import marked_text, span_text, span_where, token_chips
from ui.common import get_engine, project_id, require_role, session_token
from ui.conflict import Choice
from ui.disagreements import queue_lines
from ui.span_editor import EDITS, Commit, span_editor
from ui.text import md_escape

user = require_role(Role.LEAD)
engine = get_engine()
pid = project_id()
state: AdjudicationState = st.session_state.setdefault("adj", AdjudicationState())

ITEM_PARAM, SHOW_PARAM = "item", "show"


def _open(item_id: int | None) -> None:
    """Show ``item_id`` next (None: the first waiting), with the address saying so."""
    on_open_item()
    if item_id is None:
        st.session_state.pop("adj_item", None)
        st.query_params.pop(ITEM_PARAM, None)
    else:
        st.session_state["adj_item"] = item_id
        st.query_params[ITEM_PARAM] = str(item_id)


def _advance(decided: int) -> None:
    """After a decision: on to the next disagreement that waits, read afresh (the decision changed the stamp)."""
    _open(next_open(queue_lines(pid), decided))


def on_next(current: int) -> None:
    following = next_open(queue_lines(pid), current)
    if following is None:
        state.flash = ("info", "No other disagreement waits.")
    else:
        _open(following)


def on_pick() -> None:
    on_open_item()
    st.query_params[ITEM_PARAM] = str(st.session_state["adj_item"])


def on_show() -> None:
    st.query_params[SHOW_PARAM] = "all" if st.session_state["adj_show_resolved"] else "open"


def on_open_item() -> None:
    """Opening an item (again) is when the lead looks at its gold: forget what they saw before."""
    state.seen.clear()


def _decide(mine: Decision, expected: int | None) -> bool:
    """Record the lead's decision against the gold in force they saw; on a conflict keep both for the
    lead to compare."""
    try:
        if mine.how == GoldSource.ACCEPTED:
            accept(engine, mine.item_id, mine.annotation_id, user.id, expected=expected, note=mine.note,
                   session_token=session_token())
        else:
            edit(engine, mine.item_id, list(mine.tags), user.id, expected=expected, note=mine.note,
                 session_token=session_token())
    except StaleDecision as exc:
        state.conflict = RefusedDecision(mine, exc)
        return False
    except (ValueError, PermissionError) as exc:
        state.flash = ("error", md_escape(str(exc)))
        return False
    state.conflict = None
    state.edits.pop(mine.item_id, None)
    state.seen.pop(mine.item_id, None)
    return True


def on_accept(item_id: int, annotation_id: int, annotator: str, tags: list[str], expected: int | None,
              where: str) -> None:
    mine = Decision(item_id, GoldSource.ACCEPTED, tuple(tags), st.session_state.get(f"adj_note_{item_id}"),
                    annotation_id, annotator)
    if _decide(mine, expected):
        state.flash = ("success", f"{md_escape(where)}: gold set to {md_escape(annotator)}'s version.")
        _advance(item_id)


def on_start_edit(item_id: int, spans: list[tuple[int, int]]) -> None:
    state.edits[item_id] = list(spans)


def on_editor_commit(item_id: int, n_tokens: int, commit: Commit) -> None:
    """The gold editor's state for ``item_id``: edits stay in the page until the lead saves them
    (Ctrl+Enter in the editor, or the button). Callbacks of one session take turns (fast reruns)."""
    with state.lock:
        ack = state.acks.get(item_id, 0)
        actions = commit.since(ack)
        state.acks[item_id] = max(ack, commit.seq)
        if any(a in EDITS for a in actions) or "submit" in actions:  # not-vocabulary: the editor's event
            state.edits[item_id] = list(commit.spans)
        if "submit" in actions:  # not-vocabulary: the editor's event
            on_save_edit(item_id, n_tokens)


def on_save_edit(item_id: int, n_tokens: int) -> None:
    spans = state.edits.get(item_id)
    if spans is None:
        return
    note = st.session_state.get(f"adj_note_{item_id}")
    mine = Decision(item_id, GoldSource.EDITED, tuple(spans_to_tags(n_tokens, spans)), note)
    if _decide(mine, state.seen.get(item_id)):
        state.status[item_id] = ("ok", "Edited gold saved.")
        state.flash = ("success", "Edited gold saved.")
        _advance(item_id)


def on_keep_theirs() -> None:
    conflict, state.conflict = state.conflict, None
    state.edits.pop(conflict.mine.item_id, None)
    state.seen.pop(conflict.mine.item_id, None)
    state.flash = ("info", "Kept the decision in force; yours was not recorded.")


def on_replace_with_mine() -> None:
    conflict = state.conflict
    theirs = conflict.refused.theirs
    if _decide(conflict.mine, theirs.id if theirs is not None else None):
        state.flash = ("success", "Your decision replaced the one in force (both are kept in the history).")
        _advance(conflict.mine.item_id)


st.title("Adjudication")
st.caption("Items whose annotators all submitted and disagree, the most differing tokens first. "
           "Items where the annotators agree become gold automatically, and stop being gold if an annotator "
           "later changes their tags; a lead's decision stays.")
stamp = tagging_stamp(engine, pid)
if state.synced != stamp:
    # The tagging changed since this session last looked (or it just opened the page): bring the automatic
    # gold up to date (e.g. after an import) and count the gold in force, from one read of the project.
    state.gold = sync_and_count(engine, pid)[1:]
    state.synced = stamp
with_gold, items = state.gold
if st.query_params.get(SHOW_PARAM) in ("open", "all"):
    st.session_state["adj_show_resolved"] = st.query_params[SHOW_PARAM] == "all"
show_resolved = st.toggle("Show items already decided", key="adj_show_resolved", on_change=on_show)
lines = queue_lines(pid, stamp)  # shared with Home's count
by_id = {line.item_id: line for line in lines}
waiting = sum(1 for line in lines if not line.resolved)
left, right = st.columns(2)
left.metric("Items with gold labels", f"{with_gold} of {items}")
right.metric("Disagreements waiting", waiting)

st.caption("Annotators are assigned on the Assignments page.")

flash, state.flash = state.flash, None
if flash:
    getattr(st, flash[0])(flash[1])
if state.conflict is not None:
    conflict_view(engine, state.conflict,
                  mine=Choice("Replace it with mine", "adj_conflict_replace", on_replace_with_mine),
                  theirs=Choice("Keep the decision in force", "adj_conflict_keep", on_keep_theirs))

# In the list: undecided, or every item with the toggle on. An item this lead is editing stays even if another
# lead decides it meanwhile: saving then shows both decisions instead of the edit vanishing.
listed = [line.item_id for line in lines if show_resolved or not line.resolved or line.item_id in state.edits]

# The item on screen: the one the address names, else the one open before if still listed, else the first.
item_id, entry = None, None
raw = st.query_params.get(ITEM_PARAM)
if raw is not None:
    try:
        item_id = int(raw)
        entry = item_entry(engine, item_id)
    except ValueError:
        st.warning(f"There is no tagging item {md_escape(raw)}; here is the queue instead.")
        st.query_params.pop(ITEM_PARAM, None)
        item_id = None
if item_id is None:
    remembered = st.session_state.get("adj_item")
    item_id = remembered if remembered in listed else (listed[0] if listed else None)
    if item_id is None:
        st.success("No disagreements waiting.")
        st.stop()
    entry = item_entry(engine, item_id)
    st.query_params[ITEM_PARAM] = str(item_id)
st.session_state["adj_item"] = item_id

options = [line.item_id for line in lines if line.item_id in listed or line.item_id == item_id]
if item_id not in by_id:  # opened by its address although it is no disagreement (agreed, or not all submitted)
    options.insert(0, item_id)

pick, step = st.columns([5, 1], vertical_alignment="bottom")
pick.selectbox("Item", options, key="adj_item", on_change=on_pick,
               format_func=lambda i: item_label(by_id.get(i), entry))
step.button("Next disagreement", key="adj_next", on_click=on_next, args=(item_id,),
            disabled=next_open(lines, item_id) is None, help="The next undecided disagreement, worst first.")
screen = item_screen(engine, entry)
tokens, differ = entry.tokens, screen.differ
# The gold in force when the lead opened the item: their decision is made against it, so one that another
# lead (or the automatic rule) made while they were looking is shown to them, not silently replaced.
in_force_id = state.seen.setdefault(item_id, entry.gold.id if entry.gold is not None else None)

st.markdown("**English source** (aspect terms highlighted)")
st.markdown(marked_text(screen.source_text, screen.source_spans), unsafe_allow_html=True)

st.subheader("Annotators side by side")
if not entry.versions:
    st.info("No annotator has submitted this item yet.")
else:
    st.caption(f"Tokens the annotators tag differently are underlined in red: {len(differ)} of {len(tokens)}."
               if differ else "The annotators tag every token alike.")
    columns = st.columns(len(entry.versions))
    for column, version in zip(columns, entry.versions):
        with column:
            st.markdown(f"**{md_escape(version.annotator)}**" + (" — *no aspects*" if version.no_aspects else ""))
            st.markdown(token_chips(tokens, version.spans, differ=differ), unsafe_allow_html=True)
            for span in version.spans:
                st.text(f"• {span_text(tokens, span)}  ({span_where(span)})")
    st.text_input("Note for the decision (optional)", key=f"adj_note_{item_id}",
                  help="Kept with the decision in the item's history.")
    for column, version in zip(st.columns(len(entry.versions)), entry.versions):
        column.button(f"Accept {md_escape(version.annotator)}'s version", type="primary",
                      key=f"adj_accept_{item_id}_{version.annotation_id}", on_click=on_accept,
                      args=(item_id, version.annotation_id, version.annotator, version.tags, in_force_id,
                            entry.sentence_key))
        column.button("Edit from this version", key=f"adj_from_{item_id}_{version.annotation_id}",
                      on_click=on_start_edit, args=(item_id, version.spans))

if entry.gold is not None:
    st.subheader("Gold in force")
    who = entry.gold.decided_by or "automatic"
    st.caption(f"{md_escape(entry.gold.source)} · {md_escape(who)} · {entry.gold.created_at:%Y-%m-%d %H:%M} UTC")
    st.markdown(token_chips(tokens, entry.gold.spans, differ=differ), unsafe_allow_html=True)

st.subheader("Edit gold")
editing = state.edits.get(item_id)
start_spans = editing if editing is not None else (entry.gold.spans if entry.gold is not None else [])
st.caption("Tokens the annotators tag differently are underlined in red. Same keys as tagging; "
           "Ctrl+Enter saves the edited gold (with the note above).")
span_editor(
    "adj_editor", item=item_id,
    label=f"gold · {entry.sentence_key} · {entry.phase} · item {item_id}"
          + (" · edited, not saved" if editing is not None else ""),
    tokens=tokens, spans=start_spans, ack=state.acks.get(item_id, 0),
    status=state.status.get(item_id, ("", "")),
    disagree=differ,
    on_commit=lambda commit, item_id=item_id, n=len(tokens): on_editor_commit(item_id, n, commit),
    hints="Click/drag tokens · Enter or A mark · Backspace remove · Ctrl+Z undo · Ctrl+Enter save gold",
)
st.button("Save edited gold", key=f"adj_save_{item_id}", type="primary", on_click=on_save_edit,
          args=(item_id, len(tokens)), disabled=editing is None)

if screen.history:
    with st.expander(f"Decisions for this item ({len(screen.history)}; the last one is in force)"):
        st.dataframe(history_rows(screen.history, tokens), hide_index=True)
