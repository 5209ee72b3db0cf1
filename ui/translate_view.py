"""What the Translate page keeps and shows: one ``TaskState`` per task (the editor's text and map, the save
bookkeeping, what the page says about the last save), the help beside the editor, small pure helpers, and
the saves of a task (``TaskSaves``, through ``db.translation``). The page (``pages/translate.py``) renders
and turns the editor's commits and the buttons into these calls."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import streamlit as st
from sqlalchemy.engine import Engine

from corpus.aspect_map import relocate, span_to_selection
from corpus.glossary import GlossaryEntry, suggestions
from corpus.tokens import tokenize_with_offsets
from corpus.transliterate import cheat_sheet, scheme_label, to_devanagari
from corpus.vocabulary import RevisionAction, phase_spec
from db.assignment import QueueItem
from db.engine import ProjectBusy
from db.translation import (
    Draft,
    InputRefused,
    LinkDraft,
    StaleTranslation,
    SubmissionRefused,
    TaskLocked,
    TaskNotFound,
    TaskView,
    editor_draft,
    refuse_unplaced,
    save_translation,
    skip_task,
)
from db.typing import record_accepted
from ui.conflict import Choice, Side, conflict_panel
from ui.text import md_escape
from ui.translation_editor import KEYS_HELP, MAP_KEYS_HELP, PHONETIC, EditorCommit, MapEntry

Range = tuple[int, int]


@dataclass
class TaskState:
    """One task's state in this browser session, held under one key and changed in place: a run that starts
    while a stopped one still finishes its callback compacts session state at the same moment, and a key set
    then can be lost (a lost version is a false "saved from another tab"); a field of an object it holds is
    not. The editor's text and the text stored last stay keys of their own, ``tx<id>_text`` and
    ``tx<id>_stored_text``: what ``ui.translation_editor.unsaved_in_session`` reads after a session ended."""

    aid: int
    caret: Range | None = None  # where the page puts the editor's caret when it changes the text
    rev: int = 0  # moves on whenever the page changes the editor's text
    mapping: dict[int, MapEntry] = field(default_factory=dict)
    untranslatable: bool = False
    reason: str | None = None
    note: str = ""
    version: int = 0  # the stored version this session's next save expects
    seq: int = 0  # the editor's last commit taken
    selection: Range | None = None  # the editor's selection: where the ITRANS box inserts
    sent: str | None = None  # the text this session asked to store last
    mark: float = 0.0  # monotonic time of the last save (time on task)
    conflict: StaleTranslation | None = None
    busy: bool = False  # a save was refused as busy: retried in the background
    busy_at: float = 0.0
    problems: list[str] | None = None
    saved_at: str | None = None
    picks: list[tuple[str, str]] = field(default_factory=list)  # forms picked that a busy project refused

    @property
    def text(self) -> str | None:
        return st.session_state.get(f"tx{self.aid}_text")

    @text.setter
    def text(self, value: str) -> None:
        st.session_state[f"tx{self.aid}_text"] = value

    @property
    def stored_text(self) -> str:
        return st.session_state.get(f"tx{self.aid}_stored_text", "")

    @stored_text.setter
    def stored_text(self, value: str) -> None:
        st.session_state[f"tx{self.aid}_stored_text"] = value

    def load(self, view: TaskView) -> None:
        """Load the stored draft into the editor (on opening a task or after a conflict)."""
        aspect_ids = {a.id for a in view.aspects}
        self.text, self.caret, self.rev = view.text, None, self.rev + 1
        self.mapping = map_of(view.text, view.links, aspect_ids)
        self.untranslatable, self.reason, self.note = view.untranslatable, view.reason, view.note or ""
        self.version, self.stored_text, self.mark = view.version, view.text, time.monotonic()
        self.conflict = None

    def set_text(self, text: str, caret: Range | None = None) -> None:
        """The page changes the editor's text (the editor shows it because ``rev`` moves on); the map follows
        its words."""
        old = [t.text for t in tokenize_with_offsets(self.text or "")]
        new = [t.text for t in tokenize_with_offsets(text)]
        moved = {}
        for aspect, m in self.mapping.items():
            if m.tokens:
                run = relocate(old, range(*m.tokens), new)
                m = MapEntry(aspect, (run[0], run[-1] + 1) if run else None)
            moved[aspect] = m
        self.mapping, self.text, self.caret, self.rev = moved, text, caret, self.rev + 1
        if caret is not None:  # where the editor puts its caret is where the next insert goes
            self.selection = caret

    def take(self, commit: EditorCommit, aspect_ids: set[int], reasons: tuple[str, ...]) -> None:
        """The editor's committed text, map and untranslatable choice."""
        self.text, self.selection = commit.text, commit.selection
        self.mapping = {m.aspect: m for m in commit.mapping if m.aspect in aspect_ids}
        self.untranslatable = commit.untranslatable
        self.reason = commit.reason if commit.reason in reasons else None
        self.note = commit.note or ""

    def draft(self, task: TaskView) -> Draft:
        """The editor's state as a Draft (``db.translation.editor_draft``: token runs as character spans)."""
        aware = phase_spec(task.phase).shows_source_aspects
        aspects = [(a.id, md_escape(a.term)) for a in task.aspects] if aware else []
        untr = bool(self.untranslatable)
        return editor_draft(self.text, untr, self.reason, self.note, aspects, self.mapping if aware else {})

    def status(self) -> tuple[str, str]:
        """The editor's fixed status line."""
        if self.busy:
            return "saving", "Kept here: the project is busy, saving again shortly…"
        if self.problems or self.conflict:
            return "error", "Not saved yet: see below."
        return ("ok", f"Draft saved at {self.saved_at}") if self.saved_at else ("", "")


@dataclass(frozen=True)
class TaskSaves:
    """The saves of one task from this session, through ``db.translation``; what they leave for the page (the
    version, a conflict, problems, busy) goes into the task's ``TaskState``."""

    engine: Engine
    user_id: int
    project_id: int
    task: TaskView
    guidelines_version: str

    def busy(self, state: TaskState) -> None:
        """A write was refused as busy: say so and retry from this moment on."""
        state.busy, state.busy_at = True, time.monotonic()

    def write(self, state: TaskState, draft: Draft, action: str) -> bool:
        """One save through the service; on success the editor's version follows the stored row. Busy (an
        import holds the write lock past the short wait): nothing was written, the draft stays in the editor
        and in this session with its version unmoved, and the page retries it in the background."""
        now = time.monotonic()
        elapsed = now - state.mark
        previous, state.sent = state.sent, draft.text  # what this session asked to store last, and now
        aid = self.task.assignment_id
        try:
            try:
                view = save_translation(
                    self.engine, self.user_id, aid, draft, expected_version=state.version,
                    action=action, elapsed_s=elapsed, guidelines_version=self.guidelines_version,
                )
            except StaleTranslation as exc:
                # This session's own previous save landed but the run that held its reply was stopped by a
                # newer one (fast reruns on a loaded server): the stored row is exactly what it sent, one
                # version on. Nobody else's work is in it, so follow it once; anything else is a real conflict.
                if not (exc.theirs.version == state.version + 1 and previous is not None
                        and exc.theirs.text == previous):
                    raise
                state.version = exc.theirs.version
                view = save_translation(
                    self.engine, self.user_id, aid, draft, expected_version=state.version,
                    action=action, elapsed_s=elapsed, guidelines_version=self.guidelines_version,
                )
        except ProjectBusy:  # before StaleTranslation and InputRefused: TranslationBusy is an InputRefused
            self.busy(state)
            return False
        except StaleTranslation as exc:
            state.busy = False
            state.conflict = exc
            return False
        except (TaskLocked, TaskNotFound) as exc:
            state.busy = False
            state.problems = [str(exc)]
            return False
        state.busy = False
        state.mark = now
        # Saves take turns, so replies come in order; even so a reply never lowers the version held.
        state.version = max(view.version, state.version)
        state.stored_text = view.text
        state.saved_at = time.strftime("%H:%M:%S")
        return True

    def save(self, state: TaskState, action: str) -> bool:
        """Save the editor; a refused submission still keeps the work as a draft and says why."""
        draft = state.draft(self.task)
        state.problems = None
        try:
            refuse_unplaced(draft, action)  # the map's rule, asked before anything is sent
            return self.write(state, draft, action)
        except SubmissionRefused as exc:
            state.problems = exc.problems
            if action == RevisionAction.SUBMIT and not isinstance(exc, InputRefused):
                self.write(state, draft, RevisionAction.SAVE)
            return False

    def learn_picks(self, state: TaskState, new: list[tuple[str, str]]) -> bool:
        """Record the forms picked for Roman words (with any a busy project refused before). Busy: they are
        kept in this session and sent again with the next commit or retry; False."""
        pairs, state.picks = state.picks + list(new), []
        if not pairs:
            return True
        try:
            record_accepted(self.engine, self.project_id, self.user_id, pairs)
        except ProjectBusy:
            state.picks = pairs
            self.busy(state)
            return False
        return True

    def skip(self, state: TaskState) -> bool:
        """Keep the draft and send the task to the end of the queue; False (and why, in ``state``) if not."""
        self.save(state, RevisionAction.AUTOSAVE)
        if state.busy:  # the skip would meet the same lock: one wait, then the message
            return False
        try:
            skip_task(self.engine, self.user_id, self.task.assignment_id)
        except ProjectBusy:  # TranslationBusy: nothing skipped, the draft kept
            self.busy(state)
            return False
        except SubmissionRefused as exc:
            state.problems = exc.problems
            return False
        except (TaskLocked, TaskNotFound) as exc:  # the session ended meanwhile (db.access.check_writer)
            state.problems = [str(exc)]
            return False
        return True


def map_of(text: str, links: tuple[LinkDraft, ...], aspect_ids: set[int]) -> dict[int, MapEntry]:
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


def inserted(text: str, selection: Range | None, converted: str) -> tuple[str, Range]:
    """``converted`` in place of the selection (or at the end), spaced from the words beside it; the new text
    and its caret after the insert."""
    start, end = selection or (len(text), len(text))
    before, after = text[:start], text[end:]
    if before and not before.endswith((" ", "\n")):
        converted = " " + converted
    if after and not after.startswith((" ", "\n")):
        converted += " "
    return before + converted + after, (len(before) + len(converted),) * 2


def as_text(draft: Draft) -> str:
    """One version of the translation as the conflict panel shows it."""
    if draft.untranslatable:
        return f"Marked untranslatable ({draft.reason or 'no reason yet'}). {draft.note or ''}".strip()
    return draft.text or ""


def task_name(item: QueueItem | None) -> str | None:
    return md_escape(f"{item.domain}/{item.split}/{item.sentence_id} ({item.phase})") if item else None


def skipped_message(skipped: QueueItem | None, upcoming: QueueItem | None) -> str:
    nxt = task_name(upcoming)
    return (f"Skipped {task_name(skipped)}: your draft is kept and it waits at the end of your queue. "
            + (f"Next: {nxt}." if nxt else "Nothing else is open, so it is here again."))


def time_on_task(stored_s: float | None, since: float) -> str:
    """The caption under the editor: the time stored for the task plus this session's since its last save."""
    spent = (stored_s or 0) + time.monotonic() - since
    return (f"Time on this task: {int(spent // 60)} min. Changes save by themselves when you pause or leave the "
            "editor; text you are still typing is kept in this browser until then. Ctrl+Enter submits, Alt+U "
            "marks the sentence untranslatable.")


def submitted_view(task: TaskView) -> None:
    """A submitted task, read-only."""
    st.info("Submitted: read-only unless your lead reopens it.")
    if task.untranslatable:
        st.write(md_escape(f"Marked untranslatable ({task.reason}). {task.note or ''}"))
    else:
        st.text(task.text)


def conflict_view(conflict: StaleTranslation, *, mine: Choice, theirs: Choice) -> None:
    """This session's refused draft beside the version saved meanwhile."""
    conflict_panel(
        conflict,
        Side("Your version (not saved)", [as_text(conflict.mine)]),
        Side(f"Saved version {conflict.theirs.version}", [as_text(conflict.theirs.draft)],
             note=conflict.theirs.translation_status),
        replace_with_mine=mine, keep_theirs=theirs,
    )


def typing_label(scheme: str) -> str:
    return "Phonetic (suggestions)" if scheme == PHONETIC else scheme_label(scheme)


def scheme_in_use(default: str, schemes: tuple[str, ...]) -> str:
    """The typing scheme this browser uses: the translator's choice (the "tx_scheme" box), else the project's
    default, else phonetic."""
    if st.session_state.get("tx_scheme") not in schemes:
        st.session_state["tx_scheme"] = default if default in schemes else PHONETIC
    return st.session_state["tx_scheme"]


def placeholder(scheme: str) -> str:
    return ("Type Hindi in Roman letters (mera keyboard …) or in Devanagari. Ctrl+Enter submits."
            if scheme == PHONETIC else "Type in Devanagari, or use the typing help below. Ctrl+Enter submits.")


PHONETIC_HELP = ("Type Hindi in Roman letters as you would in a chat: a word turns into Devanagari when you type a "
                 "space. 1–6 pick another spelling (the last keeps the Roman word), Esc or {braces} keep a name in "
                 "Roman, Backspace after a word reopens its list. What you pick is learned for the project.")


def queue_box(queue: list[QueueItem], current: int | None) -> None:
    """The queue, open work first, each task with a snippet of its sentence; a pick opens the task."""
    by_id = {q.assignment_id: q for q in queue}

    def picked() -> None:
        """The box's value travels as its label, which names the task's status: a label that changed since
        (a draft saved) comes back as text, not a pick."""
        pick = st.session_state.get("tx_queue_pick")
        if isinstance(pick, int) and pick in by_id and pick != st.session_state.get("tx_active"):
            st.session_state["tx_goto"] = pick

    st.session_state["tx_queue_pick"] = current
    st.selectbox(
        "Your queue", [q.assignment_id for q in queue], key="tx_queue_pick", on_change=picked,
        placeholder="Open a submitted task to read it",
        format_func=lambda a: f"{by_id[a].label} — {by_id[a].preview}",
        help="Open work first; a locked task opens once its blind translation is submitted.",
    )


def typing_box(scheme: str, schemes: tuple[str, ...], roman_key: str, *, on_scheme: Callable[[], None],
               on_insert: Callable[[], None], insert_key: str) -> None:
    """Under the editor: the typing scheme, and for a scheme other than phonetic the Roman box whose
    Devanagari goes into the translation."""
    with st.container(border=True):
        c1, c2 = st.columns([1, 3])
        c1.selectbox("Scheme", schemes, format_func=typing_label, key="tx_scheme", on_change=on_scheme)
        if scheme == PHONETIC:
            c2.caption(PHONETIC_HELP)
        else:
            st.markdown("**Typing help** · type Roman letters, press Enter to preview, then insert")
            c2.text_input("Roman", key=roman_key, placeholder="e.g. kIborD bahuta achChA hai")
            preview = to_devanagari(st.session_state.get(roman_key, ""), scheme)
            if preview.strip():
                st.markdown("Preview: " + md_escape(preview))
            st.button("Insert into translation", key=insert_key, on_click=on_insert,
                      help="Replaces the text selected in the editor, or goes in at the caret.")


def demoted(markdown: str) -> str:
    """Guidelines shown under the page's own headings: every heading two levels down."""
    return re.sub(r"(?m)^(#{1,4}) ", lambda m: "#" * (len(m.group(1)) + 2) + " ", markdown)


def help_tabs(scheme: str, aware: bool, source_text: str, entries: list[GlossaryEntry],
              guidelines: tuple[str, str]) -> None:
    """Beside the editor: the guidelines (version, text), the typing cheat sheet, the glossary."""
    tab_rules, tab_typing, tab_glossary = st.tabs(["Guidelines", "Typing cheat sheet", "Glossary"])
    with tab_rules:
        st.caption(f"Guidelines version {guidelines[0]}")
        with st.container(height=640, border=False):
            st.markdown(demoted(guidelines[1]))
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
            matched = suggestions(source_text, entries)
            if matched:
                st.markdown("**In this sentence**")
                st.table([{"English": e.english, "write": e.hindi, "rule": e.rule} for e in matched])
        look = st.text_input("Look up a word", key="tx_glossary_lookup")
        if look.strip():
            hits = [e for e in entries if look.strip().casefold() in e.english.casefold() or look.strip() in e.hindi]
            if hits:
                st.table([{"English": e.english, "write": e.hindi, "rule": e.rule} for e in hits])
            else:
                st.caption("Not in the glossary yet. Ask your lead to add your spelling.")
