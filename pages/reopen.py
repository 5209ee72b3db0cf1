"""Reopen (lead): the requests translators and annotators made from their submitted work, oldest first, each
with the worker, the sentence, the phase and kind, their reason, and Reopen / Decline with a reason the worker
reads. Reopening from the sentence view uses the same controls (``ui/reopen.py``)."""

from __future__ import annotations

import streamlit as st

from db.conflicts import utc_stamp
from db.reopen import pending_requests
from ui.common import LEAD, get_engine, project_id, require_role
from ui.reopen import reopen_controls, show_flash, unsettled_conflicts
from ui.text import md_escape

user = require_role(*LEAD)
engine = get_engine()

st.title("Reopen")
show_flash()
st.subheader("Reopen requests")
requests = pending_requests(engine, project_id())
for key, kind, record_id in unsettled_conflicts({f"rq{r.request_id}" for r in requests}):
    with st.container(border=True):  # refused as stale, and its request was answered meanwhile
        reopen_controls(engine, user, kind, record_id, key=key)
if not requests:
    st.success("No reopen requests wait for you.")
st.caption("A worker asks from their submitted translation or annotation. Reopening sets it back to draft "
           "(recorded in its history); declining keeps it submitted. Either way the worker reads your reason.")
for r in requests:
    with st.container(border=True, key=f"reopen_request_{r.request_id}"):
        st.markdown(f"**{md_escape(r.worker)}** asks to reopen their {r.kind} · {r.phase} phase · "
                    f"{md_escape(r.sentence_key)}")
        st.caption(md_escape(f"asked {utc_stamp(r.requested_at)}" if r.requested_at else ""))
        st.text(r.source_text)
        st.text(r.text or "(marked untranslatable)")
        st.markdown("**Reason:** " + md_escape(r.reason))
        reopen_controls(engine, user, r.kind, r.record_id, version=r.record_version, request=r,
                        key=f"rq{r.request_id}")
