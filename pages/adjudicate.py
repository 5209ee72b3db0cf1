"""Adjudication (lead): disagreements worst first, annotators side by side, accept one version or edit gold."""

from __future__ import annotations

import streamlit as st

from corpus.bio import put_span, remove_span, selection_to_span, spans_to_tags, tags_to_spans
from db.adjudication import accept, decisions, disagreement_queue, edit, gold_count, item_entry, sync_agreed
from pages._chips import span_text, span_where, token_chips
from pages._common import get_engine, project_id, require_role

user = require_role("lead")
engine = get_engine()
pid = project_id()


def _flash(kind: str, message: str) -> None:
    st.session_state["adj_flash"] = (kind, message)


def on_accept(item_id: int, annotation_id: int, annotator: str) -> None:
    try:
        accept(engine, item_id, annotation_id, user.id, st.session_state.get(f"adj_note_{item_id}"))
    except (ValueError, PermissionError) as exc:
        _flash("error", str(exc))
        return
    st.session_state.pop(f"adj_edit_{item_id}", None)
    _flash("success", f"Gold set to {annotator}'s version.")


def on_start_edit(item_id: int, spans: list[tuple[int, int]]) -> None:
    st.session_state[f"adj_edit_{item_id}"] = list(spans)


def on_edit_add(item_id: int) -> None:
    key = f"adj_sel_{item_id}"
    try:
        span = selection_to_span(st.session_state.get(key) or [])
    except ValueError as exc:
        _flash("error", str(exc))
        return
    st.session_state[key] = []
    st.session_state[f"adj_edit_{item_id}"] = put_span(st.session_state[f"adj_edit_{item_id}"], span)


def on_edit_remove(item_id: int, span: tuple[int, int]) -> None:
    st.session_state[f"adj_edit_{item_id}"] = remove_span(st.session_state[f"adj_edit_{item_id}"], span)


def on_save_edit(item_id: int, n_tokens: int) -> None:
    tags = spans_to_tags(n_tokens, st.session_state[f"adj_edit_{item_id}"])
    try:
        edit(engine, item_id, tags, user.id, st.session_state.get(f"adj_note_{item_id}"))
    except (ValueError, PermissionError) as exc:
        _flash("error", str(exc))
        return
    st.session_state.pop(f"adj_edit_{item_id}", None)
    _flash("success", "Edited gold saved.")


st.title("Adjudication")
st.caption("Items whose annotators all submitted and disagree, the most differing tokens first. "
           "Items where the annotators agree become gold automatically.")
sync_agreed(engine, pid)
with_gold, items = gold_count(engine, pid)
show_resolved = st.toggle("Show items already decided", key="adj_show_resolved")
queue = disagreement_queue(engine, pid, include_resolved=show_resolved)
left, right = st.columns(2)
left.metric("Items with gold labels", f"{with_gold} of {items}")
right.metric("Disagreements waiting" if not show_resolved else "Disagreements", len(queue))

st.caption("Annotators are assigned on the Assignments page.")

flash = st.session_state.pop("adj_flash", None)
if flash:
    getattr(st, flash[0])(flash[1])

if not queue:
    st.success("No disagreements waiting.")
    st.stop()

entries = {e.item_id: e for e in queue}
if st.session_state.get("adj_item") not in entries:
    st.session_state["adj_item"] = queue[0].item_id
item_id = st.selectbox(
    "Item", list(entries), key="adj_item",
    format_func=lambda i: (f"{entries[i].sentence_key} · {entries[i].phase} · by {entries[i].translator} · "
                           f"{entries[i].disagreement:.0%} of tokens differ" + (" · decided" if entries[i].resolved else "")),
)
entry = item_entry(engine, item_id)
tokens = entry.tokens

st.subheader("Annotators side by side")
columns = st.columns(len(entry.versions))
for column, version in zip(columns, entry.versions):
    with column:
        st.markdown(f"**{version.annotator}**" + (" — *no aspects*" if version.no_aspects else ""))
        st.markdown(token_chips(tokens, version.spans), unsafe_allow_html=True)
        for span in version.spans:
            st.text(f"• {span_text(tokens, span)}  ({span_where(span)})")
        st.button(f"Accept {version.annotator}'s version", key=f"adj_accept_{item_id}_{version.annotation_id}",
                  on_click=on_accept, args=(item_id, version.annotation_id, version.annotator))
        st.button("Edit from this version", key=f"adj_from_{item_id}_{version.annotation_id}",
                  on_click=on_start_edit, args=(item_id, version.spans))

st.text_input("Note for the decision (optional)", key=f"adj_note_{item_id}")

if entry.gold is not None:
    st.subheader("Gold in force")
    who = entry.gold.decided_by or "automatic"
    st.caption(f"{entry.gold.source} · {who} · {entry.gold.created_at:%Y-%m-%d %H:%M} UTC")
    st.markdown(token_chips(tokens, tags_to_spans(entry.gold.tags)), unsafe_allow_html=True)

edit_key = f"adj_edit_{item_id}"
if edit_key in st.session_state:
    st.subheader("Edit gold")
    spans = st.session_state[edit_key]
    st.markdown(token_chips(tokens, spans), unsafe_allow_html=True)
    st.pills("Select consecutive tokens", list(range(len(tokens))), selection_mode="multi",
             key=f"adj_sel_{item_id}", format_func=lambda i: tokens[i], wrap=True)
    st.button("Add span", key=f"adj_add_{item_id}", on_click=on_edit_add, args=(item_id,), shortcut="Alt+A")
    for span in spans:
        label, remove = st.columns([4, 1], vertical_alignment="center")
        label.text(f"{span_text(tokens, span)}  ({span_where(span)})")
        remove.button("Remove", key=f"adj_rm_{item_id}_{span[0]}_{span[1]}", on_click=on_edit_remove,
                      args=(item_id, span))
    st.button("Save edited gold", key=f"adj_save_{item_id}", type="primary", on_click=on_save_edit,
              args=(item_id, len(tokens)))

history = decisions(engine, item_id)
if history:
    with st.expander(f"Decisions for this item ({len(history)}; the last one is in force)"):
        st.dataframe(
            [
                {"when (UTC)": d.created_at.strftime("%Y-%m-%d %H:%M:%S"), "who": d.decided_by or "automatic",
                 "how": d.source, "spans": "; ".join(span_text(tokens, s) for s in tags_to_spans(d.tags)),
                 "note": d.note or ""}
                for d in history
            ],
            hide_index=True,
        )
