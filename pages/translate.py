"""Translate: the translator's own queue, one task at a time, aspect-blind or aspect-aware.

Everything here is rendered from db.translation / db.assignment, which only ever return the
logged-in translator's own tasks; a blind task arrives without any aspect data at all. One editor per
task (ui.translation_editor) holds the text, the aspect map, "untranslatable" and the buttons; it sends
one commit per committed change (an autosave after a pause, a save, a submit, a skip), which this page
saves through ui.translate_view.TaskSaves (db.translation); the task's state is one TaskState. Banners
and panels sit in fixed places above the editor, so a rerun never re-creates it. The old ITRANS-style
converter stays as a choice of scheme. Ctrl+Enter submits and opens the next task.
"""

from __future__ import annotations

import time

import streamlit as st

from corpus.glossary import check_translation
from corpus.guidelines import load_guidelines
from corpus.records import UNTRANSLATABLE_REASONS
from corpus.reopen import WorkKind
from corpus.transliterate import SCHEME_KEYS, to_devanagari
from corpus.vocabulary import RevisionAction, Role, Status, phase_spec
from db.assignment import my_queue, next_task_id
from db.engine import ProjectBusy
from db.project_settings import load_settings
from db.translation import TaskLocked, TaskNotFound, glossary, load_task
from db.typing import accepted_pairs
from ui.api_routes import SESSION_COOKIE, SUGGEST_PATH, warm_model
from ui.chips import marked_text
from ui.common import get_engine, project_id, require_role
from ui.conflict import Choice
from ui.reopen import worker_reopen_panel
from ui.text import md_escape
from ui.translate_view import (
    TaskSaves,
    TaskState,
    conflict_view,
    help_tabs,
    inserted,
    placeholder,
    queue_box,
    scheme_in_use,
    skipped_message,
    submitted_view,
    time_on_task,
    typing_box,
    typing_label,
)
from ui.translation_editor import BUSY_RETRY_S, PHONETIC, editor_commit, translation_editor
from ui.turns import one_at_a_time

TASK_PARAM = "task"
TYPING_SCHEMES = (PHONETIC, *SCHEME_KEYS)
EDITOR_LABEL = "Your Hindi translation"


user = require_role(Role.TRANSLATOR)
engine = get_engine()
settings = load_settings(engine, project_id())

# A finished action asks for another task; honour it before anything reads the query string.
if "tx_goto" in st.session_state:
    goto = st.session_state.pop("tx_goto")
    if goto is None:
        st.query_params.pop(TASK_PARAM, None)
    else:
        st.query_params[TASK_PARAM] = str(goto)

st.title("Translate")
# Banners live in fixed places above the editor: one shown or gone never moves the editor, so a rerun
# never re-creates it (a re-created editor would lose what was typed during the round trip).
banner = st.empty()
retry_box = st.container()  # the background retry of a busy save (draws nothing; here so it moves nothing)
queue = my_queue(engine, user.id)
if not queue:
    banner.info("Your queue is empty. Your lead will assign sentences to you.")
    st.stop()

done = sum(1 for q in queue if q.status == Status.SUBMITTED)
st.progress(done / len(queue), text=f"{done} of {len(queue)} submitted")
by_id = {q.assignment_id: q for q in queue}


requested = st.query_params.get(TASK_PARAM)
current: int | None = None
if requested is not None:
    try:
        current = int(requested)
    except ValueError:
        st.error("That task is not in your queue.")
        st.stop()
if current is None:
    current = next_task_id(engine, user.id)
if current is None:  # the end of the queue: one clear screen
    st.session_state.pop("tx_flash", None)
    st.session_state.pop("tx_active", None)
    banner.success("You have submitted everything in your queue. Thank you! Open a task below to read it; "
                   "your lead can reopen one if it needs a change.")
    queue_box(queue, None)
    st.stop()

if current in by_id:
    queue_box(queue, current)

try:
    task = load_task(engine, user.id, current)
except TaskNotFound:
    st.error("That task is not in your queue.")
    st.stop()
except TaskLocked as exc:
    st.warning(f"Locked: {exc}.")
    st.stop()

aid = task.assignment_id
K = f"tx{aid}_"  # the widgets' keys
EDITOR = K + "editor"
TASK_KEY = f"{user.id}:{aid}"
aware = phase_spec(task.phase).shows_source_aspects
editable = task.status != Status.SUBMITTED
aspect_ids = {a.id for a in task.aspects}

state: TaskState | None = st.session_state.get(f"tx{aid}")
if st.session_state.get("tx_active") != aid or state is None or K + "text" not in st.session_state:
    st.session_state["tx_active"] = aid  # opened, or its state dropped by Streamlit after a page switch
    state = st.session_state.setdefault(f"tx{aid}", TaskState(aid))
    state.load(task)

_one_at_a_time = one_at_a_time("tx_lock")  # the callbacks of one browser session take turns


@_one_at_a_time
def _on_commit() -> None:
    """The editor committed a change: take it once (a sequence number orders its sends; a commit made on
    another task is not this one's), learn the forms picked for Roman words, then do what it asked."""
    commit = editor_commit(EDITOR, TASK_KEY)
    if commit is None or commit.seq <= state.seq:
        return
    state.seq = commit.seq
    if commit.action == "scheme":  # the scheme this translator chose in this browser
        if commit.scheme in TYPING_SCHEMES and not st.session_state.get("tx_scheme_chosen"):
            st.session_state["tx_scheme"] = commit.scheme
        return
    if commit.action == "select":  # the caret moved with no edit: only where the ITRANS box inserts
        if commit.selection is not None and commit.text == state.text:
            state.selection = commit.selection
        return
    state.take(commit, aspect_ids, UNTRANSLATABLE_REASONS)
    if not saves.learn_picks(state, accepted_pairs([list(p) for p in commit.accepted])):
        state.problems = None
        return  # busy: the save would meet the same lock; the draft is kept and retried in the background
    if commit.action == RevisionAction.SUBMIT:
        _submit()
    elif commit.action == "skip":
        _skip()
    else:
        saves.save(state, RevisionAction.SAVE if commit.action == RevisionAction.SAVE else RevisionAction.AUTOSAVE)


def _submit() -> None:
    if saves.save(state, RevisionAction.SUBMIT):
        st.session_state["tx_goto"] = next_task_id(engine, user.id, exclude=aid)
        st.session_state["tx_flash"] = "Submitted. Here is your next task."


def _skip() -> None:
    if not saves.skip(state):
        return
    upcoming = next_task_id(engine, user.id, exclude=aid)
    st.session_state["tx_goto"] = upcoming
    st.session_state["tx_flash"] = skipped_message(by_id.get(aid), by_id.get(upcoming) if upcoming else None)


@_one_at_a_time
def _keep_mine() -> None:
    conflict, state.conflict = state.conflict, None
    state.version = conflict.theirs.version
    saves.save(state, RevisionAction.SAVE)


@_one_at_a_time
def _take_theirs() -> None:
    conflict, state.conflict = state.conflict, None
    state.load(conflict.theirs)


@_one_at_a_time
def _insert() -> None:
    """The ITRANS box's text replaces the editor's selection (or goes in at the caret). The editor's
    latest commit is taken first (its callback may not have run yet in this rerun): leaving the editor for
    the box sends the caret as a ``select`` commit, so the insert lands where the caret is now."""
    _on_commit()
    roman = st.session_state.get(K + "roman", "")
    converted = to_devanagari(roman, st.session_state.get("tx_scheme", SCHEME_KEYS[0]))
    if not converted.strip():
        return
    state.set_text(*inserted(state.text or "", state.selection, converted))
    st.session_state[K + "roman"] = ""
    saves.save(state, RevisionAction.AUTOSAVE)


def _scheme_chosen() -> None:
    st.session_state["tx_scheme_chosen"] = True


@_one_at_a_time
def _retry() -> None:
    """Send the draft a busy project refused again, as an autosave (a submit refused as busy waits for the
    translator's next Submit); its picks first. A retry of text stored meanwhile is done, not a conflict.
    Not in the run that was just refused: the message shows first, after at most one wait."""
    if not state.busy:
        return
    if time.monotonic() - state.busy_at < BUSY_RETRY_S:
        return
    if saves.learn_picks(state, []):
        saves.save(state, RevisionAction.AUTOSAVE)


@st.fragment(run_every=BUSY_RETRY_S)
def _retry_in_background() -> None:
    was_busy = state.busy
    _retry()
    if was_busy and not state.busy:
        st.rerun()  # stored (or answered): the whole page drops the message and shows the save state


guidelines_version, guidelines_md = load_guidelines("translation", phase=task.phase)
saves = TaskSaves(engine, user.id, project_id(), task, guidelines_version)
entries = glossary(engine, project_id())

if state.busy and editable:
    with retry_box:
        _retry_in_background()
flash = st.session_state.pop("tx_flash", None)
if state.busy:
    banner.error(ProjectBusy.MESSAGE)  # the draft stays in the editor; the retry clears this once stored
elif flash:
    banner.success(flash)
scheme = scheme_in_use(settings.transliteration_scheme, TYPING_SCHEMES)

left, right = st.columns([3, 2], gap="large")

with left:
    st.subheader("Aspect-aware translation" if aware else "Blind translation")
    st.caption(md_escape(f"{task.domain} · {task.split} · sentence {task.sentence_id}"))
    st.markdown(marked_text(task.source_text, [(a.start, a.end) for a in task.aspects]), unsafe_allow_html=True)

    notices = st.container()  # the reopen and conflict panels: always there, so the editor never moves
    if task.translation_id is not None:  # what the lead said about reopening it; on submitted work, a request
        with notices:
            worker_reopen_panel(engine, user, WorkKind.TRANSLATION, task.translation_id, key=f"{K}reopen")
    if not editable:
        submitted_view(task)
        st.stop()

    if state.conflict:
        with notices:
            conflict_view(state.conflict, mine=Choice("Keep mine", K + "keep_mine", _keep_mine),
                          theirs=Choice("Use the saved version", K + "take_theirs", _take_theirs))

    if scheme == PHONETIC:
        warm_model()
    translation_editor(
        EDITOR, task=TASK_KEY, label=EDITOR_LABEL, text=state.text or "", saved=state.stored_text, rev=state.rev,
        scheme=scheme, scheme_label=typing_label(scheme), schemes=TYPING_SCHEMES,
        scheme_chosen=bool(st.session_state.get("tx_scheme_chosen")), api=SUGGEST_PATH,
        # Behind the HttpOnly session cookie the browser's fetch sends it itself; the page hands the
        # editor a token only when the login did not come in a cookie.
        token=None if isinstance(st.context.cookies.get(SESSION_COOKIE), str)
        else st.session_state.get("session_token"),
        placeholder=placeholder(scheme), aspects=[(a.id, a.term) for a in task.aspects] if aware else [],
        mapping=state.mapping if aware else {}, untranslatable=bool(state.untranslatable), reason=state.reason,
        note=state.note, reasons=UNTRANSLATABLE_REASONS, ack=state.seq, status=state.status(),
        danda=settings.danda, caret=state.caret, on_commit=_on_commit,
        item_key=f"{task.domain} · {task.split} · sentence {task.sentence_id} · {task.phase}",
    )

    for problem in state.problems or ():
        st.error(problem)

    # Blind: no source text, so no warning can come from what the sentence mentions (its aspects).
    for w in check_translation(state.text, entries, task.source_text if aware else None):
        st.warning(md_escape(w.message), icon=":material/spellcheck:")

    typing_box(scheme, TYPING_SCHEMES, K + "roman", on_scheme=_scheme_chosen, on_insert=_insert,
               insert_key=K + "insert")

    st.caption(time_on_task(task.time_spent_s, state.mark))

with right:
    help_tabs(scheme, aware, task.source_text, entries, (guidelines_version, guidelines_md))
