"""Tag aspects: mark aspect spans over the frozen tokens of an assigned translation; B/I/O is derived."""

from __future__ import annotations

import streamlit as st

from corpus.bio import put_span, remove_span, selection_to_span, spans_to_tags
from corpus.guidelines import load_guidelines
from db.tagging import (
    AnnotationState,
    NotAssigned,
    StaleAnnotation,
    my_queue,
    open_item,
    save_annotation,
)
from pages._chips import marked_text, span_text, span_where, token_chips
from pages._common import get_engine, require_role

user = require_role("annotator")
engine = get_engine()


def _flash(kind: str, message: str) -> None:
    st.session_state["tag_flash"] = (kind, message)


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
                                rejected=sorted(work["rejected"]))
    except StaleAnnotation as exc:
        st.session_state[f"tag_conflict_{tid}"] = exc
        return False
    except (ValueError, NotAssigned) as exc:
        _flash("error", str(exc))
        return False
    work["version"], work["status"] = state.version, state.status
    st.session_state.pop(f"tag_conflict_{tid}", None)
    done = {"autosave": "Saved automatically.", "save": "Saved.", "submit": "Submitted."}[action]
    _flash("success", done)
    return True


def on_keep_mine(tid: int) -> None:
    """Overwrite the saved version knowingly: save again, now expecting the version that is stored."""
    conflict: StaleAnnotation = st.session_state.pop(f"tag_conflict_{tid}")
    st.session_state[f"tag_work_{tid}"]["version"] = conflict.theirs.version if conflict.theirs else None
    _persist(tid, "save")


def on_take_theirs(tid: int) -> None:
    conflict: StaleAnnotation = st.session_state.pop(f"tag_conflict_{tid}")
    if conflict.theirs is None:
        _load(tid)
    else:
        _adopt(tid, conflict.theirs)
    _flash("info", "Now editing the saved version.")


def _set_spans(tid: int, spans: list[tuple[int, int]]) -> None:
    work = st.session_state[f"tag_work_{tid}"]
    work["spans"] = spans
    if spans:
        work["no_aspects"] = False
        st.session_state[f"tag_none_{tid}"] = False
    _persist(tid)


def on_add(tid: int) -> None:
    key = f"tag_sel_{tid}"
    try:
        span = selection_to_span(st.session_state.get(key) or [])
    except ValueError as exc:
        _flash("error", str(exc))
        return
    st.session_state[key] = []
    _set_spans(tid, put_span(st.session_state[f"tag_work_{tid}"]["spans"], span))


def on_remove(tid: int, span: tuple[int, int]) -> None:
    _set_spans(tid, remove_span(st.session_state[f"tag_work_{tid}"]["spans"], span))


def on_accept(tid: int, spans: list[tuple[int, int]]) -> None:
    current = st.session_state[f"tag_work_{tid}"]["spans"]
    for span in spans:
        current = put_span(current, span)
    _set_spans(tid, current)


def on_reject(tid: int, span: tuple[int, int]) -> None:
    st.session_state[f"tag_work_{tid}"]["rejected"].add(span)
    _persist(tid)


def on_none(tid: int) -> None:
    work = st.session_state[f"tag_work_{tid}"]
    value = bool(st.session_state[f"tag_none_{tid}"])
    if value and work["spans"]:
        st.session_state[f"tag_none_{tid}"] = False
        _flash("error", '"No aspects in this sentence" cannot go with marked spans: remove them first.')
        return
    work["no_aspects"] = value
    _persist(tid)


def on_next(ids: list[int], statuses: dict[int, str]) -> None:
    current = st.session_state.get("tag_item")
    start = ids.index(current) + 1 if current in ids else 0
    for tid in ids[start:] + ids[:start]:
        if statuses[tid] != "submitted" and tid != current:
            st.session_state["tag_item"] = tid
            return
    _flash("info", "Every other item is submitted.")


st.title("Tag aspects")
queue = my_queue(engine, user.id)
if not queue:
    st.info("Nothing is assigned to you yet. A lead assigns translations to annotators.")
    st.stop()

ids = [q.translation_id for q in queue]
rows = {q.translation_id: q for q in queue}
statuses = {q.translation_id: q.status for q in queue}
done = sum(1 for q in queue if q.status == "submitted")
st.progress(done / len(queue), text=f"{done} of {len(queue)} submitted")

if st.session_state.get("tag_item") not in ids:
    st.session_state["tag_item"] = next((t for t in ids if statuses[t] != "submitted"), ids[0])

nav, nxt = st.columns([4, 1], vertical_alignment="bottom")
tid = nav.selectbox(
    "Item", ids, key="tag_item",
    format_func=lambda t: f"{rows[t].sentence_key} · {rows[t].phase} · {rows[t].status}",
)
nxt.button("Next unfinished", key="tag_next", on_click=on_next, args=(ids, statuses), shortcut="Alt+N")

if f"tag_view_{tid}" not in st.session_state:
    _load(tid)
view = st.session_state[f"tag_view_{tid}"]
work = st.session_state[f"tag_work_{tid}"]

flash = st.session_state.pop("tag_flash", None)
if flash:
    getattr(st, flash[0])(flash[1])

main, side = st.columns([3, 2])
with side:
    version, guideline = load_guidelines("tagging")
    with st.expander(f"Aspect-term guideline (v{version})", expanded=False):
        st.markdown(guideline)
    if view.source_text is not None:
        st.markdown("**English source** (aspect terms highlighted)")
        st.markdown(marked_text(view.source_text, view.source_aspect_spans), unsafe_allow_html=True)

with main:
    st.caption(f"{view.sentence_key} · {view.phase} translation · status: {work['status']}")
    if view.text_changed:
        st.warning("The translation was edited after tagging began; you tag the tokens as they were frozen.")
    conflict = st.session_state.get(f"tag_conflict_{tid}")
    if conflict:
        st.error("Your tags for this item were saved from another tab or window after you opened it. "
                 "Nothing was overwritten. Choose which version to keep.")
        mine_col, theirs_col = st.columns(2)
        with mine_col:
            st.markdown("**Your version (not saved)**")
            st.markdown(token_chips(view.tokens, work["spans"]), unsafe_allow_html=True)
            if work["no_aspects"]:
                st.caption("No aspects in this sentence.")
            st.button("Keep mine", key=f"tag_keep_mine_{tid}", on_click=on_keep_mine, args=(tid,))
        with theirs_col:
            theirs = conflict.theirs
            if theirs is None:
                st.markdown("**Saved version:** none (it no longer exists)")
            else:
                st.markdown(f"**Saved version {theirs.version}** · {theirs.status}")
                st.markdown(token_chips(view.tokens, theirs.spans), unsafe_allow_html=True)
                if theirs.no_aspects:
                    st.caption("No aspects in this sentence.")
            st.button("Use the saved version", key=f"tag_take_theirs_{tid}", on_click=on_take_theirs, args=(tid,))

    pending = [
        s for s in view.suggestions
        if s.span not in work["rejected"] and s.span not in work["spans"]
    ]
    st.markdown(
        token_chips(view.tokens, work["spans"], [s.span for s in pending]), unsafe_allow_html=True
    )

    st.pills(
        "Select consecutive tokens, then add them as one aspect span",
        list(range(len(view.tokens))), selection_mode="multi", key=f"tag_sel_{tid}",
        format_func=lambda i: view.tokens[i], wrap=True,
    )
    st.button("Add span", key=f"tag_add_{tid}", on_click=on_add, args=(tid,), type="primary", shortcut="Alt+A",
              help="A span overlapping existing spans replaces them (change a span in one step).")

    st.markdown("**Aspect spans**")
    if not work["spans"]:
        st.caption("None marked yet.")
    for span in work["spans"]:
        label, remove = st.columns([4, 1], vertical_alignment="center")
        label.text(f"{span_text(view.tokens, span)}   ({span_where(span)})")
        remove.button("Remove", key=f"tag_rm_{tid}_{span[0]}_{span[1]}", on_click=on_remove, args=(tid, span))

    if pending:
        st.markdown("**Suggestions** from the translator's aspect map (dashed chips) — not part of your tags "
                    "until you accept them")
        for s in pending:
            label, yes, no = st.columns([3, 1, 1], vertical_alignment="center")
            label.text(f"Suggested: {span_text(view.tokens, s.span)}   (for “{s.term}”)")
            yes.button("Accept", key=f"tag_acc_{tid}_{s.span[0]}", on_click=on_accept, args=(tid, [s.span]))
            no.button("Reject", key=f"tag_rej_{tid}_{s.span[0]}", on_click=on_reject, args=(tid, s.span))
        if len(pending) > 1:
            st.button("Accept all suggestions", key=f"tag_acc_all_{tid}", on_click=on_accept,
                      args=(tid, [s.span for s in pending]))

    st.checkbox("No aspects in this sentence", key=f"tag_none_{tid}", on_change=on_none, args=(tid,),
                help="An explicit answer; an empty save is not one.")

    save, submit = st.columns(2)
    save.button("Save", key=f"tag_save_{tid}", on_click=_persist, args=(tid, "save"), shortcut="Alt+S",
                width="stretch")
    submit.button("Submit", key=f"tag_submit_{tid}", on_click=_persist, args=(tid, "submit"), type="primary",
                  shortcut="Alt+Enter", width="stretch")
    st.caption("Every change is saved automatically as a draft. Shortcuts: Alt+A add span, Alt+S save, "
               "Alt+Enter submit, Alt+N next unfinished item.")
