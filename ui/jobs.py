"""Background jobs on a page: who runs them in an app server, and how a page shows one without waiting on it.

A page enqueues (``db.jobs.enqueue``) and renders the job's state: queued, running with its elapsed time, done
with when, failed with why. While the job is queued or running, a fragment reads its state again every
``WATCH_EVERY_S`` and reruns the page once it ended, so the result appears without a click and no page run
ever waits for training.
"""

from __future__ import annotations

import threading

import streamlit as st
from sqlalchemy import Engine

from corpus.jobs import JobText
from db import jobs
from db.jobs import JobView
from db.workflows import start_job_runner_if_configured
from ui.text import md_escape

#: How often a page looks again at a job it shows as queued or running.
WATCH_EVERY_S = 2.0

_served = threading.Event()


def serve_jobs_here() -> None:
    """Called by the served app (``streamlit run app.py``): this process is an app server, which runs jobs in
    a thread of its own unless ``CORPUS_APP_RUNS_JOBS=0`` (page tests under AppTest never call it)."""
    _served.set()


def start_app_runner(engine: Engine) -> None:
    """The app server's job thread for this database (once per process), if this is a served app."""
    if _served.is_set():
        start_job_runner_if_configured(engine)


def show_text(said: JobText) -> None:
    """The sentence as text: a failed job's error may quote imported or typed text (``md_escape``)."""
    {"info": st.info, "success": st.success, "error": st.error}.get(said.level, st.info)(md_escape(said.text))


def show_job(engine: Engine, job: JobView | None, what: str, key: str) -> None:
    """``what`` (e.g. "The baseline") as its job stands; an active job is watched until it ends, then the page
    reruns. ``key`` names the element (``st-key-<key>`` in the page) for tests. The one keyed container holds the
    watcher too, so the rerun at the job's end replaces what it showed in place (a container made inside the
    fragment sat elsewhere in the page: for the rerun's moment the old and the new state were both on screen)."""
    if job is None:
        return
    with st.container(key=key):
        if job.active:
            _watched(engine, job.id, what)
        else:
            show_text(job.describe(what))


@st.fragment(run_every=WATCH_EVERY_S)
def _watched(engine: Engine, job_id: int, what: str) -> None:
    job = jobs.get(engine, job_id)
    if job is None or not job.active:
        st.rerun()
    show_text(job.describe(what))
