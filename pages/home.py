"""Home: translators and annotators see their own work; a lead sees what waits for them (the work queue,
each count a link to the page filtered to those items); an admin sees the admin's pages."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import streamlit as st

from corpus.vocabulary import Phase, Role, Status
from corpus.work_queue import OVERDUE_DAYS, WorkQueue
from db.disagreement_queue import tagging_stamp
from db.assignment import annotation_counts, my_queue, queue_counts
from db.work_queue import lead_work_queue, queue_stamp
from ui.common import EVERYONE, get_engine, project_id, require_role
from ui.disagreements import open_count
from ui.text import md_escape

HERE = Path(__file__).resolve().parent

user = require_role(*EVERYONE)
engine = get_engine()

st.title(f"Hello, {md_escape(user.display_name)}")

if Role.TRANSLATOR in user.roles:
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

if Role.ANNOTATOR in user.roles:
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


def _n(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


@st.cache_data(show_spinner=False, max_entries=4)
def _work_queue(db: str, project: int, stamp: tuple, hour: datetime) -> WorkQueue:
    """Every count but the disagreements, kept until the next change that may move one, and for at most
    an hour (overdue is judged against the hour)."""
    return lead_work_queue(engine, project, now=hour, count_disagreements=False)


def work_queue_items(queue: WorkQueue) -> list[tuple[int | None, str, str, dict[str, str], str]]:
    """(count, label, page, query parameters naming the filter, the rule) for every pending action;
    count None: not counted yet."""
    late_t, late_a, d = queue.overdue_translators, queue.overdue_annotators, queue.disagreements
    return [
        (d, "Counting disagreements…" if d is None else _n(d, "disagreement", "disagreements") + " to adjudicate",
         "pages/adjudicate.py", {"show": "open"},
         "Tagged items whose annotators differ and whose gold no lead has settled since."),
        (queue.without_final, _n(queue.without_final, "sentence", "sentences") + " without a final translation",
         "pages/final.py", {"show": "undecided"},
         ("Sentences with a submitted translation and no final choice in force (neither the automatic pick "
          "recorded nor a lead's).")),
        (queue.untranslatable, _n(queue.untranslatable, "sentence", "sentences")
         + " marked untranslatable to review", "pages/final.py", {"show": "untranslatable"},  # not-vocabulary: the Final page's filter
         "A translator marked the sentence untranslatable and no lead has decided its final translation."),
        *[(queue.unassigned.get(phase, 0), _n(queue.unassigned.get(phase, 0), "sentence", "sentences")
           + f" not yet assigned in the {phase} phase", "pages/assign.py",
           {"phase": str(phase), "show": "unassigned"},
           f"Sentences with no translator in the {phase} phase (a reassigned task does not count).")
          for phase in (Phase.BLIND, Phase.AWARE)],
        (len(late_t.people), _n(len(late_t.people), Role.TRANSLATOR, "translators") + " with overdue work ("
         + _n(late_t.tasks, "task", "tasks") + ")", "pages/assign.py", {"show": "overdue", "kind": "translation"},
         f"Open translation tasks (assigned, draft or skipped) assigned more than {OVERDUE_DAYS} days ago."),
        (len(late_a.people), _n(len(late_a.people), Role.ANNOTATOR, "annotators") + " with overdue work ("
         + _n(late_a.tasks, "task", "tasks") + ")", "pages/assign.py", {"show": "overdue", "kind": "tagging"},
         f"Open tagging tasks (assigned, draft or skipped) assigned more than {OVERDUE_DAYS} days ago."),
        (queue.reopen_requests, _n(queue.reopen_requests, "reopen request", "reopen requests") + " to answer",
         "pages/reopen.py", {},
         "Translators and annotators asked to reopen their submitted work; no lead has answered yet."),
    ]


def show_item(where, item: tuple) -> None:
    _, label, page, params, rule = item
    where.page_link(page, label=label, query_params=params, help=rule, icon=":material/arrow_forward:")


if Role.LEAD in user.roles:
    st.subheader("Waiting for you")
    pid = project_id()
    db_key = engine.url.render_as_string(hide_password=True)
    tagging = tagging_stamp(engine, pid)
    hour = datetime.now(UTC).replace(tzinfo=None, minute=0, second=0, microsecond=0)  # stored times: naive UTC
    queue = _work_queue(db_key, pid, (*tagging, *queue_stamp(engine)), hour)
    first, *others = work_queue_items(queue)
    line = st.empty()  # the disagreements' line, filled in when they are counted
    line.caption(first[1])
    for item in others:
        if item[0]:
            show_item(st, item)
    late = sorted({*queue.overdue_translators.people, *queue.overdue_annotators.people})
    if late:
        st.caption("Overdue: " + md_escape(", ".join(late)))
    queue = replace(queue, disagreements=open_count(pid, tagging))  # the Adjudication page's cache too
    if queue.disagreements:
        show_item(line, work_queue_items(queue)[0])
    elif queue.empty:
        line.success("Nothing waits for you.")
    else:
        line.empty()
    st.caption(f"Overdue means an open task (assigned, draft or skipped) assigned more than {OVERDUE_DAYS} days "
               "ago. Counts are for the whole project; hover a line for its rule.")

if Role.ADMIN in user.roles:
    st.subheader("Administration")
    st.page_link("pages/users.py", label="Users: accounts, roles, passwords", icon=":material/group:")
    st.page_link("pages/backup.py", label="Backup and restore", icon=":material/backup:")
    st.page_link("pages/settings.py", label="Project settings", icon=":material/settings:")
