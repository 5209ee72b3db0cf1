"""Translate: the translator's own queue, one task at a time, aspect-blind or aspect-aware.

Everything here is rendered from db.translation / db.assignment, which only ever return the
logged-in translator's own tasks; a blind task arrives without any aspect data at all. One editor per
task (ui.translation_editor) holds the text, the aspect map, "untranslatable" and the buttons; it sends
one commit per committed change (an autosave after a pause, a save, a submit, a skip), which this page
saves through db.translation. Banners and panels sit in fixed places above the editor, so a rerun never
re-creates it. The old ITRANS-style converter stays as a choice of scheme. Ctrl+Enter submits and
opens the next task.
"""

from __future__ import annotations

import functools
import re
import threading
import time

import streamlit as st

from corpus.aspect_map import relocate, selection_to_span, span_to_selection
from corpus.glossary import check_translation, suggestions
from corpus.guidelines import load_guidelines
from corpus.records import UNTRANSLATABLE_REASONS
from corpus.reopen import WorkKind
from corpus.tokens import tokenize_with_offsets
from corpus.transliterate import SCHEME_KEYS, cheat_sheet, scheme_label, to_devanagari
from corpus.vocabulary import Status
from db.assignment import my_queue, next_task_id
from db.engine import ProjectBusy
from db.project_settings import load_settings
from db.translation import (
    Draft,
    InputRefused,
    LinkDraft,
    StaleTranslation,
    SubmissionRefused,
    TaskLocked,
    TaskNotFound,
    TaskView,
    canonical_text,
    glossary,
    load_task,
    save_translation,
    skip_task,
)
from db.typing import accepted_pairs, record_accepted
from ui.api_routes import SESSION_COOKIE, SUGGEST_PATH, warm_model
from ui.chips import marked_text
from ui.common import get_engine, project_id, require_role
from ui.conflict import Choice, Side, conflict_panel
from ui.reopen import worker_reopen_panel
from ui.text import md_escape
from ui.translation_editor import BUSY_RETRY_S, KEYS_HELP, MAP_KEYS_HELP, PHONETIC, MapEntry, editor_commit, translation_editor

TASK_PARAM = "task"
TYPING_SCHEMES = (PHONETIC, *SCHEME_KEYS)
EDITOR_LABEL = "Your Hindi translation"


user = require_role("translator")
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


def _pick() -> None:
    """Open the task picked in the queue. The box's value travels as its label, which names the task's
    status: a label that changed since (a draft saved) comes back as text, not a pick."""
    picked = st.session_state.get("tx_queue_pick")
    if isinstance(picked, int) and picked in by_id and picked != st.session_state.get("tx_active"):
        st.session_state["tx_goto"] = picked


def _queue_box(current: int | None) -> None:
    """The queue, open work first, each task with a snippet of its sentence."""
    st.session_state["tx_queue_pick"] = current
    st.selectbox(
        "Your queue", [q.assignment_id for q in queue], key="tx_queue_pick", on_change=_pick,
        placeholder="Open a submitted task to read it",
        format_func=lambda a: f"{by_id[a].label} — {by_id[a].preview}",
        help="Open work first; a locked task opens once its blind translation is submitted.",
    )


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
    _queue_box(None)
    st.stop()

if current in by_id:
    _queue_box(current)

try:
    task = load_task(engine, user.id, current)
except TaskNotFound:
    st.error("That task is not in your queue.")
    st.stop()
except TaskLocked as exc:
    st.warning(f"Locked: {exc}.")
    st.stop()

aid = task.assignment_id
K = f"tx{aid}_"
EDITOR = K + "editor"
TASK_KEY = f"{user.id}:{aid}"
aware = task.phase == "aware"
editable = task.status != Status.SUBMITTED
aspect_ids = {a.id for a in task.aspects}


def typing_label(scheme: str) -> str:
    return "Phonetic (suggestions)" if scheme == PHONETIC else scheme_label(scheme)


def _map_of(text: str, links) -> dict[int, MapEntry]:
    """The stored links as the editor holds them: token spans of ``text``, or dropped with a reason."""
    tokens = tokenize_with_offsets(text)
    out: dict[int, MapEntry] = {}
    for link in links:
        if link.aspect_term_id not in aspect_ids:
            continue
        if link.dropped:
            out[link.aspect_term_id] = MapEntry(link.aspect_term_id, None, True, link.reason)
            continue
        chosen = span_to_selection(tokens, link.start, link.end)
        if chosen:
            out[link.aspect_term_id] = MapEntry(link.aspect_term_id, (chosen[0], chosen[-1] + 1))
    return out


def _set_text(text: str, caret: tuple[int, int] | None = None) -> None:
    """The page changes the editor's text (the editor shows it because ``rev`` moves on); the map follows
    its words."""
    old = [t.text for t in tokenize_with_offsets(st.session_state.get(K + "text") or "")]
    new = [t.text for t in tokenize_with_offsets(text)]
    moved = {}
    for aspect, m in st.session_state.get(K + "map", {}).items():
        if m.tokens:
            run = relocate(old, range(*m.tokens), new)
            m = MapEntry(aspect, (run[0], run[-1] + 1) if run else None)
        moved[aspect] = m
    st.session_state[K + "map"] = moved
    st.session_state[K + "text"] = text
    st.session_state[K + "caret"] = caret
    st.session_state[K + "rev"] = st.session_state.get(K + "rev", 0) + 1
    if caret is not None:  # where the editor puts its caret is where the next insert goes
        _live()["selection"] = caret


def _live() -> dict:
    """The task's save bookkeeping (the stored version, the last commit taken), as items of one dict kept
    in session state and changed in place. A run that starts while a stopped one still finishes its
    callback compacts session state at the same moment, and a key set then can be lost (a lost version is a
    false "saved from another tab"); an item changed inside a dict it holds is not."""
    live = st.session_state.get(K + "live")
    if live is None:
        live = st.session_state[K + "live"] = {"version": 0, "seq": 0}
    return live


def _init_state(view: TaskView) -> None:
    """Load the stored draft into the editor (on opening a task or after a conflict)."""
    st.session_state[K + "text"] = view.text
    st.session_state[K + "caret"] = None
    st.session_state[K + "rev"] = st.session_state.get(K + "rev", 0) + 1
    st.session_state[K + "map"] = _map_of(view.text, view.links)
    st.session_state[K + "untr"] = view.untranslatable
    st.session_state[K + "reason"] = view.reason
    st.session_state[K + "note"] = view.note or ""
    _live()["version"] = view.version
    st.session_state[K + "stored_text"] = view.text
    st.session_state[K + "mark"] = time.monotonic()
    st.session_state.pop(K + "conflict", None)


if st.session_state.get("tx_active") != aid:
    st.session_state["tx_active"] = aid
    _init_state(task)
elif K + "text" not in st.session_state:  # state dropped by Streamlit after a page switch
    _init_state(task)


def _collect() -> tuple[Draft, list[str]]:
    """The editor's state as a Draft (token spans turned into character spans of the text), plus problems."""
    text = canonical_text(st.session_state.get(K + "text"))
    links: list[LinkDraft] = []
    problems: list[str] = []
    if aware:
        tokens = tokenize_with_offsets(text)
        mapping = st.session_state.get(K + "map", {})
        for a in task.aspects:
            m = mapping.get(a.id)
            if m is None:
                continue
            if m.dropped:
                links.append(LinkDraft(a.id, dropped=True, reason=m.reason))
            elif m.tokens:
                try:
                    span = selection_to_span(tokens, range(*m.tokens))
                except IndexError:
                    problems.append(f"the words marked for “{md_escape(a.term)}” are no longer in your "
                                    "translation; mark them again")
                    continue
                links.append(LinkDraft(a.id, span[0], span[1]))
    untr = bool(st.session_state.get(K + "untr"))
    draft = Draft(text, untr, st.session_state.get(K + "reason") if untr else None,
                  st.session_state.get(K + "note") if untr else None, tuple(links))
    return draft, problems


if "tx_lock" not in st.session_state:
    st.session_state["tx_lock"] = threading.RLock()


def _one_at_a_time(callback):
    """The callbacks of one browser session take turns (as on the tag page): with fast reruns a new run
    starts while the stopped one still finishes its save, and the later save must see the version the
    earlier one stored, never send the same expected version again."""

    @functools.wraps(callback)
    def serialized(*args, **kwargs):
        with st.session_state["tx_lock"]:
            return callback(*args, **kwargs)

    return serialized


def _busy() -> None:
    """A write was refused as busy: say so and retry from this moment on."""
    st.session_state[K + "busy"] = True
    st.session_state[K + "busy_at"] = time.monotonic()


def _write(draft: Draft, action: str) -> bool:
    """One save through the service; on success the editor's version follows the stored row. Busy (an
    import holds the write lock past the short wait): nothing was written, the draft stays in the editor
    and in this session with its version unmoved, and the page retries it in the background."""
    now = time.monotonic()
    elapsed = now - st.session_state.get(K + "mark", now)
    live = _live()
    previous, live["sent"] = live.get("sent"), draft.text  # what this session asked to store last, and now
    try:
        try:
            view = save_translation(
                engine, user.id, aid, draft, expected_version=live["version"],
                action=action, elapsed_s=elapsed, guidelines_version=guidelines_version,
            )
        except StaleTranslation as exc:
            # This session's own previous save landed but the run that held its reply was stopped by a
            # newer one (fast reruns on a loaded server): the stored row is exactly what it sent, one version
            # on. Nobody else's work is in it, so follow it once; anything else is a real conflict.
            if not (exc.theirs.version == live["version"] + 1 and previous is not None
                    and exc.theirs.text == previous):
                raise
            live["version"] = exc.theirs.version
            view = save_translation(
                engine, user.id, aid, draft, expected_version=live["version"],
                action=action, elapsed_s=elapsed, guidelines_version=guidelines_version,
            )
    except ProjectBusy:  # before StaleTranslation and InputRefused: TranslationBusy is an InputRefused
        _busy()
        return False
    except StaleTranslation as exc:
        st.session_state.pop(K + "busy", None)
        st.session_state[K + "conflict"] = exc
        return False
    except (TaskLocked, TaskNotFound) as exc:
        st.session_state.pop(K + "busy", None)
        st.session_state[K + "problems"] = [str(exc)]
        return False
    st.session_state.pop(K + "busy", None)
    st.session_state[K + "mark"] = now
    # Saves take turns, so replies come in order; even so a reply never lowers the version held.
    _live()["version"] = max(view.version, _live()["version"])
    st.session_state[K + "stored_text"] = view.text
    st.session_state[K + "saved_at"] = time.strftime("%H:%M:%S")
    return True


def _save(action: str) -> bool:
    """Save the editor; a refused submission still keeps the work as a draft and says why."""
    draft, problems = _collect()
    st.session_state.pop(K + "problems", None)
    try:
        if action == "submit" and problems and not draft.untranslatable:
            raise SubmissionRefused(problems)
        return _write(draft, action)
    except SubmissionRefused as exc:
        st.session_state[K + "problems"] = exc.problems
        if action == "submit" and not isinstance(exc, InputRefused):
            _write(draft, "save")
        return False


def _learn_picks(new: list[tuple[str, str]]) -> bool:
    """Record the forms picked for Roman words (with any a busy project refused before). Busy: they are
    kept in this session and sent again with the next commit or retry; False."""
    pairs = st.session_state.pop(K + "picks", []) + list(new)
    if not pairs:
        return True
    try:
        record_accepted(engine, project_id(), user.id, pairs)
    except ProjectBusy:
        st.session_state[K + "picks"] = pairs
        _busy()
        return False
    return True


@_one_at_a_time
def _on_commit() -> None:
    """The editor committed a change: take it once (a sequence number orders its sends; a commit made on
    another task is not this one's), learn the forms picked for Roman words, then do what it asked."""
    commit = editor_commit(EDITOR, TASK_KEY)
    if commit is None or commit.seq <= _live()["seq"]:
        return
    _live()["seq"] = commit.seq
    if commit.action == "scheme":  # the scheme this translator chose in this browser
        if commit.scheme in TYPING_SCHEMES and not st.session_state.get("tx_scheme_chosen"):
            st.session_state["tx_scheme"] = commit.scheme
        return
    if commit.action == "select":  # the caret moved with no edit: only where the ITRANS box inserts
        if commit.selection is not None and commit.text == st.session_state.get(K + "text"):
            _live()["selection"] = commit.selection
        return
    st.session_state[K + "text"] = commit.text
    _live()["selection"] = commit.selection
    st.session_state[K + "map"] = {m.aspect: m for m in commit.mapping if m.aspect in aspect_ids}
    st.session_state[K + "untr"] = commit.untranslatable
    st.session_state[K + "reason"] = commit.reason if commit.reason in UNTRANSLATABLE_REASONS else None
    st.session_state[K + "note"] = commit.note or ""
    if not _learn_picks(accepted_pairs([list(p) for p in commit.accepted])):
        st.session_state.pop(K + "problems", None)
        return  # busy: the save would meet the same lock; the draft is kept and retried in the background
    if commit.action == "submit":
        _submit()
    elif commit.action == "skip":
        _skip()
    else:
        _save("save" if commit.action == "save" else "autosave")


def _task_name(assignment_id: int | None) -> str | None:
    item = by_id.get(assignment_id) if assignment_id is not None else None
    return md_escape(f"{item.domain}/{item.split}/{item.sentence_id} ({item.phase})") if item else None


def _submit() -> None:
    if _save("submit"):
        st.session_state["tx_goto"] = next_task_id(engine, user.id, exclude=aid)
        st.session_state["tx_flash"] = "Submitted. Here is your next task."


def _skip() -> None:
    _save("autosave")
    if st.session_state.get(K + "busy"):  # the skip would meet the same lock: one wait, then the message
        return
    try:
        skip_task(engine, user.id, aid)
    except ProjectBusy:  # TranslationBusy: nothing skipped, the draft kept
        _busy()
        return
    except SubmissionRefused as exc:
        st.session_state[K + "problems"] = exc.problems
        return
    except (TaskLocked, TaskNotFound) as exc:  # the session ended meanwhile (db.auth.check_writer)
        st.session_state[K + "problems"] = [str(exc)]
        return
    upcoming = next_task_id(engine, user.id, exclude=aid)
    st.session_state["tx_goto"] = upcoming
    skipped = _task_name(aid)
    nxt = _task_name(upcoming)
    st.session_state["tx_flash"] = (
        f"Skipped {skipped}: your draft is kept and it waits at the end of your queue. "
        + (f"Next: {nxt}." if nxt else "Nothing else is open, so it is here again.")
    )


@_one_at_a_time
def _keep_mine() -> None:
    conflict: StaleTranslation = st.session_state.pop(K + "conflict")
    _live()["version"] = conflict.theirs.version
    _save("save")


@_one_at_a_time
def _take_theirs() -> None:
    conflict: StaleTranslation = st.session_state.pop(K + "conflict")
    _init_state(conflict.theirs)


def _as_text(draft: Draft) -> str:
    """One version of the translation as the conflict panel shows it."""
    if draft.untranslatable:
        return f"Marked untranslatable ({draft.reason or 'no reason yet'}). {draft.note or ''}".strip()
    return draft.text or ""


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
    text = st.session_state.get(K + "text") or ""
    start, end = _live().get("selection") or (len(text), len(text))
    before, after = text[:start], text[end:]
    if before and not before.endswith((" ", "\n")):
        converted = " " + converted
    if after and not after.startswith((" ", "\n")):
        converted += " "
    _set_text(before + converted + after, caret=(len(before) + len(converted),) * 2)
    st.session_state[K + "roman"] = ""
    _save("autosave")


def _scheme_chosen() -> None:
    st.session_state["tx_scheme_chosen"] = True


@_one_at_a_time
def _retry() -> None:
    """Send the draft a busy project refused again, as an autosave (a submit refused as busy waits for the
    translator's next Submit); its picks first. A retry of text stored meanwhile is done, not a conflict.
    Not in the run that was just refused: the message shows first, after at most one wait."""
    if not st.session_state.get(K + "busy"):
        return
    if time.monotonic() - st.session_state.get(K + "busy_at", 0.0) < BUSY_RETRY_S:
        return
    if _learn_picks([]):
        _save("autosave")


@st.fragment(run_every=BUSY_RETRY_S)
def _retry_in_background() -> None:
    was_busy = st.session_state.get(K + "busy")
    _retry()
    if was_busy and not st.session_state.get(K + "busy"):
        st.rerun()  # stored (or answered): the whole page drops the message and shows the save state


guidelines_version, guidelines_md = load_guidelines("translation", phase=task.phase)
entries = glossary(engine, project_id())

if st.session_state.get(K + "busy") and editable:
    with retry_box:
        _retry_in_background()
flash = st.session_state.pop("tx_flash", None)
if st.session_state.get(K + "busy"):
    banner.error(ProjectBusy.MESSAGE)  # the draft stays in the editor; the retry clears this once stored
elif flash:
    banner.success(flash)
if st.session_state.get("tx_scheme") not in TYPING_SCHEMES:  # the project's default until the translator chooses
    default = settings.transliteration_scheme
    st.session_state["tx_scheme"] = default if default in TYPING_SCHEMES else PHONETIC
scheme = st.session_state["tx_scheme"]

left, right = st.columns([3, 2], gap="large")

with left:
    st.subheader("Aspect-aware translation" if aware else "Blind translation")
    st.caption(md_escape(f"{task.domain} · {task.split} · sentence {task.sentence_id}"))
    st.markdown(marked_text(task.source_text, [(a.start, a.end) for a in task.aspects]), unsafe_allow_html=True)

    notices = st.container()  # the reopen and conflict panels: always there, so the editor never moves
    if task.translation_id is not None:  # what the lead said about reopening it; on submitted work, a request
        with notices:
            worker_reopen_panel(engine, user, WorkKind.TRANSLATION, task.translation_id, key=K + "reopen")
    if not editable:
        st.info("Submitted: read-only unless your lead reopens it.")
        if task.untranslatable:
            st.write(md_escape(f"Marked untranslatable ({task.reason}). {task.note or ''}"))
        else:
            st.text(task.text)
        st.stop()

    conflict = st.session_state.get(K + "conflict")
    if conflict:
        with notices:
            conflict_panel(
                conflict,
                Side("Your version (not saved)", [_as_text(conflict.mine)]),
                Side(f"Saved version {conflict.theirs.version}", [_as_text(conflict.theirs.draft)],
                     note=conflict.theirs.translation_status),
                replace_with_mine=Choice("Keep mine", K + "keep_mine", _keep_mine),
                keep_theirs=Choice("Use the saved version", K + "take_theirs", _take_theirs),
            )

    if scheme == PHONETIC:
        warm_model()
    problems = st.session_state.get(K + "problems", ())
    saved_at = st.session_state.get(K + "saved_at")
    translation_editor(
        EDITOR, task=TASK_KEY, label=EDITOR_LABEL, text=st.session_state.get(K + "text") or "",
        saved=st.session_state.get(K + "stored_text", ""), rev=st.session_state.get(K + "rev", 0),
        scheme=scheme, scheme_label=typing_label(scheme), schemes=TYPING_SCHEMES,
        scheme_chosen=bool(st.session_state.get("tx_scheme_chosen")), api=SUGGEST_PATH,
        # Behind the HttpOnly session cookie the browser's fetch sends it itself; the page hands the
        # editor a token only when the login did not come in a cookie.
        token=None if isinstance(st.context.cookies.get(SESSION_COOKIE), str)
        else st.session_state.get("session_token"),
        placeholder=("Type Hindi in Roman letters (mera keyboard …) or in Devanagari. Ctrl+Enter submits."
                     if scheme == PHONETIC else "Type in Devanagari, or use the typing help below. "
                     "Ctrl+Enter submits."),
        aspects=[(a.id, a.term) for a in task.aspects] if aware else [],
        mapping=st.session_state.get(K + "map", {}) if aware else {},
        untranslatable=bool(st.session_state.get(K + "untr")), reason=st.session_state.get(K + "reason"),
        note=st.session_state.get(K + "note"), reasons=UNTRANSLATABLE_REASONS,
        ack=_live()["seq"],
        status=("saving", "Kept here: the project is busy, saving again shortly…") if st.session_state.get(K + "busy")
        else ("error", "Not saved yet: see below.") if problems or conflict
        else (("ok", f"Draft saved at {saved_at}") if saved_at else ("", "")),
        danda=settings.danda, caret=st.session_state.get(K + "caret"), on_commit=_on_commit,
        item_key=f"{task.domain} · {task.split} · sentence {task.sentence_id} · {task.phase}",
    )

    for problem in problems:
        st.error(problem)

    # Blind: no source text, so no warning can come from what the sentence mentions (its aspects).
    warnings = check_translation(st.session_state.get(K + "text"), entries, task.source_text if aware else None)
    for w in warnings:
        st.warning(md_escape(w.message), icon=":material/spellcheck:")

    with st.container(border=True):
        c1, c2 = st.columns([1, 3])
        c1.selectbox("Scheme", TYPING_SCHEMES, format_func=typing_label, key="tx_scheme", on_change=_scheme_chosen)
        if scheme == PHONETIC:
            c2.caption("Type Hindi in Roman letters as you would in a chat: a word turns into Devanagari when "
                       "you type a space. 1–6 pick another spelling (the last keeps the Roman word), Esc or "
                       "{braces} keep a name in Roman, Backspace after a word reopens its list. What you pick "
                       "is learned for the project.")
        else:
            st.markdown("**Typing help** · type Roman letters, press Enter to preview, then insert")
            c2.text_input("Roman", key=K + "roman", placeholder="e.g. kIborD bahuta achChA hai")
            preview = to_devanagari(st.session_state.get(K + "roman", ""), scheme)
            if preview.strip():
                st.markdown("Preview: " + md_escape(preview))
            st.button("Insert into translation", key=K + "insert", on_click=_insert,
                      help="Replaces the text selected in the editor, or goes in at the caret.")

    spent = (task.time_spent_s or 0) + time.monotonic() - st.session_state.get(K + "mark", time.monotonic())
    st.caption(
        f"Time on this task: {int(spent // 60)} min. Changes save by themselves when you pause or leave the "
        "editor; text you are still typing is kept in this browser until then. Ctrl+Enter submits, Alt+U "
        "marks the sentence untranslatable."
    )

with right:
    tab_rules, tab_typing, tab_glossary = st.tabs(["Guidelines", "Typing cheat sheet", "Glossary"])
    with tab_rules:
        st.caption(f"Guidelines version {guidelines_version}")
        with st.container(height=640, border=False):
            st.markdown(re.sub(r"(?m)^(#{1,4}) ", lambda m: "#" * (len(m.group(1)) + 2) + " ", guidelines_md))
    with tab_typing:
        if scheme == PHONETIC:
            st.caption("Phonetic typing: the keys of the editor.")
            st.table([{"key": k, "does": d} for k, d in KEYS_HELP + (MAP_KEYS_HELP if aware else ())])
        else:
            st.caption(f"{scheme_label(scheme)}: type the left column to get the right one.")
            st.table([{"type": r["type"], "gives": r["gives"], "note": r["note"]} for r in cheat_sheet(scheme)])
    with tab_glossary:
        st.caption("How the team writes terms (rule 1: keep in Roman; rule 2: transliterate).")
        if aware:
            matched = suggestions(task.source_text, entries)
            if matched:
                st.markdown("**In this sentence**")
                st.table([{"English": e.english, "write": e.hindi, "rule": e.rule} for e in matched])
        look = st.text_input("Look up a word", key="tx_glossary_lookup")
        if look.strip():
            hits = [e for e in entries if look.strip().casefold() in e.english.casefold()
                    or look.strip() in e.hindi]
            if hits:
                st.table([{"English": e.english, "write": e.hindi, "rule": e.rule} for e in hits])
            else:
                st.caption("Not in the glossary yet. Ask your lead to add your spelling.")
