"""Lead: browse the source corpus with aspect terms highlighted, and open one sentence's view: the English
source and its aspects, every Hindi translation side by side with a word-level difference from the kept one,
every annotator's tags and the gold in force, with links on to adjudicate and to choose the final translation.

The address says which sentence is open: ``?id=<row id of the sentence>`` (the dashboard and the browser's
"Open the sentence view" link there). User and imported text is always shown as text (escaped)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from corpus.bio import tags_to_spans
from corpus.records import PHASES
from corpus.reopen import WorkKind
from corpus.sentence_view import parse_row_id, translation_state
from corpus.spreadsheet import frame_csv
from corpus.vocabulary import Role, Status
from corpus.word_diff import word_diff
from db.browse import domains_and_splits, list_sentences
from db.sentence_view import ItemTags, SentenceDetail, TranslationRow, sentence_detail
from ui.chips import diff_html, marked_text, token_chips
from ui.common import get_engine, project_id, require_role
from ui.downloads import download_link
from ui.reopen import reopen_controls, show_flash
from ui.text import md_escape

ID_PARAM = "id"

user = require_role(Role.LEAD)
engine = get_engine()


def _open(row_id: int | None) -> None:
    """Open a sentence's view (None: back to the list); the address changes with it, so it can be shared."""
    if row_id is None:
        if ID_PARAM in st.query_params:
            del st.query_params[ID_PARAM]
    else:
        st.query_params[ID_PARAM] = str(row_id)


def _figure(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


# ----------------------------------------------------------------------------- one sentence


def show_source(d: SentenceDetail) -> None:
    st.markdown(marked_text(d.text, [(a.start, a.end) for a in d.aspects]), unsafe_allow_html=True)
    st.caption(f"Domain {md_escape(d.domain)} · split {md_escape(d.split)} · SemEval id {md_escape(d.sentence_id)}"
               f" · row {d.row_id}")
    if d.aspects:
        st.dataframe(pd.DataFrame([{"aspect term": a.term, "polarity": a.polarity or "—"} for a in d.aspects]),
                     hide_index=True, key="sv_aspects")
    else:
        st.caption("No aspect terms.")
    if d.categories:
        st.caption("Categories: " + ", ".join(f"{md_escape(c)} ({md_escape(p or '—')})" for c, p in d.categories))


def show_translation(t: TranslationRow, kept: TranslationRow | None) -> None:
    with st.container(border=True, key=f"sv_translation_{t.translation_id}"):
        is_kept = kept is not None and kept.translation_id == t.translation_id
        state = translation_state(t.status, t.untranslatable, t.reason, t.note)
        st.markdown(f"**{md_escape(t.translator)}** · {md_escape(state)} · mean ROUGE-L {_figure(t.mean_rouge_l)}"
                    + (" · **kept**" if is_kept else ""))
        if t.text and t.text.strip():
            reference = kept.text if kept is not None and kept.text and not is_kept else t.text
            st.markdown(diff_html(word_diff(reference, t.text)), unsafe_allow_html=True)
        else:
            st.caption("No text.")
        if t.status == Status.SUBMITTED:
            with st.popover("Reopen…", key=f"sv_reopen_t{t.translation_id}_open"):
                reopen_controls(engine, user, WorkKind.TRANSLATION, t.translation_id, version=t.version,
                                key=f"sv_reopen_t{t.translation_id}")


def show_translations(d: SentenceDetail) -> None:
    st.subheader("Hindi translations")
    if not d.translations:
        waiting = [f"{phase} · {who} ({status})" for phase, who, status in d.not_started]
        st.caption("No translation yet." + (" Not started: " + md_escape(", ".join(waiting)) if waiting else ""))
        return
    kept = d.kept_row
    if d.kept is not None and kept is not None:
        st.markdown(f"Kept: **{md_escape(kept.phase)} · {md_escape(kept.translator)}**, {md_escape(d.kept.reason)}."
                    " The others show their word-level difference from it.")
    else:
        st.caption("No translation is kept yet, so none is compared.")
    st.caption("Mean ROUGE-L: F-measure over words against each other submitted translation of the same phase, "
               "averaged (— with none to compare). Difference: green words only in that translation, struck-"
               "through red words only in the kept one.")
    if d.has_submitted:
        st.page_link("pages/final.py", label="Choose the final translation",
                     query_params={"sentence": str(d.row_id)}, icon=":material/done_all:")
    columns = st.columns(len(PHASES))
    for column, phase in zip(columns, PHASES):
        with column.container(key=f"sv_phase_{phase}"):
            st.markdown(f"**{phase.capitalize()}**")
            rows = [t for t in d.translations if t.phase == phase]
            if not rows:
                st.caption(f"No {phase} translation yet.")
            for t in rows:
                show_translation(t, kept)
            waiting = [f"{who} ({status})" for p, who, status in d.not_started if p == phase]
            if waiting:
                st.caption("Not started: " + md_escape(", ".join(waiting)))


def show_item(item: ItemTags) -> None:
    with st.container(border=True, key=f"sv_item_{item.item_id}"):
        st.markdown(f"**{md_escape(item.phase)} · {md_escape(item.translator)}** · item {item.item_id}")
        if not item.annotations:
            st.caption("Nobody has tagged it yet.")
        for a in item.annotations:
            who, chips = st.columns([1, 4], vertical_alignment="center")
            who.caption(f"{md_escape(a.annotator)} · {md_escape(a.status)}" + (" · no aspects" if a.no_aspects else ""))
            chips.markdown(token_chips(item.tokens, tags_to_spans(a.tags)), unsafe_allow_html=True)
            if a.status == Status.SUBMITTED:
                with st.popover("Reopen…", key=f"sv_reopen_a{a.annotation_id}_open"):
                    reopen_controls(engine, user, WorkKind.ANNOTATION, a.annotation_id, version=a.version,
                                    key=f"sv_reopen_a{a.annotation_id}")
        if item.gold_tags is not None:
            who, chips = st.columns([1, 4], vertical_alignment="center")
            who.caption(f"**Gold in force** ({md_escape(item.gold_source)})")
            chips.markdown(token_chips(item.tokens, tags_to_spans(item.gold_tags)), unsafe_allow_html=True)
        else:
            why = [f"{item.awaited} assigned annotator(s) still to submit"] if item.awaited else []
            why += ["the annotators disagree"] if item.disagree else []
            st.caption("No gold yet" + (": " + "; ".join(why) if why else "."))
        if item.disagree:
            st.page_link("pages/adjudicate.py", label="Adjudicate this item" if item.gold_tags is None
                         else "Review the adjudication", query_params={"item": str(item.item_id)},
                         icon=":material/gavel:")


def show_tags(d: SentenceDetail) -> None:
    st.subheader("Aspect tags")
    if not d.items:
        st.caption("No translation of this sentence has been opened for tagging yet.")
        return
    for item in d.items:
        show_item(item)


def show_sentence(raw: str) -> None:
    row_id = parse_row_id(raw)
    detail = sentence_detail(engine, row_id, project_id()) if row_id is not None else None
    bar = st.container(horizontal=True, key="sv_bar")
    bar.button("All sentences", key="sv_back", on_click=_open, args=(None,), icon=":material/list:")
    if detail is None:
        shown = raw if len(raw) <= 40 else raw[:40] + "…"
        st.error(f"No sentence with id “{md_escape(shown)}” in this project. The address needs the sentence's "
                 "row id, a whole number (the Sentences list opens it for you).")
        st.stop()
    bar.button("Previous", key="sv_previous", on_click=_open, args=(detail.previous_id,),
               disabled=detail.previous_id is None, icon=":material/arrow_back:")
    bar.button("Next", key="sv_next", on_click=_open, args=(detail.next_id,),
               disabled=detail.next_id is None, icon=":material/arrow_forward:")
    st.header(f"Sentence {md_escape(detail.key)}")  # a header: the key fits a phone's width
    show_flash()  # a reopening just done (ui/reopen.py)
    show_source(detail)
    show_translations(detail)
    show_tags(detail)


requested = st.query_params.get(ID_PARAM)
if requested is not None:
    show_sentence(requested)
    st.stop()

# ----------------------------------------------------------------------------- the list

st.title("Sentences")

domains, splits = domains_and_splits(engine)
c1, c2, c3, c4 = st.columns([1, 1, 2, 1])
domain = c1.selectbox("Domain", ["all", *domains], key="browse_domain")
split = c2.selectbox("Split", ["all", *splits], key="browse_split")
contains = c3.text_input("Text contains", key="browse_contains")
flagged = c4.toggle("Flagged only", key="browse_flagged")

views = list_sentences(engine, None if domain == "all" else domain, None if split == "all" else split,
                       contains or None, flagged, limit=2000)
if not views:
    st.info("No sentences match. Import a SemEval file on the Import page.")
    st.stop()

table = pd.DataFrame([{
    "domain": v.domain, "split": v.split, "id": v.sentence_id, "text": v.text,
    "aspect terms": " | ".join(a[0] for a in v.aspects), "flags": ", ".join(v.flags),
} for v in views])
st.caption(f"{len(views):,} sentences shown")
st.dataframe(table, hide_index=True, width="stretch")
# The test split's aspect terms are in it: the checked /download/ route, never a /media/ URL.
download_link("Download CSV", frame_csv(table), "sentences.csv", "text/csv", user=user, roles=(Role.LEAD,),
              key="browse_csv")

labels = {f"{v.domain}/{v.split}/{v.sentence_id}": v for v in views}
pick, go = st.columns([4, 1], vertical_alignment="bottom")
choice = pick.selectbox("Open a sentence", list(labels), key="browse_open")
view = labels[choice]
go.button("Open the sentence view", key="browse_open_view", on_click=_open, args=(view.row_id,),
          help="Its translations side by side, every annotator's tags, and links to adjudicate or choose.")
st.markdown(marked_text(view.text, [(a[1], a[2]) for a in view.aspects]), unsafe_allow_html=True)
if view.aspects:
    st.dataframe(pd.DataFrame([{"term": a[0], "from": a[1], "to": a[2], "polarity": a[3] or "—",
                                "review": ", ".join(a[4])} for a in view.aspects]), hide_index=True)
else:
    st.caption("No aspect terms.")
if view.categories:
    st.caption("Categories: " + ", ".join(f"{md_escape(c)} ({md_escape(p or '—')})" for c, p in view.categories))
