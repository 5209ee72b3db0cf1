"""Translate: the translator's own queue, one task at a time, aspect-blind or aspect-aware.

Everything here is rendered from db.translation / db.assignment, which only ever return the
logged-in translator's own tasks; a blind task arrives without any aspect data at all. The editor
(ui.translation_editor) turns phonetic Roman into Devanagari as you type, with candidates from the JSON
route in ui/api_routes.py; it autosaves on each pause (a draft plus a revision), keeps text still being
typed in the browser and offers it back after a refresh, so nothing typed is lost. The old ITRANS-style
converter stays as a choice of scheme. Ctrl+Enter submits and opens the next task.
"""

from __future__ import annotations

import hashlib
import re
import time

import streamlit as st

from corpus.aspect_map import (
    NotContiguous,
    relocate,
    selection_to_span,
    span_to_selection,
)
from corpus.glossary import check_translation, suggestions
from corpus.guidelines import load_guidelines
from corpus.records import UNTRANSLATABLE_REASONS
from corpus.reopen import WorkKind
from corpus.tokens import tokenize_with_offsets
from corpus.transliterate import SCHEME_KEYS, cheat_sheet, scheme_label, to_devanagari
from corpus.vocabulary import Status
from db.assignment import my_queue, next_task_id
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
from ui.translation_editor import KEYS_HELP, PHONETIC, editor_payload, hindi_input
from ui.reopen import worker_reopen_panel
from ui.text import md_escape

TASK_PARAM = "task"
TYPING_SCHEMES = (PHONETIC, *SCHEME_KEYS)
EDITOR_LABEL = "Your Hindi translation"


user = require_role("translator")
engine = get_engine()

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
queue = my_queue(engine, user.id)
if not queue:
    st.info("Your queue is empty. Your lead will assign sentences to you.")
    st.stop()

done = sum(1 for q in queue if q.status == Status.SUBMITTED)
st.progress(done / len(queue), text=f"{done} of {len(queue)} submitted")

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
if current is None:
    banner.success("You have submitted everything in your queue. Thank you!")
    current = queue[0].assignment_id

by_id = {q.assignment_id: q for q in queue}


def _pick() -> None:
    st.session_state["tx_goto"] = st.session_state["tx_queue_pick"]


if current in by_id:
    st.session_state["tx_queue_pick"] = current
    st.selectbox(
        "Your queue", [q.assignment_id for q in queue], format_func=lambda a: by_id[a].label,
        key="tx_queue_pick", on_change=_pick,
        help="Tasks in working order; a locked task opens once its blind translation is submitted.",
    )

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
aware = task.phase == "aware"
editable = task.status != Status.SUBMITTED


def typing_label(scheme: str) -> str:
    return "Phonetic (suggestions)" if scheme == PHONETIC else scheme_label(scheme)


def _set_text(text: str) -> None:
    """The page changes the editor's text (the editor shows it because ``rev`` moves on)."""
    st.session_state[K + "text"] = text
    st.session_state[K + "rev"] = st.session_state.get(K + "rev", 0) + 1


def _init_state(view: TaskView) -> None:
    """Load the stored draft into the editor's widgets (on opening a task or after a conflict)."""
    _set_text(view.text)
    st.session_state[K + "untr"] = view.untranslatable
    st.session_state[K + "reason"] = view.reason
    st.session_state[K + "note"] = view.note or ""
    st.session_state[K + "version"] = view.version
    st.session_state[K + "links"] = view.links
    st.session_state[K + "stored_text"] = view.text
    st.session_state[K + "map_text"] = view.text
    for a in view.aspects:
        link = next((x for x in view.links if x.aspect_term_id == a.id), None)
        st.session_state[K + f"drop{a.id}"] = bool(link and link.dropped)
        st.session_state[K + f"why{a.id}"] = (link.reason or "") if link and link.dropped else ""
    st.session_state[K + "mark"] = time.monotonic()
    st.session_state.pop(K + "conflict", None)


if st.session_state.get("tx_active") != aid:
    st.session_state["tx_active"] = aid
    _init_state(task)
elif K + "text" not in st.session_state:  # widget state dropped by Streamlit after a page switch
    _init_state(task)


def _pill_key(aspect_id: int, text: str) -> str:
    return K + f"map{aspect_id}_" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:10]


def _collect() -> tuple[Draft, list[str]]:
    """The editor's state as a Draft (the map carried over to the current text), plus problems."""
    text = canonical_text(st.session_state.get(K + "text"))
    links: list[LinkDraft] = []
    problems: list[str] = []
    if aware:
        map_text = st.session_state.get(K + "map_text", "")
        old = tokenize_with_offsets(map_text)
        new = tokenize_with_offsets(text)
        for a in task.aspects:
            if st.session_state.get(K + f"drop{a.id}"):
                links.append(LinkDraft(a.id, dropped=True, reason=st.session_state.get(K + f"why{a.id}") or None))
                continue
            chosen = st.session_state.get(_pill_key(a.id, map_text))
            if chosen is None:  # widget not drawn yet: keep what is stored
                stored = next((x for x in st.session_state.get(K + "links", ()) if x.aspect_term_id == a.id), None)
                chosen = span_to_selection(old, stored.start, stored.end) if stored and not stored.dropped else []
            if map_text != text:
                chosen = relocate([t.text for t in old], chosen, [t.text for t in new])
            try:
                span = selection_to_span(new, chosen)
            except (NotContiguous, IndexError):
                problems.append(f"the words for “{md_escape(a.term)}” must be next to each other; "
                                "select the part that names it")
                continue
            if span:
                links.append(LinkDraft(a.id, span[0], span[1]))
    untr = bool(st.session_state.get(K + "untr"))
    draft = Draft(text, untr, st.session_state.get(K + "reason") if untr else None,
                  st.session_state.get(K + "note") if untr else None, tuple(links))
    return draft, problems


def _write(draft: Draft, action: str) -> bool:
    """One save through the service; on success the editor's version and map follow the stored row."""
    now = time.monotonic()
    elapsed = now - st.session_state.get(K + "mark", now)
    try:
        view = save_translation(
            engine, user.id, aid, draft, expected_version=st.session_state.get(K + "version", 0),
            action=action, elapsed_s=elapsed, guidelines_version=guidelines_version,
        )
    except StaleTranslation as exc:
        st.session_state[K + "conflict"] = exc
        return False
    except (TaskLocked, TaskNotFound) as exc:
        st.session_state[K + "problems"] = [str(exc)]
        return False
    st.session_state[K + "mark"] = now
    st.session_state[K + "version"] = view.version
    st.session_state[K + "links"] = view.links
    st.session_state[K + "stored_text"] = view.text
    st.session_state[K + "saved_at"] = time.strftime("%H:%M:%S")
    return True


EDITOR = K + "editor"


def _absorb(payload: dict | None) -> bool:
    """Take what the editor sent, once (a sequence number orders its sends), and learn the Devanagari
    forms accepted for Roman words since its last send."""
    if payload is None or payload["seq"] <= st.session_state.get(K + "seq", 0):
        return False
    st.session_state[K + "seq"] = payload["seq"]
    st.session_state[K + "text"] = payload["text"]
    pairs = accepted_pairs(payload.get("accepted"))
    if pairs:
        record_accepted(engine, project_id(), user.id, pairs)
    return True


def _sync_editor() -> None:
    """Every action first takes the editor's latest draft, whichever order the browser's events arrived in."""
    _absorb(editor_payload(EDITOR, "typed"))


def _save(action: str) -> bool:
    """Save the editor; a refused submission still keeps the work as a draft and says why."""
    _sync_editor()
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


def _autosave() -> None:
    _save("autosave")


def _editor_draft() -> None:
    """The editor paused or lost focus: save what it sent (once; the task may have just been submitted)."""
    if st.session_state.get("tx_goto_pending") == aid:
        return
    if _absorb(editor_payload(EDITOR, "typed")):
        _save("autosave")


def _restore_unsaved() -> None:
    """Text the browser kept from before a refresh goes back into the editor and is saved at once."""
    if _absorb(editor_payload(EDITOR, "restore")):
        _save("autosave")


def _editor_submit() -> None:
    """Ctrl+Enter in the editor: its text as sent, then submit and open the next task."""
    _sync_editor()
    _absorb(editor_payload(EDITOR, "submit"))
    _submit()


def _task_name(assignment_id: int | None) -> str | None:
    item = by_id.get(assignment_id) if assignment_id is not None else None
    return md_escape(f"{item.domain}/{item.split}/{item.sentence_id} ({item.phase})") if item else None


def _submit() -> None:
    if _save("submit"):
        st.session_state["tx_goto_pending"] = aid
        st.session_state["tx_goto"] = next_task_id(engine, user.id, exclude=aid)
        st.session_state["tx_flash"] = "Submitted. Here is your next task."


def _skip() -> None:
    _save("autosave")
    try:
        skip_task(engine, user.id, aid)
    except SubmissionRefused as exc:
        st.session_state[K + "problems"] = exc.problems
        return
    upcoming = next_task_id(engine, user.id, exclude=aid)
    st.session_state["tx_goto"] = upcoming
    skipped = _task_name(aid)
    nxt = _task_name(upcoming)
    st.session_state["tx_flash"] = (
        f"Skipped {skipped}: your draft is kept and it waits at the end of your queue. "
        + (f"Next: {nxt}." if nxt else "Nothing else is open, so it is here again.")
    )


def _keep_mine() -> None:
    conflict: StaleTranslation = st.session_state.pop(K + "conflict")
    st.session_state[K + "version"] = conflict.theirs.version
    _save("save")


def _take_theirs() -> None:
    conflict: StaleTranslation = st.session_state.pop(K + "conflict")
    _init_state(conflict.theirs)


def _as_text(draft: Draft) -> str:
    """One version of the translation as the conflict panel shows it."""
    if draft.untranslatable:
        return f"Marked untranslatable ({draft.reason or 'no reason yet'}). {draft.note or ''}".strip()
    return draft.text or ""


def _insert() -> None:
    _sync_editor()
    roman = st.session_state.get(K + "roman", "")
    converted = to_devanagari(roman, st.session_state.get("tx_scheme", SCHEME_KEYS[0]))
    if converted.strip():
        current_text = st.session_state.get(K + "text") or ""
        sep = "" if not current_text or current_text.endswith((" ", "\n")) else " "
        _set_text(current_text + sep + converted)
        st.session_state[K + "roman"] = ""
        _save("autosave")


guidelines_version, guidelines_md = load_guidelines("translation", phase=task.phase)
entries = glossary(engine, project_id())

flash = st.session_state.pop("tx_flash", None)
if flash:
    banner.success(flash)
st.session_state.pop("tx_goto_pending", None)
if st.session_state.get("tx_scheme") not in TYPING_SCHEMES:
    st.session_state["tx_scheme"] = PHONETIC
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
    hindi_input(
        EDITOR, task=f"{user.id}:{aid}", label=EDITOR_LABEL, text=st.session_state.get(K + "text") or "",
        saved=st.session_state.get(K + "stored_text", ""), rev=st.session_state.get(K + "rev", 0),
        scheme=scheme, scheme_label=typing_label(scheme), api=SUGGEST_PATH,
        # Behind the HttpOnly session cookie the browser's fetch sends it itself; the page hands the
        # editor a token only when the login did not come in a cookie.
        token=None if isinstance(st.context.cookies.get(SESSION_COOKIE), str)
        else st.session_state.get("session_token"),
        placeholder=("Type Hindi in Roman letters (mera keyboard …) or in Devanagari. Ctrl+Enter submits."
                     if scheme == PHONETIC else "Type in Devanagari, or use the typing help below. "
                     "Ctrl+Enter submits."),
        on_typed=_editor_draft, on_submit=_editor_submit, on_restore=_restore_unsaved,
    )

    with st.container(border=True):
        c1, c2 = st.columns([1, 3])
        c1.selectbox("Scheme", TYPING_SCHEMES, format_func=typing_label, key="tx_scheme")
        if scheme == PHONETIC:
            c2.caption("Type Hindi in Roman letters as you would in a chat: a word turns into Devanagari when "
                       "you type a space. 1–5 pick another spelling, Esc keeps a name in Roman, Ctrl+. "
                       "switches to plain Roman. What you pick is learned for the project.")
        else:
            st.markdown("**Typing help** · type Roman letters, press Enter to preview, then insert")
            c2.text_input("Roman", key=K + "roman", placeholder="e.g. kIborD bahuta achChA hai")
            preview = to_devanagari(st.session_state.get(K + "roman", ""), scheme)
            if preview.strip():
                st.markdown("Preview: " + md_escape(preview))
            st.button("Insert into translation", key=K + "insert", on_click=_insert)

    if aware and task.aspects:
        st.markdown("**Where did each highlighted term go?** Click the Hindi words that render it, "
                    "or mark it dropped.")
        text_now = canonical_text(st.session_state.get(K + "text"))
        tokens = tokenize_with_offsets(text_now)
        st.session_state[K + "map_text"] = text_now
        stored = {x.aspect_term_id: x for x in st.session_state.get(K + "links", ())}
        for n, a in enumerate(task.aspects, start=1):
            with st.container(border=True):
                dropped = st.checkbox(f"{n}. “{md_escape(a.term)}” is dropped in my translation", key=K + f"drop{a.id}",
                                      on_change=_autosave)
                if dropped:
                    st.text_input("Why was it dropped?", key=K + f"why{a.id}", on_change=_autosave)
                elif tokens:
                    link = stored.get(a.id)
                    default = span_to_selection(tokens, link.start, link.end) if link and not link.dropped else []
                    st.pills(
                        f"{n}. “{md_escape(a.term)}” is rendered by", list(range(len(tokens))),
                        format_func=lambda i, tokens=tokens: tokens[i].text, selection_mode="multi",
                        default=default, key=_pill_key(a.id, text_now), on_change=_autosave,
                    )
                else:
                    st.caption(f"{n}. “{md_escape(a.term)}”: write your translation first, then mark its words here.")

    untr = st.checkbox("This sentence is untranslatable", key=K + "untr", on_change=_autosave)
    if untr:
        c1, c2 = st.columns([1, 2])
        c1.selectbox("Reason", UNTRANSLATABLE_REASONS, index=None, key=K + "reason",
                     placeholder="Choose a reason", on_change=_autosave)
        c2.text_input("Note", key=K + "note", on_change=_autosave,
                      placeholder="What makes it untranslatable?")

    for problem in st.session_state.get(K + "problems", ()):
        st.error(problem)

    # Blind: no source text, so no warning can come from what the sentence mentions (its aspects).
    warnings = check_translation(st.session_state.get(K + "text"), entries, task.source_text if aware else None)
    for w in warnings:
        st.warning(md_escape(w.message), icon=":material/spellcheck:")

    b1, b2, b3 = st.columns(3)
    b1.button("Submit & next", key=K + "submit", type="primary", on_click=_submit, width="stretch")
    b2.button("Save draft", key=K + "save", on_click=_save, args=("save",), width="stretch")
    b3.button("Skip for now", key=K + "skip", on_click=_skip, width="stretch")
    saved_at = st.session_state.get(K + "saved_at")
    spent = (task.time_spent_s or 0) + time.monotonic() - st.session_state.get(K + "mark", time.monotonic())
    st.caption(
        (f"Draft saved at {saved_at}. " if saved_at else "")
        + f"Time on this task: {int(spent // 60)} min. Changes save by themselves when you pause or leave a "
        "field; text you are still typing is kept in this browser until then. Ctrl+Enter submits."
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
            st.table([{"key": k, "does": d} for k, d in KEYS_HELP])
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
