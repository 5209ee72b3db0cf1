"""Assignments (lead): choose sentences and hand them to translators, balanced and blind-first.

The Home page's links open a list first: ``?phase=blind|aware&show=unassigned`` (sentences with no translator
in that phase, ready to assign) and ``?show=overdue&kind=translation|tagging`` (overdue tasks, to reassign).
Both lists are the Home page's rules (``corpus.work_queue``) over the same rows."""

from __future__ import annotations

import streamlit as st

from corpus.vocabulary import WORK_ORDER, Phase, Role
from corpus.work_queue import OVERDUE_DAYS
from db.assignment import (
    TASK_KINDS,
    active_translators,
    assign_translations,
    assignment_overview,
    assignment_settings,
    coverage,
    domains_and_splits,
    overdue_work,
    reassign_tasks,
    save_translator_groups,
    select_sentences,
    unassigned_in_phase,
)
from ui.common import get_engine, project_id, require_role
from ui.text import md_escape

PHASES = (Phase.BLIND, Phase.AWARE)  # the order they are worked in
EVERYONE = "everyone"

user = require_role(Role.LEAD)
engine = get_engine()
pid = project_id()

st.title("Translation assignments")

if "assign_goto" in st.session_state:  # a list's control asked for another list: the address says which
    for name, value in st.session_state.pop("assign_goto").items():
        st.query_params[name] = value
flash = st.session_state.pop("assign_flash", None)
if flash:
    getattr(st, flash[0])(flash[1])


def _go(**params: str) -> None:
    st.session_state["assign_goto"] = params


def _preview(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def on_assign_unassigned(phase: str, ids: list[int]) -> None:
    try:
        summary = assign_translations(engine, pid, ids, user.id, int(st.session_state["assign_list_per_phase"]),
                                      phases=(phase,))
    except (ValueError, PermissionError) as exc:
        st.session_state["assign_flash"] = ("error", md_escape(str(exc)))
        return
    st.session_state["assign_flash"] = ("warning" if summary.shortfalls else "success",
                                        f"{phase} phase: " + str(summary) + ".")


def on_reassign(kind: str, ids: list[int]) -> None:
    try:
        done = reassign_tasks(engine, kind, ids, user.id)
    except (ValueError, PermissionError) as exc:
        st.session_state["assign_flash"] = ("error", md_escape(str(exc)))
        return
    st.session_state["assign_flash"] = ("warning" if done.short else "success", str(done).capitalize() + ".")


def unassigned_list(phase: str) -> None:
    """Sentences with no translator in ``phase``, and the button that gives them translators in it."""
    st.session_state["assign_list_phase"] = phase  # the address decides, also when a new link opens the page
    st.radio("Phase", PHASES, key="assign_list_phase", horizontal=True,
             on_change=lambda: _go(phase=str(st.session_state["assign_list_phase"]), show="unassigned"))
    rows = unassigned_in_phase(engine, pid, phase)
    st.subheader(f"{len(rows)} sentence(s) not yet assigned in the {phase} phase")
    st.caption(f"Sentences with no translator in the {phase} phase (a reassigned task does not count), in corpus "
               "order: the Home page's count.")
    if not rows:
        st.success(f"Every sentence has a translator in the {phase} phase.")
        return
    st.dataframe([{"sentence": r.key, "text": _preview(r.text)} for r in rows], hide_index=True, width="stretch")
    left, right = st.columns(2, vertical_alignment="bottom")
    left.number_input("Translators per sentence", 1, 20, settings.per_phase, key="assign_list_per_phase")
    right.button(f"Assign these {len(rows)} sentence(s) in the {phase} phase", key="assign_list_go",
                 type="primary", on_click=on_assign_unassigned, args=(phase, [r.sentence_pk for r in rows]),
                 help="Least-loaded eligible translators first; the blindness rules hold (blind before aware).")


def overdue_list(kind: str) -> None:
    """Overdue tasks of ``kind`` with who holds them, and the button that moves them to others."""
    st.session_state["assign_list_kind"] = kind
    st.radio("Tasks", TASK_KINDS, key="assign_list_kind", horizontal=True,
             on_change=lambda: _go(show="overdue", kind=st.session_state["assign_list_kind"]))
    tasks = overdue_work(engine, pid, kind)
    people = sorted({t.person for t in tasks})
    st.subheader(f"{len(tasks)} overdue {kind} task(s)")
    st.caption(f"Open {kind} tasks (assigned, draft or skipped) of active people, assigned more than "
               f"{OVERDUE_DAYS} days ago: the Home page's count.")
    if not tasks:
        st.success(f"No {kind} work is overdue.")
        return
    who = st.selectbox("Whose tasks", [EVERYONE, *people], key=f"assign_overdue_person_{kind}")
    shown = [t for t in tasks if who in (EVERYONE, t.person)]
    st.dataframe([{"person": t.person, "sentence": t.key, "phase": t.phase, "status": t.status,
                   "assigned on": t.assigned_at.strftime("%Y-%m-%d"), "text": _preview(t.text)} for t in shown],
                 hide_index=True, width="stretch")
    whose = "" if who == EVERYONE else f" of {who}"
    st.button(f"Reassign these {len(shown)} task(s){whose} to others", key="assign_reassign_go",
              on_click=on_reassign, args=(kind, [t.task_id for t in shown]),
              help="Each task goes to the least-loaded eligible person; its holder never gets it back and "
                   "keeps any draft stored.")


settings = assignment_settings(engine, pid)
show = st.query_params.get("show")
if show == "unassigned":
    requested = st.query_params.get("phase")
    unassigned_list(requested if requested in PHASES else Phase.BLIND)
    st.divider()
elif show == "overdue":
    requested = st.query_params.get("kind")
    overdue_list(requested if requested in TASK_KINDS else TASK_KINDS[0])
    st.divider()

translators = {u.id: u.username for u in active_translators(engine)}
available = domains_and_splits(engine, pid)

if not available:
    st.info("No sentences yet: import a SemEval file first.")
    st.stop()
if not translators:
    st.warning("No active translators: create some on the Users page.")
    st.stop()

grouping = "one group for both phases (blind first)" if settings.mode == "same" else "separate groups per phase"
st.caption(
    f"{len(translators)} active translators · project default: {settings.per_phase} translators per sentence "
    f"and phase, {grouping}."
)

domains = sorted({d for d, _, _ in available})
splits = sorted({s for _, s, _ in available})
with st.form("assign"):
    c1, c2, c3, c4 = st.columns(4)
    domain = c1.selectbox("Domain", ["all", *domains])
    split = c2.selectbox("Split", ["all", *splits])
    first = c3.number_input("From sentence #", min_value=1, value=1, help="Position in corpus order, 1-based.")
    last = c4.number_input("To sentence # (0 = to the end)", min_value=0, value=0)
    c1, c2 = st.columns(2)
    per_phase = c1.number_input("Translators per sentence and phase", 1, 20, settings.per_phase)
    mode = c2.radio("Translator groups", ("same", "disjoint"), index=("same", "disjoint").index(settings.mode),
                    horizontal=True,
                    help="same: a translator may do both phases of a sentence, blind first (enforced). "
                         "disjoint: separate groups.")
    ids = list(translators)
    phase_groups = {
        phase: st.multiselect(f"{phase.capitalize()}-phase group (disjoint mode)", ids, format_func=translators.get,
                              default=[u for u in settings.groups.get(phase, []) if u in translators])
        for phase in WORK_ORDER
    }
    go = st.form_submit_button("Assign", type="primary")

if go:
    try:
        groups = None
        if mode == "disjoint":
            if not all(phase_groups.values()):
                raise ValueError("choose a group for each phase")
            groups = {phase.value: members for phase, members in phase_groups.items()}
            save_translator_groups(engine, pid, groups, user.id)
        chosen = select_sentences(engine, pid, None if domain == "all" else domain,
                                  None if split == "all" else split, int(first), int(last) or None)
        if not chosen:
            raise ValueError("no sentences in that selection")
        summary = assign_translations(engine, pid, chosen, user.id, int(per_phase), mode, groups)
    except ValueError as exc:
        st.error(md_escape(str(exc)))
    else:
        (st.warning if summary.shortfalls else st.success)(str(summary).capitalize() + ".")

st.subheader("Tagging assignments")
st.caption("Gives every translation to be tagged (project setting: all, or each phase's best) its K annotators, "
           "never its translator, to the least-loaded annotators first. Safe to run again.")
if st.button("Assign annotators", key="assign_annotators"):
    from db.assignment import assign_annotators

    try:
        report = assign_annotators(engine, pid, actor_id=user.id)
    except (ValueError, PermissionError) as exc:  # the session ended meanwhile (db.access.check_writer)
        st.error(md_escape(str(exc)))
    else:
        message = f"{report.created} new tagging assignment(s) over {report.targets} translation(s) to tag."
        if report.short:
            message += f" {len(report.short)} translation(s) lack enough eligible annotators (never their translator)."
        (st.warning if report.short else st.success)(message)

st.subheader("Progress by translator")
overview = assignment_overview(engine)
if overview:
    st.dataframe(overview, hide_index=True, width="stretch")
else:
    st.caption("Nothing assigned yet.")
st.subheader("Coverage by domain, split and phase")
rows = coverage(engine, pid)
if rows:
    st.dataframe(rows, hide_index=True, width="stretch")
