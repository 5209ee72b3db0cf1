"""Final translations (lead): the automatic pick per sentence, a comparison screen, and overrides."""

from __future__ import annotations

import streamlit as st
from sqlalchemy.orm import Session

from corpus.final_choice import POLICIES
from db.engine import reader
from db.final_choice import choose, compare, overview, override_stats, project_policy, record_auto_choices
from pages._common import get_engine, project_id, require_role

user = require_role("lead")
engine = get_engine()
pid = project_id()


def _flash(kind: str, message: str) -> None:
    st.session_state["final_flash"] = (kind, message)


def on_record_auto() -> None:
    written = record_auto_choices(engine, pid)
    _flash("success", f"Recorded {written} automatic pick(s).")


def on_choose(sentence_id: int) -> None:
    translation_id = st.session_state[f"final_pick_{sentence_id}"]
    try:
        choice = choose(engine, sentence_id, translation_id, user.id, st.session_state.get(f"final_note_{sentence_id}"))
    except (ValueError, PermissionError) as exc:
        _flash("error", str(exc))
        return
    _flash("success", "Override recorded." if choice.overridden else "Automatic pick confirmed.")


st.title("Final translations")
try:
    with Session(reader(engine)) as session:
        policy = project_policy(session, pid)
except ValueError as exc:
    st.error(str(exc))
    st.stop()
st.info(f"**Policy: {policy}** — {POLICIES[policy]} Within each phase the automatic pick is the translation "
        "with the highest mean ROUGE-L against the others (ties: more aspects kept, then earlier submission). "
        "The policy is a project setting.")

stats = override_stats(engine, pid)
left, right = st.columns(2)
left.metric("Lead overrides of the automatic pick", "—" if stats.rate is None else f"{stats.rate:.0%}",
            help="Over sentences whose choice in force was made by a lead: how often it differs from the automatic pick.")
left.caption(f"{stats.overridden} of {stats.reviewed} lead decisions")
right.button("Record automatic picks", key="final_record_auto", on_click=on_record_auto,
             help="Writes the automatic pick where no choice is in force; a lead's choice is never replaced.")

flash = st.session_state.pop("final_flash", None)
if flash:
    getattr(st, flash[0])(flash[1])

rows = overview(engine, pid)
if not rows:
    st.info("No submitted translations yet.")
    st.stop()

by_id = {r.sentence_id: r for r in rows}
with st.expander(f"All sentences ({len(rows)})"):
    st.dataframe(
        [
            {"sentence": r.sentence_key, "automatic pick": f"{r.auto_phase} · {r.auto_translator}" if r.auto_translator else "—",
             "decided by": r.decided_by or ("rule" if r.chosen_translation_id else "—"), "overridden": r.overridden}
            for r in rows
        ],
        hide_index=True,
    )

sentence_id = st.selectbox("Sentence", list(by_id), key="final_sentence",
                           format_func=lambda s: by_id[s].sentence_key + (" · overridden" if by_id[s].overridden else ""))
comparison = compare(engine, sentence_id)
st.markdown("**English source**")
st.text(comparison.source_text)
votes = comparison.untranslatable_votes
st.caption(f"Untranslatable votes: aware {votes['aware']}, blind {votes['blind']}")

pick = comparison.pick
auto_id = pick.candidate.translation_id if pick.candidate else None
in_force_id = comparison.in_force.translation_id if comparison.in_force else None
winners = {c.translation_id for c in (pick.aware, pick.blind) if c is not None}
st.dataframe(
    [
        {
            "phase": c.phase,
            "translator": c.translator,
            "translation": "(untranslatable)" if c.untranslatable else (c.text or ""),
            "mean ROUGE-L": None if c.mean_rouge_l is None else round(c.mean_rouge_l, 4),
            "aspects kept": c.aspects_kept,
            "phase winner": c.translation_id in winners,
            "automatic pick": c.translation_id == auto_id,
            "in force": c.translation_id == in_force_id,
        }
        for c in comparison.candidates
    ],
    hide_index=True,
)
st.caption(f"Automatic pick: {pick.reason}.")
if comparison.in_force is not None:
    f = comparison.in_force
    who = f.chosen_by or "the automatic rule"
    st.caption(f"In force: chosen by {who} on {f.created_at:%Y-%m-%d %H:%M} UTC"
               + (" — overrides the automatic pick" if f.overridden else "") + (f"; note: {f.note}" if f.note else ""))

choices = {c.translation_id: c for c in comparison.candidates if c.translated}
if choices:
    options = list(choices)
    default = in_force_id if in_force_id in choices else (auto_id if auto_id in choices else options[0])
    st.radio(
        "Final translation", options, index=options.index(default), key=f"final_pick_{sentence_id}",
        format_func=lambda t: f"{choices[t].phase} · {choices[t].translator}" + (" (automatic pick)" if t == auto_id else ""),
    )
    st.text_input("Note (why you override, optional)", key=f"final_note_{sentence_id}")
    st.button("Record choice", key=f"final_choose_{sentence_id}", type="primary", on_click=on_choose,
              args=(sentence_id,))
