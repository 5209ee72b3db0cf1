"""Final translations (lead): the automatic pick per sentence, a comparison screen, and overrides."""

from __future__ import annotations

import streamlit as st

from corpus.final_choice import POLICIES
from db.final_choice import (
    Comparison,
    StaleChoice,
    choose,
    compare,
    override_stats,
    overview,
    project_policy,
    record_auto_choices,
)
from ui.common import get_engine, project_id, require_role
from ui.conflict import Choice, Side, conflict_panel
from ui.text import md_escape

user = require_role("lead")
engine = get_engine()
pid = project_id()


def _flash(kind: str, message: str) -> None:
    st.session_state["final_flash"] = (kind, message)


def on_record_auto() -> None:
    try:
        written = record_auto_choices(engine, pid, by=user.id)
    except PermissionError as exc:  # SessionEnded: the lead was shut out meanwhile
        _flash("error", md_escape(str(exc)))
        return
    _flash("success", f"Recorded {written} automatic pick(s).")


def _choose(sentence_id: int, translation_id: int, note: str | None, expected: int | None) -> None:
    """Record the lead's choice against the choice in force they saw; on a conflict keep both to compare."""
    try:
        choice = choose(engine, sentence_id, translation_id, user.id, expected=expected, note=note)
    except StaleChoice as exc:
        st.session_state["final_conflict"] = {"sentence_id": sentence_id, "translation_id": translation_id,
                                              "note": note, "refused": exc}
        return
    except (ValueError, PermissionError) as exc:
        _flash("error", md_escape(str(exc)))
        return
    st.session_state.pop("final_conflict", None)
    st.session_state.pop(f"final_base_{sentence_id}", None)
    _flash("success", "Override recorded." if choice.overridden else "Automatic pick confirmed.")


def on_choose(sentence_id: int) -> None:
    _choose(sentence_id, st.session_state[f"final_pick_{sentence_id}"],
            st.session_state.get(f"final_note_{sentence_id}"), st.session_state.get(f"final_base_{sentence_id}"))


def on_open_sentence() -> None:
    """Opening a sentence (again) is when the lead looks at its choice: forget what they saw before."""
    for key in [k for k in st.session_state if str(k).startswith("final_base_")]:
        del st.session_state[key]


def on_keep_theirs() -> None:
    conflict = st.session_state.pop("final_conflict")
    st.session_state.pop(f"final_base_{conflict['sentence_id']}", None)
    _flash("info", "Kept the choice in force; yours was not recorded.")


def on_replace_with_mine() -> None:
    conflict = st.session_state["final_conflict"]
    theirs = conflict["refused"].theirs
    _choose(conflict["sentence_id"], conflict["translation_id"], conflict["note"],
            theirs.id if theirs is not None else None)


def _described(comparison: Comparison, translation_id: int | None) -> str:
    found = next((c for c in comparison.candidates if c.translation_id == translation_id), None)
    if found is None:
        return "no translation (left out)"
    return f"{found.phase} · {found.translator}: {found.text or ''}"


def show_conflict(conflict: dict) -> None:
    """The lead's refused choice beside the one that came into force meanwhile, to choose again."""
    refused = conflict["refused"]
    theirs = refused.theirs
    shown = compare(engine, conflict["sentence_id"])
    st.subheader(f"Chosen meanwhile: {md_escape(shown.sentence_key)}")
    conflict_panel(
        refused,
        Side("Your choice (not recorded)", [_described(shown, conflict["translation_id"])], note=conflict["note"]),
        Side("In force now", ["no choice"]) if theirs is None
        else Side("In force now", [_described(shown, theirs.translation_id)],
                  note="overrides the automatic pick" if theirs.overridden else None),
        replace_with_mine=Choice("Replace it with mine", "final_conflict_replace", on_replace_with_mine),
        keep_theirs=Choice("Keep the choice in force", "final_conflict_keep", on_keep_theirs),
    )


st.title("Final translations")
try:
    policy = project_policy(engine, pid)
except ValueError as exc:
    st.error(md_escape(str(exc)))
    st.stop()
st.info(f"**Policy: {md_escape(policy)}** — {POLICIES[policy]} Within each phase the automatic pick is the translation "
        "with the highest mean ROUGE-L against the others (ties: more aspects kept, then earlier submission). "
        "The policy is a project setting.")

stats = override_stats(engine, pid)
left, right = st.columns(2)
left.metric("Lead overrides of the automatic pick", "—" if stats.rate is None else f"{stats.rate:.0%}",
            help="Over every lead decision ever recorded, also those a later decision replaced: how often the "
                 "lead chose other than the automatic pick of that moment.")
left.caption(f"{stats.overridden} of {stats.decisions} lead decisions; in force: "
             f"{stats.sentences_overridden} of {stats.sentences} lead-decided sentences keep an override")
right.button("Record automatic picks", key="final_record_auto", on_click=on_record_auto,
             help="Writes the automatic pick where no choice is in force; a lead's choice is never replaced.")

flash = st.session_state.pop("final_flash", None)
if flash:
    getattr(st, flash[0])(flash[1])
if "final_conflict" in st.session_state:
    show_conflict(st.session_state["final_conflict"])

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

sentence_id = st.selectbox("Sentence", list(by_id), key="final_sentence", on_change=on_open_sentence,
                           format_func=lambda s: by_id[s].sentence_key + (" · overridden" if by_id[s].overridden else ""))
comparison = compare(engine, sentence_id)
st.markdown("**English source**")
st.text(comparison.source_text)
votes = comparison.untranslatable_votes
st.caption(f"Untranslatable votes: aware {votes['aware']}, blind {votes['blind']}")

pick = comparison.pick
auto_id = pick.candidate.translation_id if pick.candidate else None
in_force_id = comparison.in_force.translation_id if comparison.in_force else None
# The choice in force when the lead opened the sentence: theirs is recorded against it, so a choice made
# meanwhile by another lead (or the rule) is shown to them, not silently replaced.
st.session_state.setdefault(f"final_base_{sentence_id}", comparison.in_force.id if comparison.in_force else None)
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
st.caption(f"Automatic pick: {md_escape(pick.reason)}.")
if comparison.in_force is not None:
    f = comparison.in_force
    who = f.chosen_by or "the automatic rule"
    st.caption(f"In force: chosen by {md_escape(who)} on {f.created_at:%Y-%m-%d %H:%M} UTC"
               + (" — overrides the automatic pick" if f.overridden else "") + (f"; note: {md_escape(f.note)}" if f.note else ""))

choices = {c.translation_id: c for c in comparison.candidates if c.translated}
if choices:
    options = list(choices)
    default = in_force_id if in_force_id in choices else (auto_id if auto_id in choices else options[0])
    st.radio(
        "Final translation", options, index=options.index(default), key=f"final_pick_{sentence_id}",
        format_func=lambda t: f"{choices[t].phase} · {md_escape(choices[t].translator)}" + (" (automatic pick)" if t == auto_id else ""),
    )
    st.text_input("Note (why you override, optional)", key=f"final_note_{sentence_id}")
    st.button("Record choice", key=f"final_choose_{sentence_id}", type="primary", on_click=on_choose,
              args=(sentence_id,))
