"""Assignments (lead): choose sentences and hand them to translators, balanced and blind-first."""

from __future__ import annotations

import streamlit as st

from db.assignment import (
    active_translators,
    assign_translations,
    assignment_overview,
    assignment_settings,
    coverage,
    domains_and_splits,
    save_translator_groups,
    select_sentences,
)
from ui.common import get_engine, project_id, require_role
from ui.text import md_escape

user = require_role("lead")
engine = get_engine()
pid = project_id()

st.title("Translation assignments")

settings = assignment_settings(engine, pid)
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
    blind_group = st.multiselect("Blind-phase group (disjoint mode)", ids, format_func=translators.get,
                                 default=[u for u in settings.groups.get("blind", []) if u in translators])
    aware_group = st.multiselect("Aware-phase group (disjoint mode)", ids, format_func=translators.get,
                                 default=[u for u in settings.groups.get("aware", []) if u in translators])
    go = st.form_submit_button("Assign", type="primary")

if go:
    try:
        groups = None
        if mode == "disjoint":
            if not blind_group or not aware_group:
                raise ValueError("choose a group for each phase")
            groups = {"blind": blind_group, "aware": aware_group}
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
    from db.tagging import assign_annotators

    report = assign_annotators(engine, pid, actor_id=user.id)
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
