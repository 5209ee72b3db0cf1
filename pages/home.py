"""Home: my work, for every role (only the logged-in user's own counts)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from db.assignment import annotation_counts, coverage, my_queue, queue_counts
from ui.common import get_engine, project_id, require_role
from ui.text import md_escape
from corpus.vocabulary import Status

HERE = Path(__file__).resolve().parent

user = require_role("translator", "annotator", "lead")
engine = get_engine()

st.title(f"Hello, {md_escape(user.display_name)}")

if user.has("translator"):
    st.subheader("Translation")
    counts = queue_counts(my_queue(engine, user.id))
    total = counts.get("total", 0)
    if total:
        done = counts.get(Status.SUBMITTED, 0)
        st.progress(done / total, text=f"{done} of {total} submitted")
        c = st.columns(4)
        c[0].metric("To do", counts.get(Status.ASSIGNED, 0))
        c[1].metric("Drafts", counts.get(Status.DRAFT, 0))
        c[2].metric("Skipped", counts.get(Status.SKIPPED, 0))
        c[3].metric("Waiting (locked)", counts.get("locked", 0))
        st.page_link("pages/translate.py", label="Go to my translation queue", icon=":material/translate:")
    else:
        st.caption("No translation tasks yet.")

if user.has("annotator"):
    st.subheader("Tagging")
    counts = annotation_counts(engine, user.id)
    if counts.get("total"):
        done = counts.get(Status.SUBMITTED, 0)
        st.progress(done / counts["total"], text=f"{done} of {counts['total']} submitted")
        c = st.columns(3)
        c[0].metric("To do", counts.get(Status.ASSIGNED, 0))
        c[1].metric("Drafts", counts.get(Status.DRAFT, 0))
        c[2].metric("Skipped", counts.get(Status.SKIPPED, 0))
        if (HERE / "tag.py").exists():
            st.page_link("pages/tag.py", label="Go to my tagging queue", icon=":material/label:")
    else:
        st.caption("No tagging tasks yet.")

if user.has("lead"):
    st.subheader("Project")
    rows = coverage(engine, project_id())
    if rows:
        st.dataframe(rows, hide_index=True, width="stretch")
    else:
        st.caption("Nothing assigned yet: import sentences, then use Assignments.")
