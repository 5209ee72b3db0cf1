"""The translate page's editor: one element per task (a Streamlit components v2 element) holding the
Hindi text area, the aspect map (aware phase), "untranslatable" with its reason and note, and the
submit / save / skip buttons. Typing, candidate lists, conversions and aspect selection all happen in
the browser; the server hears one ``commit`` state per committed change (an autosave after a pause, a
save, a submit, a skip, a restore), carrying the task it was made on, the whole text, the map (token
spans per aspect, or dropped with a reason), untranslatable with reason and note, and a sequence
number. The page ignores a commit for another task or one older than what it has taken. Leaving the
text area with the caret moved and nothing edited sends a ``select`` commit (the selection only, no
save), so the ITRANS box's Insert replaces the selection of the moment.

Typing: in phonetic mode a Roman word becomes its top candidate when a space or punctuation follows it
(handled on ``input`` events, so a phone's virtual keyboard converts too); a tappable list under the
caret shows the candidates and always the Roman word itself (``1``–``6`` or arrows and Enter pick one,
``Esc`` keeps the Roman word); Backspace at the end of a converted word, or a click on it, reopens its
list; a word typed in ``{braces}`` stays Roman without the braces (guideline 1); ``.`` or ``|`` after a
word becomes ``।`` when the project's danda setting is on; ``Ctrl+.`` switches between phonetic Hindi
and plain Roman. Candidates come from the JSON route in ``ui/api_routes.py`` with up to three preceding
Devanagari words of the sentence as context (``ctx``), never a page rerun.

The aspect map is made on token positions (``data-token-index``, the canonical tokenizer ported to JS:
``tokenize`` in ``ui/components/translation_editor/text.js``, checked against ``corpus.tokens`` by a node
test): click, Shift+click or drag selects the words of the active aspect, so two equal words are two
tokens; ↑/↓ move between aspects. ``Ctrl+Enter`` submits and ``Alt+U`` toggles untranslatable from anywhere in
the editor.

A rerun never re-creates the editor of the same task: a re-mounted element gets the same task's live
editor back (text, caret, focus), and the server's text replaces what is in the box only when the page
raises ``rev`` (a conflict resolved, an insert from the ITRANS box). Text typed since the last save is
kept in localStorage per task and tab and put back by itself after a refresh when nothing newer was
saved (a banner says so, with Undo). User text reaches the DOM only through ``value`` and
``textContent``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from corpus.vocabulary import SAVE_ACTIONS
from db.project_settings import PHONETIC_SCHEME
from ui.components import asset, bundle

PHONETIC = PHONETIC_SCHEME
AUTOSAVE_PAUSE_MS = 1500
BUSY_RETRY_S = 2  # the page sends a draft a busy project refused again this often until it is stored
ACTIONS = (*SAVE_ACTIONS, "skip", "restore", "scheme", "select")

KEYS_HELP = (
    ("space or punctuation", "turns the Roman word before the caret into its top candidate"),
    ("1 – 6", "picks that candidate from the list under the caret (the last one keeps the Roman word)"),
    ("↓ ↑ then Enter", "picks the highlighted candidate"),
    ("Esc", "keeps the word in Roman letters (names, guideline 1)"),
    ("{Brooklyn}", "a word in braces stays in Roman letters, without the braces"),
    ("Backspace after a word", "reopens its list of spellings (so does a click on it)"),
    (". or | after a word", "ends the sentence with । (when the project's danda setting is on)"),
    ("Ctrl+.", "switches between phonetic Hindi and plain Roman"),
    ("Alt+U", "marks the sentence untranslatable (or not)"),
    ("Ctrl+Enter", "submits the translation and opens the next task"),
)

MAP_KEYS_HELP = (
    ("click · Shift+click · drag", "the Hindi words of the active aspect (two equal words are two tokens)"),
    ("← → / Shift+← →", "move / extend over the words (in the word strip)"),
    ("↑ ↓", "previous / next aspect"),
    ("Backspace", "clears the active aspect's words"),
)


@dataclass(frozen=True)
class MapEntry:
    """Where one aspect went, as the editor holds it: a token span [start, end) of the text, or dropped."""

    aspect: int
    tokens: tuple[int, int] | None = None
    dropped: bool = False
    reason: str | None = None


@dataclass(frozen=True)
class EditorCommit:
    """One committed change of the editor, made on ``task``."""

    task: str
    seq: int
    action: str
    text: str
    accepted: tuple[tuple[str, str], ...]
    mapping: tuple[MapEntry, ...]
    untranslatable: bool
    reason: str | None
    note: str | None
    selection: tuple[int, int] | None
    scheme: str | None = None


def _opt_str(value: Any) -> str | None:
    return value if isinstance(value, str) and value != "" else None


def read_commit(raw: Any, task: str) -> EditorCommit | None:
    """The editor's commit if it is well formed and was made on ``task``; None otherwise (a value about
    another task, or one the editor never sends)."""
    if not isinstance(raw, dict) or raw.get("task") != task:
        return None
    seq, text, action = raw.get("seq"), raw.get("text"), raw.get("action")
    if isinstance(seq, bool) or not isinstance(seq, (int, float)) or not isinstance(text, str) or action not in ACTIONS:
        return None
    mapping: list[MapEntry] = []
    for m in raw.get("map") or []:
        if not isinstance(m, dict) or isinstance(m.get("term"), bool) or not isinstance(m.get("term"), int):
            return None
        tokens = m.get("tokens")
        if tokens is not None:
            if (not isinstance(tokens, list) or len(tokens) != 2
                    or not all(isinstance(x, int) and not isinstance(x, bool) for x in tokens)
                    or not 0 <= tokens[0] < tokens[1]):
                return None
            tokens = (tokens[0], tokens[1])
        mapping.append(MapEntry(m["term"], tokens, bool(m.get("dropped")), _opt_str(m.get("reason"))))
    accepted = tuple(
        (p[0], p[1]) for p in raw.get("accepted") or []
        if isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)
    )
    sel = raw.get("sel")
    selection = (sel[0], sel[1]) if (isinstance(sel, list) and len(sel) == 2
                                     and all(isinstance(x, int) and not isinstance(x, bool) for x in sel)
                                     and 0 <= sel[0] <= sel[1] <= len(text)) else None
    return EditorCommit(task, int(seq), action, text, accepted, tuple(mapping), bool(raw.get("untr")),
                        _opt_str(raw.get("reason")), _opt_str(raw.get("note")), selection, _opt_str(raw.get("scheme")))

#: Pure helpers of the editor (ui/components/translation_editor/text.js): the canonical tokenizer of
#: ``corpus/tokens.py`` ported to JS, the map carried over an edit (``corpus.aspect_map.relocate``), the
#: context words sent with a look-up, braces and danda. tests/unit/test_translation_editor_js.py runs them
#: under node against the Python; tests/js/translation_editor.test.mjs tests them and the typing state.
HELPERS_JS = asset("translation_editor/text.js")

# The editor's JavaScript and CSS are files (ui/components/translation_editor/: index.js and its pure parts
# text.js, typing.js and kept.js; style.css), linted by eslint and tested by node --test.
_JS = bundle("translation_editor/index.js")
_CSS = asset("translation_editor/style.css")

_component = st.components.v2.component("corpus_tool_translation_editor", js=_JS, css=_CSS)

#: Where the editor keeps a task's unsaved text in localStorage: ``KEPT_PREFIX + "<user id>:<assignment>:<tab>"``
#: (the task key starts with the user's id, so one user's copy is never restored into another's editor).
KEPT_PREFIX = "corpus-tool:unsaved-text:"
KEPT_CHOICES = ("discard", "keep")


def kept_prefix(user_id: int) -> str:
    """The localStorage keys of one user's kept copies (every task, every tab)."""
    return f"{KEPT_PREFIX}{int(user_id)}:"


def unsaved_in_session(state: Mapping[str, Any]) -> list[int]:
    """The tasks whose editor text this browser session took but the database does not hold (a save refused,
    for one because the session ended): those whose copies this browser keeps. Pure: reads a mapping."""
    out = []
    for key, value in list(state.items()):
        if not (isinstance(key, str) and key.startswith("tx") and key.endswith("_text")):
            continue
        aid = key[2:-len("_text")]
        if not aid.isdigit() or not isinstance(value, str):
            continue
        if value.strip() != str(state.get(f"tx{aid}_stored_text") or "").strip():
            out.append(int(aid))
    return sorted(out)


def should_ask_about_kept_text(state: Mapping[str, Any]) -> bool:
    """Ask whether to discard this browser's kept copies only when a session ended (its user known) left text
    unsaved, and only until the question is answered."""
    return (isinstance(state.get("ended_user_id"), int) and state.get("kept_text_choice") not in KEPT_CHOICES
            and bool(unsaved_in_session(state)))


_KEPT_JS = bundle("kept_text/index.js")
_KEPT_CSS = asset("kept_text/style.css")

_kept_component = st.components.v2.component("corpus_tool_kept_text", js=_KEPT_JS, css=_KEPT_CSS)


def _kept_chosen() -> None:
    choice = getattr(st.session_state.get("kept_text_question"), "choice", None)
    if choice in KEPT_CHOICES:
        st.session_state["kept_text_choice"] = choice


def kept_text_question() -> None:
    """After a session ended elsewhere with text unsaved: ask whether this browser forgets that user's kept
    copies (discarded in the browser) or keeps them to restore after logging in again as the same user.
    Once answered, says what was done."""
    state = st.session_state
    choice = state.get("kept_text_choice")
    if not should_ask_about_kept_text(state) and choice not in KEPT_CHOICES:
        return
    if not isinstance(state.get("ended_user_id"), int):
        return
    _kept_component(key="kept_text_question", data={
        "prefix": kept_prefix(state["ended_user_id"]), "choice": choice,
        "name": str(state.get("ended_user_name") or "the same user")}, on_choice_change=_kept_chosen)


def translation_editor(
    key: str, *, task: str, label: str, text: str, saved: str, rev: int, scheme: str, scheme_label: str,
    schemes: Sequence[str], scheme_chosen: bool, api: str, token: str | None, placeholder: str,
    aspects: Sequence[tuple[int, str]], mapping: Mapping[int, MapEntry], untranslatable: bool,
    reason: str | None, note: str | None, reasons: Sequence[str], ack: int, status: tuple[str, str],
    danda: bool, on_commit: Callable[[], None], item_key: str = "", caret: tuple[int, int] | None = None,
    focus: bool = True,
) -> Any:
    """Mount the editor for one task; ``on_commit`` reads the commit with ``editor_commit``. ``aspects``
    (id, term) is empty for a blind task: no aspect data reaches a blind page. ``ack`` is the last commit
    the page has taken; ``status`` (kind, text) the save state shown in the editor; ``item_key`` names the
    task in the editor (``data-testid="item-key"``, as in the span editor)."""
    data = {
        "task": task, "label": label, "text": text, "saved": saved, "rev": rev, "scheme": scheme,
        "schemeLabel": scheme_label, "schemes": list(schemes), "schemeChosen": scheme_chosen, "api": api,
        "token": token, "placeholder": placeholder, "pauseMs": AUTOSAVE_PAUSE_MS, "focus": focus,
        "aware": bool(aspects),  # not-vocabulary: the component's flag
        "terms": [{"id": i, "n": n, "term": term} for n, (i, term) in enumerate(aspects, 1)],
        "map": {str(m.aspect): {"tokens": list(m.tokens) if m.tokens else None, "dropped": m.dropped,
                                "reason": m.reason or ""} for m in mapping.values()},
        "untr": untranslatable, "reason": reason or "", "note": note or "", "reasons": list(reasons),
        "ack": ack, "status": {"kind": status[0], "text": status[1]}, "danda": danda,
        "caret": list(caret) if caret else None, "itemKey": item_key,
    }
    return _component(key=key, data=data, on_commit_change=on_commit)


def editor_commit(key: str, task: str) -> EditorCommit | None:
    """The editor's latest commit, if it is well formed and was made on ``task``."""
    return read_commit(getattr(st.session_state.get(key), "commit", None), task)
