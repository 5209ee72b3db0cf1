"""Lead: browse the source corpus with aspect terms highlighted (escaped: text stays text)."""

import pandas as pd
import streamlit as st

from corpus.spreadsheet import frame_csv
from db.browse import domains_and_splits, list_sentences
from ui.common import get_engine, require_role
from ui.chips import marked_text
from ui.text import md_escape

require_role("lead")
st.title("Sentences")

domains, splits = domains_and_splits(get_engine())
c1, c2, c3, c4 = st.columns([1, 1, 2, 1])
domain = c1.selectbox("Domain", ["all", *domains], key="browse_domain")
split = c2.selectbox("Split", ["all", *splits], key="browse_split")
contains = c3.text_input("Text contains", key="browse_contains")
flagged = c4.toggle("Flagged only", key="browse_flagged")

views = list_sentences(get_engine(), None if domain == "all" else domain, None if split == "all" else split,
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
st.download_button("Download CSV", frame_csv(table), "sentences.csv", "text/csv",
                   key="browse_csv")

labels = {f"{v.domain}/{v.split}/{v.sentence_id}": v for v in views}
choice = st.selectbox("Open a sentence", list(labels), key="browse_open")
view = labels[choice]
st.markdown(marked_text(view.text, [(a[1], a[2]) for a in view.aspects]), unsafe_allow_html=True)
if view.aspects:
    st.dataframe(pd.DataFrame([{"term": a[0], "from": a[1], "to": a[2], "polarity": a[3] or "—",
                                "review": ", ".join(a[4])} for a in view.aspects]), hide_index=True)
else:
    st.caption("No aspect terms.")
if view.categories:
    st.caption("Categories: " + ", ".join(f"{md_escape(c)} ({md_escape(p or '—')})" for c, p in view.categories))
