"""Final translations (lead): a decision view. One sentence at a time: the English source with its aspects,
every candidate as a card with its full text, its agreement figure and its word-level difference from the
automatic pick; a key chooses (1-9, U for untranslatable) and the view moves on to the next sentence.

The address says what is shown: ``?show=undecided|untranslatable|overridden|all`` (the Home page links the
first two) and ``?sentence=<id>`` (the sentence view links there)."""

from __future__ import annotations

import streamlit as st

from corpus.final_choice import (
    CHOICE_KEYS,
    POLICIES,
    SHOW,
    UNTRANSLATABLE_KEY,
    agreement_text,
    next_sentence,
    progress_text,
    shown_sentence,
    step,
)
from corpus.vocabulary import Role
from db.final_candidates import project_policy
from db.final_choice import (
    StaleChoice,
    choose,
    compare,
    decision_overview,
    mark_untranslatable,
    override_stats,
    record_auto_choices,
)
from ui.chips import marked_text
from ui.common import get_engine, project_id, require_role
from ui.conflict import Choice, Side, conflict_panel
from ui.final_view import SHOW_HELP, SHOW_LABELS, RefusedChoice, cards, described, facts, requested_sentence
from ui.text import md_escape

SHOW_PARAM, SENTENCE_PARAM = "show", "sentence"

user = require_role(Role.LEAD)
engine = get_engine()
pid = project_id()
# The choice in force when the lead opened each sentence (sentence id -> choice id, None: none): their
# decision is recorded against it, so one made meanwhile by another lead (or the rule) is shown, not replaced.
seen: dict[int, int | None] = st.session_state.setdefault("final_seen", {})


def _go(**params: object) -> None:
    """Move the view (from a callback): the address changes on the next run, and the lead looks afresh."""
    st.session_state["final_goto"] = params
    seen.clear()


if "final_goto" in st.session_state:
    for name, value in st.session_state.pop("final_goto").items():
        if value is None:
            st.query_params.pop(name, None)
        else:
            st.query_params[name] = str(value)


def _flash(kind: str, message: str) -> None:
    st.session_state["final_flash"] = (kind, message)


def _decide(sentence_id: int, translation_id: int | None, show: str) -> None:
    """Record the lead's decision against the choice in force they saw, then open the next sentence of the
    filter; on a conflict stay and keep both to compare."""
    note = st.session_state.get(f"final_note_{sentence_id}") or None
    expected = seen.get(sentence_id)
    try:
        if translation_id is None:
            choice = mark_untranslatable(engine, sentence_id, user.id, expected=expected, note=note)
        else:
            choice = choose(engine, sentence_id, translation_id, user.id, expected=expected, note=note)
    except StaleChoice as exc:
        st.session_state["final_conflict"] = RefusedChoice(sentence_id, translation_id, note, exc, show)
        return
    except (ValueError, PermissionError) as exc:
        _flash("error", md_escape(str(exc)))
        return
    st.session_state.pop("final_conflict", None)
    view = decision_overview(engine, pid)
    what = ("marked untranslatable" if translation_id is None
            else "override recorded" if choice.overridden else "automatic pick confirmed")
    _flash("success", f"{md_escape(view.keys.get(sentence_id, sentence_id))}: {what}.")
    _go(sentence=next_sentence(view.lists[show], view.order, sentence_id))


def on_record_auto() -> None:
    try:
        written = record_auto_choices(engine, pid, by=user.id)
    except PermissionError as exc:  # SessionEnded: the lead was shut out meanwhile
        _flash("error", md_escape(str(exc)))
        return
    _flash("success", f"Recorded {written} automatic pick(s).")


def on_keep_theirs() -> None:
    conflict: RefusedChoice = st.session_state.pop("final_conflict")
    seen.pop(conflict.sentence_id, None)
    _flash("info", "Kept the choice in force; yours was not recorded.")


def on_replace_with_mine() -> None:
    conflict: RefusedChoice = st.session_state["final_conflict"]
    theirs = conflict.refused.theirs
    seen[conflict.sentence_id] = theirs.id if theirs is not None else None
    st.session_state[f"final_note_{conflict.sentence_id}"] = conflict.note or ""
    _decide(conflict.sentence_id, conflict.translation_id, conflict.show)


def show_conflict(conflict: RefusedChoice) -> None:
    """The lead's refused decision beside the one that came into force meanwhile, to decide again."""
    theirs = conflict.refused.theirs
    shown = compare(engine, conflict.sentence_id)
    st.subheader(f"Chosen meanwhile: {md_escape(shown.sentence_key)}")
    conflict_panel(
        conflict.refused,
        Side("Your choice (not recorded)", [described(shown, conflict.translation_id)], note=conflict.note),
        Side("In force now", ["no choice"]) if theirs is None
        else Side("In force now", [described(shown, theirs.translation_id)],
                  note="overrides the automatic pick" if theirs.overridden else None),
        replace_with_mine=Choice("Replace it with mine", "final_conflict_replace", on_replace_with_mine),
        keep_theirs=Choice("Keep the choice in force", "final_conflict_keep", on_keep_theirs),
    )


# ----------------------------------------------------------------------------- the page

st.title("Final translations")
try:
    policy = project_policy(engine, pid)
except ValueError as exc:
    st.error(md_escape(str(exc)))
    st.stop()

view = decision_overview(engine, pid)
show = st.query_params.get(SHOW_PARAM)
if show not in SHOW:
    show = "undecided"
listed = view.lists[show]
requested = requested_sentence(st.query_params.get(SENTENCE_PARAM))
current = shown_sentence(requested, listed, view.order)

undecided = len(view.lists["undecided"])
bar, record = st.columns([4, 1], vertical_alignment="bottom")
if view.order:
    bar.progress((len(view.order) - undecided) / len(view.order), text=progress_text(undecided, len(view.order)))
record.button("Record automatic picks", key="final_record_auto", on_click=on_record_auto, width="stretch",
              help="Writes the automatic pick where no choice is in force; a lead's choice is never replaced.")

with st.expander(f"Policy: {policy} · override rate"):
    st.info(f"**Policy: {md_escape(policy)}** — {POLICIES[policy]} Within each phase the automatic pick is the "
            "translation with the highest mean ROUGE-L against the others (ties: more aspects kept, then earlier "
            "submission). The policy is a project setting.")
    stats = override_stats(engine, pid)
    st.metric("Lead overrides of the automatic pick", "—" if stats.rate is None else f"{stats.rate:.0%}",
              help="Over every lead decision ever recorded, also those a later decision replaced: how often the "
                   "lead chose other than the automatic pick of that moment.")
    st.caption(f"{stats.overridden} of {stats.decisions} lead decisions; in force: "
               f"{stats.sentences_overridden} of {stats.sentences} lead-decided sentences keep an override")

flash = st.session_state.pop("final_flash", None)
if flash:
    getattr(st, flash[0])(flash[1])
if "final_conflict" in st.session_state:
    show_conflict(st.session_state["final_conflict"])

if not view.order:
    st.info("No submitted translations yet.")
    st.stop()

st.session_state["final_show_pick"] = show
st.radio("Show", SHOW, key="final_show_pick", horizontal=True, help=SHOW_HELP,
         format_func=lambda s: f"{SHOW_LABELS[s]} ({len(view.lists[s])})",
         on_change=lambda: _go(show=st.session_state["final_show_pick"], sentence=None))
if requested is not None and requested not in view.order:
    st.warning(f"Sentence {requested} has no submitted translation in this project; showing the list instead.")
if current is None:
    if show == "undecided":
        st.success("Every translated sentence has a final choice in force.")
    else:
        st.info(f"No sentences are {SHOW_LABELS[show].lower()}.")
    st.stop()
if current != requested:
    st.query_params[SENTENCE_PARAM] = str(current)

# Navigation: previous / next within the filter, or jump to any sentence of it.
options = listed if current in listed else [current, *listed]
back, where, forward = st.columns([1, 4, 1], vertical_alignment="bottom")
back.button("Previous", key="final_prev", shortcut="left", disabled=len(options) < 2,
            on_click=lambda: _go(sentence=step(options, current, -1)))
forward.button("Next", key="final_next", shortcut="right", disabled=len(options) < 2,
               on_click=lambda: _go(sentence=step(options, current, 1)))
st.session_state["final_jump"] = current
where.selectbox(
    "Sentence" + (f" ({listed.index(current) + 1} of {len(listed)} in this list)" if current in listed
                  else " (not in this list)"),
    options, key="final_jump", format_func=lambda s: view.keys[s],
    on_change=lambda: _go(sentence=st.session_state["final_jump"]),
)

comparison = compare(engine, current)
sid = comparison.sentence_id
seen.setdefault(sid, comparison.in_force.id if comparison.in_force else None)

st.subheader(md_escape(comparison.sentence_key))
st.markdown(marked_text(comparison.source_text, comparison.source_aspects), unsafe_allow_html=True)
st.caption(md_escape(facts(comparison)))

shown_cards = cards(comparison)
for card in shown_cards:
    c = card.candidate
    with st.container(border=True, key=f"final_card_{c.translation_id}"):
        head, button = st.columns([5, 1], vertical_alignment="center")
        head.markdown(f"**{card.number}** · {md_escape(c.phase)} · {md_escape(c.translator)} · "
                      f"{md_escape(agreement_text(c, comparison.candidates))} " + " ".join(card.badges))
        button.button("Choose", key=f"final_choose_{sid}_{c.translation_id}",
                      shortcut=card.key, type="primary" if card.is_auto else "secondary", on_click=_decide,
                      args=(sid, c.translation_id, show), width="stretch")
        st.text(c.text or "")
        if card.is_auto:
            st.caption(f"Why: {md_escape(comparison.pick.reason)}.")
        elif card.diff is not None:
            st.caption("Compared with the automatic pick: words only here in green, words only in the pick struck "
                       "through in red.")
            st.markdown(f'<div style="padding-bottom:0.5rem">{card.diff}</div>', unsafe_allow_html=True)

for c in comparison.candidates:
    if not c.translated:
        st.caption(md_escape(f"{c.phase} · {c.translator}: marked untranslatable"
                             + (f" ({c.reason})" if c.reason else "")))
if not shown_cards:
    st.info("No translator translated this sentence: decide whether it is untranslatable.")

note, untranslatable = st.columns([5, 1], vertical_alignment="bottom")
note.text_input("Note kept with your decision (optional)", key=f"final_note_{sid}",
                help="Why you override or leave the sentence out; the export's list of left-out sentences shows it.")
untranslatable.button("Untranslatable", key=f"final_untranslatable_{sid}",
                      shortcut=UNTRANSLATABLE_KEY, on_click=_decide, args=(sid, None, show), width="stretch",
                      help="No final translation for this sentence: the export leaves it out, with your note.")
st.caption(f"Keys: 1–{min(len(shown_cards), len(CHOICE_KEYS))} choose a candidate, {UNTRANSLATABLE_KEY} marks the "
           "sentence untranslatable, ← → move; after a decision the next sentence of the list opens."
           if shown_cards else f"Keys: {UNTRANSLATABLE_KEY} marks the sentence untranslatable, ← → move.")
