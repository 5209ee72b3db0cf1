"""The disagreements waiting for a lead, read once per change of the tagging stamp and shared by the pages that
show them: the lead's Home counts the open ones, Adjudication lists them. One cache, so opening Adjudication
from Home's link reads nothing again."""

from __future__ import annotations

import streamlit as st

from db.disagreement_queue import Disagreement, disagreements, tagging_stamp
from ui.common import get_engine


@st.cache_data(show_spinner=False, max_entries=4)
def _lines(db: str, project: int, stamp: tuple) -> list[Disagreement]:
    return disagreements(get_engine(), project)


def queue_lines(project: int, stamp: tuple | None = None) -> list[Disagreement]:
    """Every disagreement of the project, decided ones too, worst first (``db.disagreement_queue.disagreements``).
    ``stamp``: the project's ``tagging_stamp`` when the caller has read it already."""
    engine = get_engine()
    if stamp is None:
        stamp = tagging_stamp(engine, project)
    return _lines(engine.url.render_as_string(hide_password=True), project, stamp)


def open_count(project: int, stamp: tuple | None = None) -> int:
    """Disagreements no lead has settled: the Adjudication page's queue as it opens (``?show=open``)."""
    return sum(1 for line in queue_lines(project, stamp) if not line.resolved)
