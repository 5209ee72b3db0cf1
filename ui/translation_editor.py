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
``TOKENIZE_JS``, checked against ``corpus.tokens`` by a node test): click, Shift+click or drag selects
the words of the active aspect, so two equal words are two tokens; ↑/↓ move between aspects.
``Ctrl+Enter`` submits and ``Alt+U`` toggles untranslatable from anywhere in the editor.

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

from db.project_settings import PHONETIC_SCHEME

PHONETIC = PHONETIC_SCHEME
AUTOSAVE_PAUSE_MS = 1500
BUSY_RETRY_S = 2  # the page sends a draft a busy project refused again this often until it is stored
ACTIONS = ("autosave", "save", "submit", "skip", "restore", "scheme", "select")

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

#: Pure helpers of the editor, exported so that a node test (tests/unit/test_translation_editor_js.py) runs
#: them: the canonical tokenizer of ``corpus/tokens.py`` ported to JS, the map carried over an edit
#: (``corpus.aspect_map.relocate``), the context words sent with a look-up, braces and danda.
HELPERS_JS = r"""
const TOKEN_RE = /[\p{L}\p{M}\p{N}\u200c\u200d]+|[^\p{White_Space}]/gu;
const DEVANAGARI_WORD = /[\u0900-\u0963\u0966-\u097F\u200c\u200d]+/g;
const SENTENCE_END = /[\u0964\u0965.!?]/;

// The canonical tokens (corpus/tokens.py): offsets are into the NFC text, in UTF-16 units.
export function tokenize(text) {
  const t = (text || "").normalize("NFC");
  const out = [];
  for (const m of t.matchAll(TOKEN_RE)) out.push({ text: m[0], start: m.index, end: m.index + m[0].length });
  return out;
}

// A token span [s, e) of the old words carried over to the new words: the same run of words, nearest its
// old place; null if those words are no longer there together (the relocate of the map module in corpus).
export function relocate(oldWords, span, newWords) {
  if (!span || span[1] > oldWords.length || span[0] >= span[1]) return null;
  const run = oldWords.slice(span[0], span[1]);
  const n = run.length;
  let best = null;
  for (let i = 0; i + n <= newWords.length; i++) {
    let hit = true;
    for (let j = 0; j < n; j++) if (newWords[i + j] !== run[j]) { hit = false; break; }
    if (hit && (best === null || Math.abs(i - span[0]) < Math.abs(best - span[0]))) best = i;
  }
  return best === null ? null : [best, best + n];
}

// Up to three Devanagari words typed before a word in its sentence, separated by single spaces.
export function contextWords(before) {
  let s = before || "";
  for (let i = s.length - 1; i >= 0; i--) {
    if (SENTENCE_END.test(s.charAt(i))) { s = s.slice(i + 1); break; }
  }
  const words = s.match(DEVANAGARI_WORD) || [];
  return words.slice(-3).join(" ");
}

// Does "." (or "|") typed after this character end a sentence with a danda? After a letter, a vowel sign
// or a closing quote or bracket, yes; after a digit (3.5), a space or another stop, no.
export function endsSentence(prev) {
  return !!prev && /[\p{L}\p{M}"'”’)\]]/u.test(prev);
}

// The text before the caret ends with a closing brace of "{words}": where the "{" is and what is inside.
export function bracedWord(before) {
  const m = (before || "").match(/\{([^{}\n]+)\}$/);
  return m ? { start: before.length - m[0].length, inner: m[1] } : null;
}

// Is the caret inside an open "{" (words there stay Roman)?
export function insideBraces(before) {
  const s = before || "";
  return s.lastIndexOf("{") > s.lastIndexOf("}");
}
"""

_JS = HELPERS_JS + r"""
const CACHE = new Map();      // roman (lower case) + "|" + context -> candidates, shared by every editor on the page
const INFLIGHT = new Map();   // the same key -> Promise of candidates (or null)
const SEPARATORS = " .,;:!?)]}\"'\u0964\u0965/-|\n";
const MODE_KEY = "corpus-tool:typing-mode";
const SCHEME_KEY = "corpus-tool:typing-scheme";
const TAB_KEY = "corpus-tool:tab";
const KEPT_PREFIX = "corpus-tool:unsaved-text:";  // + "<user id>:<assignment>:<tab>" (KEPT_PREFIX in Python)
const LOOKUP_TIMEOUT_MS = 20000;  // a busy server's first look-up loads the model
const PREFETCH_PAUSE_MS = 120;  // a look-up once typing pauses this long, not one per keystroke
const LIVE = new Map();  // task -> its editor, kept across re-mounts of the element

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

function lookup(data, roman, ctx) {
  const key = roman.toLowerCase() + "|" + (ctx || "");
  if (CACHE.has(key)) return Promise.resolve(CACHE.get(key));
  if (INFLIGHT.has(key)) return INFLIGHT.get(key);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), LOOKUP_TIMEOUT_MS);
  let url = data.api + "?k=5&q=" + encodeURIComponent(roman.toLowerCase());
  if (ctx) url += "&ctx=" + encodeURIComponent(ctx);
  const p = fetch(url, { headers: { "X-Corpus-Session": data.token || "" }, credentials: "same-origin",
                         signal: abort.signal })
    .then((r) => (r.ok ? r.json() : null))
    .then((j) => {
      const c = j && Array.isArray(j.candidates) ? j.candidates.filter((x) => typeof x === "string" && x) : null;
      if (c) CACHE.set(key, c);
      return c;
    })
    .catch(() => null)
    .finally(() => { clearTimeout(timer); INFLIGHT.delete(key); });
  INFLIGHT.set(key, p);
  return p;
}

function cached(roman, ctx) { return CACHE.get(roman.toLowerCase() + "|" + (ctx || "")); }

function isLetter(ch) { return !!ch && /[A-Za-z]/.test(ch); }
function isDeva(ch) { return !!ch && /[\u0900-\u0963\u0966-\u097F\u200c\u200d]/.test(ch); }

// The Roman word that ends at ``pos`` (ASCII letters only: Devanagari is never a "word" to convert).
function romanBefore(value, pos) {
  const m = value.slice(0, pos).match(/[A-Za-z]+$/);
  if (!m || isLetter(value.charAt(pos))) return null;
  const start = pos - m[0].length;
  const prev = value.charAt(start - 1);
  if (prev && /[0-9_@]/.test(prev)) return null;  // part of a number, an address or a handle
  return { start, end: pos, word: m[0] };
}

// The Devanagari word around ``pos`` (for reopening a converted word's list).
function devaAround(value, pos) {
  let s = pos, e = pos;
  while (s > 0 && isDeva(value.charAt(s - 1))) s--;
  while (e < value.length && isDeva(value.charAt(e))) e++;
  return s < e ? { start: s, end: e, word: value.slice(s, e) } : null;
}

// Where the caret is drawn, relative to the textarea (a mirror element with the same text metrics).
function caretOffset(area, pos) {
  const mirror = document.createElement("div");
  const cs = getComputedStyle(area);
  for (const prop of ["boxSizing", "width", "paddingTop", "paddingRight", "paddingBottom", "paddingLeft",
                      "borderTopWidth", "borderRightWidth", "borderBottomWidth", "borderLeftWidth",
                      "fontFamily", "fontSize", "fontWeight", "lineHeight", "letterSpacing", "wordSpacing",
                      "textIndent", "tabSize"]) {
    mirror.style[prop] = cs[prop];
  }
  mirror.style.position = "absolute";
  mirror.style.visibility = "hidden";
  mirror.style.whiteSpace = "pre-wrap";
  mirror.style.overflowWrap = "break-word";
  mirror.style.top = "0";
  mirror.style.left = "-9999px";
  mirror.textContent = area.value.slice(0, pos);
  const mark = document.createElement("span");
  mark.textContent = "\u200b";
  mirror.appendChild(mark);
  area.parentNode.appendChild(mirror);
  const top = mark.offsetTop + mark.offsetHeight - area.scrollTop;
  const left = mark.offsetLeft - area.scrollLeft;
  mirror.remove();
  return { top: area.offsetTop + Math.min(top, area.clientHeight), left: area.offsetLeft + Math.min(left, area.clientWidth - 40) };
}

class Editor {
  constructor(host, data) {
    this.data = data;
    this.task = data.task;
    this.rev = data.rev;
    this.seq = 0;
    this.accepted = [];
    this.sentSel = null;  // the selection the page last heard of
    this.pending = [];
    this.waits = [];
    this.converted = new Map();  // Devanagari form -> the Roman word it was typed as
    this.kept = null;            // a Roman word to leave alone at the next separator
    this.shown = null;
    this.highlight = 0;
    this.focused = false;
    this.hindi = localStorage.getItem(MODE_KEY) !== "roman";
    this.root = el("div", "te-root");
    this.root.dataset.task = data.task;
    this.root.setAttribute("data-testid", "translation-editor");
    this.build();
    host.append(this.root);
    this.adoptState(data);
    this.restoreKept(data);
    this.carryOver();
    if (data.focus) requestAnimationFrame(() => this.focusText(true));
  }

  // What was typed into the previous task's editor after its Submit & next (or Skip) was sent, before this
  // editor replaced it, belongs to this task: it moves here rather than being lost.
  carryOver() {
    for (const other of LIVE.values()) {
      if (other === this || typeof other.leaving !== "string") continue;
      const typed = other.area.value.startsWith(other.leaving) ? other.area.value.slice(other.leaving.length) : "";
      other.leaving = null;
      const extra = this.area.value ? typed : typed.replace(/^\s+/, "");
      if (!extra) continue;
      this.area.value += extra;
      this.afterEdit();
      this.edited();
    }
  }

  // ----------------------------------------------------------------- building
  build() {
    const d = this.data;
    const id = "te-area-" + d.task.replace(/[^A-Za-z0-9_-]/g, "_");
    this.offer = el("div", "te-offer");
    this.offer.hidden = true;
    this.offer.setAttribute("role", "status");
    const head = el("div", "te-head");
    const key = el("span", "te-key", d.itemKey || "");
    key.setAttribute("data-testid", "item-key");
    head.append(key);
    const label = el("label", "te-label", d.label);
    label.htmlFor = id;
    const area = this.area = el("textarea", "te-area");
    area.id = id;
    area.setAttribute("aria-label", d.label);
    area.placeholder = d.placeholder || "";
    area.spellcheck = false;
    for (const [k, v] of [["autocomplete", "off"], ["autocorrect", "off"], ["autocapitalize", "off"]]) area.setAttribute(k, v);
    area.lang = "hi";
    this.list = el("div", "te-list");
    this.list.setAttribute("role", "listbox");
    this.list.setAttribute("aria-label", "Suggestions");
    this.list.hidden = true;
    const statusRow = el("div", "te-status");
    this.mode = el("span", "te-mode");
    this.saveState = el("span", "te-save");
    this.saveState.setAttribute("data-testid", "save-state");
    this.saveState.setAttribute("aria-live", "polite");
    statusRow.append(this.mode, this.saveState);
    this.root.append(head, this.offer, label, area, this.list, statusRow);

    this.mapBox = el("div", "te-map");
    this.mapBox.setAttribute("data-testid", "term-map");
    this.mapBox.hidden = !d.aware;
    if (d.aware) {
      const head = el("div", "te-map-head",
        "Where did each highlighted term go? Pick a term, then click (Shift+click or drag) the Hindi words that render it, or mark it dropped.");
      this.termRows = el("div", "te-terms");
      this.strip = el("div", "te-tokens");
      this.strip.tabIndex = 0;
      this.strip.lang = "hi";
      this.strip.setAttribute("role", "group");
      this.strip.setAttribute("aria-label", "Words of your translation");
      this.mapBox.append(head, this.termRows, this.strip);
      this.strip.addEventListener("pointerdown", (e) => this.onTokenDown(e));
      this.strip.addEventListener("pointermove", (e) => this.onTokenMove(e));
      window.addEventListener("pointerup", this.upHandler = () => { this.dragFrom = null; });
      this.strip.addEventListener("keydown", (e) => this.onStripKey(e));
    }
    this.root.append(this.mapBox);

    const untrRow = el("div", "te-untr");
    const untrLabel = el("label", "te-check");
    this.untrBox = el("input");
    this.untrBox.type = "checkbox";
    untrLabel.append(this.untrBox, el("span", "", "This sentence is untranslatable (Alt+U)"));
    this.reasonBox = el("select", "te-reason");
    this.reasonBox.setAttribute("aria-label", "Reason");
    const none = el("option", "", "Choose a reason");
    none.value = "";
    this.reasonBox.append(none);
    for (const r of d.reasons || []) { const o = el("option", "", r); o.value = r; this.reasonBox.append(o); }
    this.noteBox = el("input", "te-note");
    this.noteBox.type = "text";
    this.noteBox.placeholder = "What makes it untranslatable?";
    this.noteBox.setAttribute("aria-label", "Note");
    this.untrDetails = el("span", "te-untr-details");
    this.untrDetails.append(this.reasonBox, this.noteBox);
    untrRow.append(untrLabel, this.untrDetails);
    this.root.append(untrRow);
    this.untrBox.addEventListener("change", () => { this.showUntr(); this.edited(); });
    this.reasonBox.addEventListener("change", () => this.edited());
    this.noteBox.addEventListener("input", () => this.edited());

    const buttons = el("div", "te-buttons");
    for (const [action, text, primary] of [["submit", "Submit & next", true], ["save", "Save draft", false], ["skip", "Skip for now", false]]) {
      const b = el("button", primary ? "te-btn te-primary" : "te-btn", text);
      b.type = "button";
      b.dataset.action = action;
      b.addEventListener("pointerdown", (e) => { if (e.pointerType === "mouse") e.preventDefault(); });
      b.addEventListener("click", (e) => { e.preventDefault(); this.commitNow(action); });
      buttons.append(b);
    }
    this.root.append(buttons);

    area.addEventListener("keydown", (e) => this.onKey(e));
    area.addEventListener("input", (e) => this.onInput(e));
    area.addEventListener("click", () => this.reopenAtCaret());
    area.addEventListener("focus", () => { this.focused = true; });
    // Taken out of the page by a rerun is not leaving the editor: it keeps its focus when put back.
    area.addEventListener("blur", (e) => {
      this.hideList();
      this.send("autosave");
      // Leaving for the ITRANS box or its Insert: where the caret is now. Only where that box exists, and never
      // on the way to a link: a commit's rerun would race the page change and bring the translator back here.
      const toLink = e.relatedTarget && e.relatedTarget.closest && e.relatedTarget.closest("a");
      if (this.data.scheme !== "phonetic" && !toLink) this.sendSelection();
      setTimeout(() => { if (this.root.isConnected && !this.root.contains(this.root.getRootNode().activeElement)) this.focused = false; }, 0);
    });
    this.root.addEventListener("keydown", (e) => this.onRootKey(e), true);
    let tab = sessionStorage.getItem(TAB_KEY);
    if (!tab) { tab = Date.now().toString(36) + Math.random().toString(36).slice(2); sessionStorage.setItem(TAB_KEY, tab); }
    this.keptPrefix = KEPT_PREFIX + d.task + ":";
    this.storeKey = this.keptPrefix + tab;
  }

  // The server's state: taken at mount and whenever the page raises ``rev``.
  adoptState(data) {
    this.area.value = data.text || "";
    this.tokens = tokenize(this.area.value);
    this.map = new Map();
    for (const a of data.terms || []) {
      const m = (data.map || {})[String(a.id)] || {};
      this.map.set(a.id, { tokens: Array.isArray(m.tokens) ? [m.tokens[0], m.tokens[1]] : null,
                           dropped: !!m.dropped, reason: m.reason || "" });
    }
    if (this.active === undefined || !this.map.has(this.active)) {
      const open = (data.terms || []).find((a) => { const m = this.map.get(a.id); return !m.tokens && !m.dropped; });
      this.active = open ? open.id : ((data.terms || [])[0] || {}).id;
    }
    this.untrBox.checked = !!data.untr;
    this.reasonBox.value = data.reason || "";
    this.noteBox.value = data.note || "";
    this.showUntr();
    this.renderMap();
    this.lastSent = this.snapshot();  // what the server holds: nothing to send until something changes
  }

  snapshot() {
    return JSON.stringify([this.area.value, this.untrBox.checked, this.reasonBox.value, this.noteBox.value,
                           this.mapList()]);
  }

  update(data, setStateValue) {
    this.data = data;
    // The page answered a submit or skip and kept this task (refused): nothing typed here leaves it.
    if (typeof this.leaving === "string" && (data.ack || 0) >= (this.leavingSeq || Infinity)) this.leaving = null;
    this.setState = setStateValue;
    if (data.rev !== this.rev) {  // the page changed the text (a conflict resolved, an insert): show it
      this.rev = data.rev;
      this.adoptState(data);
      if (Array.isArray(data.caret)) {
        this.area.setSelectionRange(data.caret[0], data.caret[1]);
        this.sentSel = [data.caret[0], data.caret[1]];  // the page put it there: it knows
        this.focusText(false);
      }
      this.lastSent = this.snapshot();
    }
    this.showMode();
    this.showSaveState();
    if (this.area.value.trim() === (data.saved || "").trim()) localStorage.removeItem(this.storeKey);
  }

  focusText(toEnd) {
    this.area.focus({ preventScroll: true });
    if (toEnd) this.area.setSelectionRange(this.area.value.length, this.area.value.length);
  }

  showMode() {
    if (this.data.scheme !== "phonetic") {
      this.mode.textContent = "Plain typing: use the typing help below for " + this.data.schemeLabel + ".";
    } else {
      this.mode.textContent = this.hindi ? "Phonetic Hindi (Ctrl+. for Roman)" : "Roman (Ctrl+. for phonetic Hindi)";
    }
  }

  showSaveState() {
    const s = this.data.status || {};
    const waiting = (this.saveSeq || 0) > (this.data.ack || 0);  // a save sent, not yet answered
    this.saveState.dataset.kind = waiting ? "saving" : (s.kind || "");
    this.saveState.textContent = waiting ? "Saving…" : (s.text || "");
  }

  showUntr() { this.untrDetails.hidden = !this.untrBox.checked; }

  phonetic() { return this.data.scheme === "phonetic" && this.hindi; }

  // ----------------------------------------------------------------- sending
  mapList() {
    return [...this.map.entries()].map(([id, m]) => ({ term: id, tokens: m.tokens, dropped: m.dropped,
                                                       reason: m.dropped ? m.reason : "" }));
  }

  remember() {
    localStorage.setItem(this.storeKey, JSON.stringify({ text: this.area.value, saved: this.data.saved,
                                                         at: Date.now() }));
  }

  edited() {
    this.remember();
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.send("autosave"), this.data.pauseMs);
  }

  send(action, force) {
    clearTimeout(this.timer);
    this.timer = null;
    const snap = this.snapshot();
    if (!force && snap === this.lastSent && this.accepted.length === 0) return;
    this.lastSent = snap;
    this.seq = this.saveSeq = Math.max(this.seq + 1, Date.now());
    const accepted = this.accepted.splice(0);
    this.setState("commit", {
      task: this.task, seq: this.seq, action, text: this.area.value, accepted, map: this.mapList(),
      untr: this.untrBox.checked, reason: this.reasonBox.value, note: this.noteBox.value,
      sel: (this.sentSel = [this.area.selectionStart, this.area.selectionEnd]),
    });
    this.showSaveState();
  }

  // The caret or selection moved with no edit (nothing to save): tell the page, so that the ITRANS box's
  // Insert replaces what is selected now, not what was selected at the last save. No save follows.
  sendSelection() {
    const sel = [this.area.selectionStart, this.area.selectionEnd];
    if (this.timer || this.snapshot() !== this.lastSent) return;  // an edit is pending: its commit carries sel
    if (this.sentSel && this.sentSel[0] === sel[0] && this.sentSel[1] === sel[1]) return;
    this.sentSel = sel;
    this.seq = Math.max(this.seq + 1, Date.now());
    this.setState("commit", {
      task: this.task, seq: this.seq, action: "select", text: this.area.value, accepted: [], map: this.mapList(),
      untr: this.untrBox.checked, reason: this.reasonBox.value, note: this.noteBox.value, sel,
    });
  }

  // Submit, save or skip: the word at the caret is committed first (waiting briefly for its candidates).
  commitNow(action) {
    this.hideList();
    clearTimeout(this.timer);
    this.commitWord().then(() => {
      this.remember();
      if (action === "submit" || action === "skip") this.leaving = this.area.value;
      this.send(action, true);
      this.leavingSeq = this.seq;
      if (action === "save") this.focusText(false);
    });
  }

  // ----------------------------------------------------------------- typing
  replaceRange(start, end, text, keepCaret) {
    this.area.setRangeText(text, start, end, keepCaret ? "preserve" : "end");
    const delta = text.length - (end - start);
    for (const p of this.pending) if (p.start >= end) { p.start += delta; p.end += delta; }
  }

  accept(roman, form, ctx) {
    this.accepted.push([roman, form]);
    this.converted.set(form, roman);
    for (const key of [roman.toLowerCase() + "|" + (ctx || ""), roman.toLowerCase() + "|"]) {
      const c = CACHE.get(key);
      if (c) CACHE.set(key, [form, ...c.filter((x) => x !== form)]);  // what was picked is first next time here too
    }
  }

  hideList() { this.list.hidden = true; this.shown = null; this.list.replaceChildren(); }

  // The list under the caret for the word at [start, end): its candidates, then the Roman word itself.
  renderList(start, end, roman, candidates, ctx) {
    const options = candidates.slice(0, 5).filter((c) => c !== roman);
    options.push(roman);
    this.list.replaceChildren();
    this.shown = { start, end, current: this.area.value.slice(start, end), roman, options, ctx };
    if (this.highlight >= options.length) this.highlight = 0;
    options.forEach((form, i) => {
      const item = el("div", "te-item");
      item.setAttribute("role", "option");
      item.setAttribute("aria-selected", i === this.highlight ? "true" : "false");
      const num = el("span", "te-num", String(i + 1));
      const text = el("span", form === roman ? "te-roman" : "", form);
      item.append(num, text);
      item.addEventListener("pointerdown", (e) => { e.preventDefault(); this.pick(i); });
      this.list.append(item);
    });
    this.list.append(el("div", "te-hint", "Esc keeps " + roman));
    const at = caretOffset(this.area, start);
    this.list.style.top = at.top + 2 + "px";
    this.list.style.left = Math.max(0, at.left) + "px";
    this.list.hidden = false;
  }

  pick(i) {
    const s = this.shown;
    if (!s || i >= s.options.length || this.area.value.slice(s.start, s.end) !== s.current) return false;
    const form = s.options[i];
    const caretAtEnd = this.area.selectionStart === s.end;
    this.replaceRange(s.start, s.end, form, !caretAtEnd);
    if (form === s.roman) this.kept = { start: s.start, word: form };
    else this.accept(s.roman, form, s.ctx);
    this.hideList();
    this.edited();
    return true;
  }

  ctxAt(start) { return contextWords(this.area.value.slice(0, start)); }

  refreshList() {
    const pos = this.area.selectionStart;
    const w = this.phonetic() && pos === this.area.selectionEnd ? romanBefore(this.area.value, pos) : null;
    if (!w || insideBraces(this.area.value.slice(0, w.start)) || (this.kept && this.kept.start === w.start && this.kept.word === w.word)) {
      if (!this.shown || this.shown.reopened !== true) this.hideList();
      return;
    }
    if (!this.shown || this.shown.roman !== w.word) this.highlight = 0;
    const ctx = this.ctxAt(w.start);
    const c = cached(w.word, ctx);
    if (c) { this.renderList(w.start, w.end, w.word, c, ctx); return; }
    if (this.shown && this.shown.start !== w.start) this.hideList();
    clearTimeout(this.prefetch);
    this.prefetch = setTimeout(() => {
      lookup(this.data, w.word, ctx).then((got) => {  // earlier words may have been converted meanwhile: match by the word
        const p = this.area.selectionStart;
        const now = this.phonetic() ? romanBefore(this.area.value, p) : null;
        if (got && now && now.word === w.word) this.renderList(now.start, now.end, now.word, got, this.ctxAt(now.start));
      });
    }, PREFETCH_PAUSE_MS);
  }

  // Backspace at the end of a converted word, or a click on it: its list again, the Roman word included.
  reopenAtCaret() {
    if (this.area.selectionStart !== this.area.selectionEnd) return;
    const pos = this.area.selectionStart;
    const w = devaAround(this.area.value, pos);
    const roman = w && this.converted.get(w.word);
    if (!w || !roman) { this.hideList(); return; }
    const ctx = this.ctxAt(w.start);
    const show = (c) => {
      if (this.area.value.slice(w.start, w.end) !== w.word) return;
      this.highlight = 0;
      this.renderList(w.start, w.end, roman, c || [w.word], ctx);
      this.shown.reopened = true;
    };
    const c = cached(roman, ctx) || cached(roman, "");
    if (c) show(c); else lookup(this.data, roman, ctx).then(show);
  }

  // The word before a separator at ``end``: replaced by its top candidate now, or when its candidates arrive
  // (only if it is still there unchanged).
  convert(w) {
    const ctx = this.ctxAt(w.start);
    const c = cached(w.word, ctx);
    if (c && c.length) {
      this.replaceRange(w.start, w.end, c[0], true);
      this.accept(w.word, c[0], ctx);
      return;
    }
    const waiting = { start: w.start, end: w.end, word: w.word };
    this.pending.push(waiting);
    const done = lookup(this.data, w.word, ctx).then((late) => {
      this.pending = this.pending.filter((p) => p !== waiting);
      if (!late || !late.length || !this.phonetic()) return;
      const v = this.area.value;
      if (v.slice(waiting.start, waiting.end) !== waiting.word) return;  // edited since: leave it
      if (isLetter(v.charAt(waiting.start - 1)) || isLetter(v.charAt(waiting.end))) return;
      this.replaceRange(waiting.start, waiting.end, late[0], true);
      this.accept(waiting.word, late[0], ctx);
      this.edited();
    });
    this.waits.push(done);
  }

  async commitWord() {
    const late = this.waits.splice(0);
    if (late.length) await Promise.race([Promise.all(late), new Promise((r) => setTimeout(r, 2500))]);
    if (!this.phonetic() || this.area.selectionStart !== this.area.selectionEnd) return;
    const w = romanBefore(this.area.value, this.area.selectionStart);
    if (!w || insideBraces(this.area.value.slice(0, w.start)) || (this.kept && this.kept.start === w.start && this.kept.word === w.word)) return;
    const ctx = this.ctxAt(w.start);
    const c = await Promise.race([lookup(this.data, w.word, ctx), new Promise((r) => setTimeout(() => r(null), 2500))]);
    if (c && c.length && this.area.value.slice(w.start, w.end) === w.word) {
      this.replaceRange(w.start, w.end, c[0], false);
      this.accept(w.word, c[0], ctx);
    }
  }

  // Every character typed, on a hardware or a phone's keyboard, arrives here after it is in the text.
  onInput(e) {
    const area = this.area;
    const pos = area.selectionStart;
    if (this.phonetic() && e.inputType === "insertText" && typeof e.data === "string" && e.data.length >= 1
        && pos === area.selectionEnd) {
      const ch = e.data.charAt(e.data.length - 1);
      const before = area.value.slice(0, pos - 1);
      const braced = ch === "}" ? bracedWord(area.value.slice(0, pos)) : null;
      if (braced) {  // {Brooklyn}: the word stays Roman, the braces go
        this.replaceRange(braced.start, pos, braced.inner, false);
        this.kept = { start: braced.start, word: braced.inner };
        this.hideList();
      } else if (SEPARATORS.includes(ch) && !insideBraces(before)) {
        const w = romanBefore(area.value, pos - 1);
        this.hideList();
        if (w && this.kept && this.kept.start === w.start && this.kept.word === w.word) this.kept = null;
        else if (w) { this.kept = null; this.convert(w); }
        const at = area.selectionStart;
        if ((ch === "." || ch === "|") && this.data.danda && (ch === "|" || endsSentence(area.value.charAt(at - 2)))) {
          this.replaceRange(at - 1, at, "\u0964", false);
        }
      }
    } else if (e.inputType === "deleteContentBackward") {
      this.edited();
      this.afterEdit();
      this.reopenAtCaret();
      return;
    }
    this.edited();
    this.afterEdit();
    this.refreshList();
  }

  afterEdit() {
    const old = this.tokens.map((t) => t.text);
    this.tokens = tokenize(this.area.value);
    const now = this.tokens.map((t) => t.text);
    if (old.join("\u0001") === now.join("\u0001")) return;
    for (const m of this.map.values()) if (m.tokens) m.tokens = relocate(old, m.tokens, now);
    this.renderMap();
  }

  onKey(e) {
    if (e.isComposing) return;
    if (e.key === "." && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      this.hindi = !this.hindi;
      localStorage.setItem(MODE_KEY, this.hindi ? "hindi" : "roman");
      this.showMode();
      this.hideList();
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const open = this.shown && !this.list.hidden;
    if (!open) return;
    const n = this.shown.options.length;
    if (/^[1-9]$/.test(e.key) && Number(e.key) <= n) {
      e.preventDefault();
      this.pick(Number(e.key) - 1);
    } else if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      this.highlight = (this.highlight + (e.key === "ArrowDown" ? 1 : n - 1)) % n;
      const s = this.shown;
      this.renderList(s.start, s.end, s.roman, s.options.filter((x) => x !== s.roman), s.ctx);
      this.shown.reopened = s.reopened;
    } else if (e.key === "Enter") {
      e.preventDefault();
      this.pick(this.highlight);
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      const s = this.shown;
      if (s && !s.reopened) this.kept = { start: s.start, word: s.roman };
      this.hideList();
    }
  }

  // Keys that work wherever the focus is inside the editor.
  onRootKey(e) {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      e.stopPropagation();
      this.commitNow("submit");
    } else if (e.altKey && !e.ctrlKey && (e.code === "KeyU" || e.key === "u" || e.key === "U")) {
      e.preventDefault();
      e.stopPropagation();
      this.untrBox.checked = !this.untrBox.checked;
      this.showUntr();
      this.edited();
    }
  }

  // ----------------------------------------------------------------- the map of terms
  renderMap() {
    if (!this.data.aware) return;
    const terms = this.data.terms || [];
    this.termRows.replaceChildren();
    for (const a of terms) {
      const m = this.map.get(a.id);
      const row = el("div", "te-term");
      row.dataset.termId = String(a.id);
      row.dataset.active = a.id === this.active ? "1" : "0";
      row.setAttribute("data-testid", "term-row");
      const pickBtn = el("button", "te-term-pick", a.n + ". “" + a.term + "”");
      pickBtn.type = "button";
      pickBtn.setAttribute("aria-pressed", a.id === this.active ? "true" : "false");
      pickBtn.addEventListener("pointerdown", (e) => { if (e.pointerType === "mouse") e.preventDefault(); });
      pickBtn.addEventListener("click", () => { this.active = a.id; this.renderMap(); this.strip.focus({ preventScroll: true }); });
      const words = el("span", "te-term-words",
        m.dropped ? "dropped" : (m.tokens ? "→ " + this.tokens.slice(m.tokens[0], m.tokens[1]).map((t) => t.text).join(" ") : "→ (click its words)"));
      words.setAttribute("data-testid", "term-words");
      const dropLabel = el("label", "te-check");
      const drop = el("input");
      drop.type = "checkbox";
      drop.checked = m.dropped;
      drop.setAttribute("aria-label", "“" + a.term + "” is dropped in my translation");
      dropLabel.append(drop, el("span", "", "dropped"));
      drop.addEventListener("change", () => { m.dropped = drop.checked; if (m.dropped) m.tokens = null; this.active = a.id; this.renderMap(); this.edited(); });
      row.append(pickBtn, words, dropLabel);
      if (m.dropped) {
        const why = el("input", "te-why");
        why.type = "text";
        why.value = m.reason || "";
        why.placeholder = "Why was it dropped?";
        why.setAttribute("aria-label", "Why was “" + a.term + "” dropped?");
        why.addEventListener("input", () => { m.reason = why.value; this.edited(); });
        row.append(why);
      }
      this.termRows.append(row);
    }
    this.strip.replaceChildren();
    if (!this.tokens.length) this.strip.append(el("span", "te-empty", "Write your translation first, then mark its words here."));
    const active = this.map.get(this.active);
    const pos = new Map(terms.map((a) => [a.id, a.n]));
    this.tokEls = this.tokens.map((t, i) => {
      const s = el("span", "te-tok", t.text);
      s.setAttribute("data-token-index", String(i));
      const owners = terms.filter((a) => { const m = this.map.get(a.id); return m.tokens && m.tokens[0] <= i && i < m.tokens[1]; });
      s.dataset.terms = owners.map((a) => pos.get(a.id)).join(",");
      s.dataset.selected = active && active.tokens && active.tokens[0] <= i && i < active.tokens[1] ? "1" : "0";
      s.dataset.cursor = this.cursor === i ? "1" : "0";
      if (owners.length) s.title = owners.map((a) => "“" + a.term + "”").join(", ");
      this.strip.append(s);
      return s;
    });
  }

  setActiveTokens(a, b) {
    const m = this.map.get(this.active);
    if (!m) return;
    m.tokens = [Math.min(a, b), Math.max(a, b) + 1];
    m.dropped = false;
    this.renderMap();
    this.edited();
  }

  tokenAt(e) {
    let t = e.target && e.target.closest ? e.target.closest(".te-tok") : null;
    if (!t && e.clientX !== undefined) {
      const hit = this.root.getRootNode().elementFromPoint(e.clientX, e.clientY);
      t = hit && hit.closest ? hit.closest(".te-tok") : null;
    }
    return t && this.strip.contains(t) ? Number(t.getAttribute("data-token-index")) : null;
  }

  onTokenDown(e) {
    const i = this.tokenAt(e);
    if (i === null) return;
    if (e.pointerType === "mouse") e.preventDefault();
    this.strip.focus({ preventScroll: true });
    const m = this.map.get(this.active);
    if (e.shiftKey && m && m.tokens) {
      const anchor = this.anchor !== undefined && this.anchor !== null ? this.anchor : m.tokens[0];
      this.cursor = i;
      this.setActiveTokens(anchor, i);
      return;
    }
    this.anchor = i;
    this.cursor = i;
    this.dragFrom = i;
    this.setActiveTokens(i, i);
  }

  onTokenMove(e) {
    if (this.dragFrom === null || this.dragFrom === undefined) return;
    if (e.pointerType === "mouse" && e.buttons === 0) { this.dragFrom = null; return; }
    const i = this.tokenAt(e);
    if (i === null || i === this.cursor) return;
    this.cursor = i;
    this.setActiveTokens(this.dragFrom, i);
  }

  onStripKey(e) {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const terms = this.data.terms || [];
    const n = this.tokens.length;
    let handled = true;
    if (e.key === "ArrowUp" || e.key === "ArrowDown") {
      const i = terms.findIndex((a) => a.id === this.active);
      const next = terms[Math.max(0, Math.min(terms.length - 1, i + (e.key === "ArrowDown" ? 1 : -1)))];
      if (next) { this.active = next.id; this.anchor = null; this.renderMap(); }
    } else if ((e.key === "ArrowLeft" || e.key === "ArrowRight") && n) {
      const step = e.key === "ArrowRight" ? 1 : -1;
      const cur = this.cursor === undefined || this.cursor === null ? (step > 0 ? -1 : n) : this.cursor;
      const next = Math.max(0, Math.min(n - 1, cur + step));
      if (e.shiftKey) {
        if (this.anchor === undefined || this.anchor === null) this.anchor = this.cursor === undefined || this.cursor === null ? next : this.cursor;
        this.cursor = next;
        this.setActiveTokens(this.anchor, next);
      } else { this.cursor = next; this.anchor = null; this.renderMap(); }
    } else if ((e.key === "Enter" || e.key === " ") && this.cursor !== undefined && this.cursor !== null) {
      this.anchor = this.cursor;
      this.setActiveTokens(this.cursor, this.cursor);
    } else if (e.key === "Backspace" || e.key === "Delete") {
      const m = this.map.get(this.active);
      if (m) { m.tokens = null; this.renderMap(); this.edited(); }
    } else handled = false;
    if (handled) { e.preventDefault(); e.stopPropagation(); }
  }

  // ----------------------------------------------------------------- kept text
  // Text this browser kept from before a refresh, typed on top of what is stored now, is put back by itself
  // (a banner says so, with Undo). This tab's own copy first; else the newest copy another tab (since
  // closed) typed on top of it.
  restoreKept(data) {
    const same = (a, b) => typeof a === "string" && a.trim() === (b || "").trim();  // stored text is trimmed
    const read = (key) => { try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; } };
    const onTop = (copy) => copy && typeof copy.text === "string" && same(copy.saved, data.saved);
    let kept = read(this.storeKey);
    let keptKey = this.storeKey;
    if (!onTop(kept)) {
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i);
        const copy = key && key.startsWith(this.keptPrefix) ? read(key) : null;
        if (onTop(copy) && !same(copy.text, data.saved) && (!kept || !onTop(kept) || (copy.at || 0) > (kept.at || 0))) {
          kept = copy;
          keptKey = key;
        }
      }
    }
    if (!kept || typeof kept.text !== "string") return;
    if (same(kept.text, data.saved)) { localStorage.removeItem(keptKey); return; }
    if (!onTop(kept) || kept.text === this.area.value) return;
    const before = this.area.value;
    this.area.value = kept.text;
    this.afterEdit();
    if (keptKey !== this.storeKey) localStorage.removeItem(keptKey);  // now this tab's copy
    this.remember();
    const note = el("span", "", "Restored " + kept.text.length + " characters this browser kept from before the last save. ");
    const undo = el("button", "", "Undo");
    undo.type = "button";
    undo.addEventListener("click", () => {
      this.area.value = before;
      this.afterEdit();
      this.offer.hidden = true;
      this.remember();
      this.send("autosave", true);
      this.focusText(true);
    });
    this.offer.replaceChildren(note, undo);
    this.offer.hidden = false;
    this.pendingRestore = true;
  }
}

// The editor of each task on this page, kept across re-mounts: when a rerun moves or re-creates the
// element, the same task's editor (its text, caret and focus) is put back rather than rebuilt from the
// server's copy, which may be older than what was typed during the round trip.
function adopt(parentElement, data) {
  const live = LIVE.get(data.task);
  if (!live || live.rev !== data.rev) return null;
  const hadFocus = live.focused;
  const a = live.area;
  const sel = [a.selectionStart, a.selectionEnd, a.selectionDirection];
  parentElement.querySelectorAll(".te-root").forEach((old) => { if (old !== live.root) old.remove(); });
  parentElement.append(live.root);
  if (hadFocus) { a.focus({ preventScroll: true }); a.setSelectionRange(sel[0], sel[1], sel[2]); }
  return live;
}

export default function ({ parentElement, data, setStateValue }) {
  const root = parentElement.querySelector(".te-root");
  let ed = root && root.dataset.task === data.task ? root.__te : adopt(parentElement, data);
  if (!ed) {
    parentElement.querySelectorAll(".te-root").forEach((old) => old.remove());
    ed = new Editor(parentElement, data);
    ed.root.__te = ed;
    for (const [task, other] of LIVE) if (!other.root.isConnected) LIVE.delete(task);
    LIVE.set(data.task, ed);
  }
  ed.update(data, setStateValue);
  // The scheme this translator chose in this browser wins over the project's default.
  if (data.schemeChosen) localStorage.setItem(SCHEME_KEY, data.scheme);
  else {
    const mine = localStorage.getItem(SCHEME_KEY);
    if (mine && mine !== data.scheme && (data.schemes || []).includes(mine) && !ed.schemeAsked) {
      ed.schemeAsked = true;
      setStateValue("commit", { task: ed.task, seq: (ed.seq = Math.max(ed.seq + 1, Date.now())), action: "scheme",
                                scheme: mine, text: ed.area.value, map: ed.mapList(), untr: ed.untrBox.checked,
                                reason: ed.reasonBox.value, note: ed.noteBox.value, accepted: [] });
    }
  }
  if (ed.pendingRestore) { ed.pendingRestore = false; ed.send("restore", true); }
}
"""

_CSS = """
.te-root { position: relative; font-family: inherit; }
.te-head { font-size: 0.75rem; color: #6b6f7b; }
.te-label { display: block; font-size: 0.875rem; margin-bottom: 0.25rem; color: var(--st-text-color, #31333f); }
.te-area { box-sizing: border-box; width: 100%; min-height: 7.5rem; resize: vertical; padding: 0.5rem 0.75rem;
  font: inherit; font-size: 1.05rem; line-height: 1.6; border: 1px solid #d5d7de; border-radius: 0.5rem;
  background: var(--st-secondary-background-color, #f0f2f6); color: var(--st-text-color, #31333f); }
.te-area:focus { outline: none; border-color: var(--st-primary-color, #ff4b4b); }
.te-status { font-size: 0.8rem; color: #6b6f7b; margin-top: 0.2rem; display: flex; gap: 1rem; min-height: 1.2rem; }
.te-mode { font-weight: 600; }
.te-save { margin-left: auto; }
.te-save[data-kind="error"] { color: #b00020; font-weight: 600; }
.te-save[data-kind="saving"] { color: #8a6d00; }
.te-list { position: absolute; z-index: 20; min-width: 9rem; background: white; color: #1f2330;
  border: 1px solid #c9ccd6; border-radius: 0.4rem; box-shadow: 0 4px 12px rgba(0,0,0,0.15); padding: 0.2rem 0;
  font-size: 1rem; }
.te-item { padding: 0.35rem 0.7rem; cursor: pointer; white-space: nowrap; touch-action: manipulation; }
.te-item[aria-selected="true"] { background: #e8eefc; }
.te-roman { font-style: italic; }
.te-num { display: inline-block; width: 1.2rem; color: #6b6f7b; font-size: 0.8rem; }
.te-hint { padding: 0.15rem 0.6rem; font-size: 0.75rem; color: #6b6f7b; border-top: 1px solid #eceef3; }
.te-offer { font-size: 0.95rem; background: #fff4dc; border: 1px solid #c77700; border-radius: 8px;
  padding: 8px 12px; margin: 4px 0; }
.te-offer button, .te-btn, .te-term-pick { padding: 4px 12px; border-radius: 8px; border: 1px solid #c9ccd6;
  background: white; cursor: pointer; font: inherit; color: #1f2330; }
.te-map { margin-top: 0.8rem; border: 1px solid #e0e2e8; border-radius: 8px; padding: 8px 10px; }
.te-map-head { font-size: 0.9rem; font-weight: 600; margin-bottom: 6px; }
.te-term { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; padding: 3px 0; }
.te-term[data-active="1"] .te-term-pick { border-color: #3b6fd8; background: #e8eefc; font-weight: 600; }
.te-term-words { color: #1b7f4b; }
.te-why, .te-note { font: inherit; padding: 3px 8px; border: 1px solid #c9ccd6; border-radius: 6px; min-width: 14rem; }
.te-tokens { display: flex; flex-wrap: wrap; gap: 6px 4px; padding: 8px 0 4px; font-size: 1.15rem; outline: none; }
.te-tokens:focus-visible { box-shadow: 0 0 0 2px #c9d9fb; border-radius: 6px; }
.te-tok { display: inline-block; padding: 3px 8px; border-radius: 6px; border: 2px solid #d3d3d3; background: #fafafa;
  cursor: pointer; user-select: none; -webkit-user-select: none; touch-action: manipulation; }
.te-tok:not([data-terms=""]) { border-color: #1b7f4b; background: #d8f3dc; }
.te-tok[data-selected="1"] { border-color: #3b6fd8; background: #cfe0ff; font-weight: 600; }
.te-tok[data-cursor="1"] { outline: 2px solid #3b6fd8; outline-offset: 1px; }
.te-empty { font-size: 0.85rem; color: #6b6f7b; }
.te-untr { margin-top: 0.8rem; display: flex; flex-wrap: wrap; gap: 10px; align-items: center; }
.te-untr-details { display: inline-flex; gap: 8px; flex-wrap: wrap; }
.te-untr-details[hidden] { display: none; }
.te-reason { font: inherit; padding: 3px 6px; border-radius: 6px; }
.te-check { display: inline-flex; gap: 6px; align-items: center; cursor: pointer; }
.te-buttons { display: grid; grid-template-columns: repeat(3, 1fr); gap: 10px; margin-top: 0.9rem; }
.te-primary { background: var(--st-primary-color, #ff4b4b); border-color: var(--st-primary-color, #ff4b4b); color: white; }
@media (hover: none) { .te-tok { padding: 6px 10px; } .te-item { padding: 0.55rem 0.9rem; } }
"""

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


_KEPT_JS = r"""
export default function ({ parentElement, data, setStateValue }) {
  const keys = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key && key.startsWith(data.prefix)) keys.push(key);
  }
  const box = document.createElement("div");
  box.className = "kt-box";
  box.setAttribute("data-testid", "kept-text-question");
  const say = (text) => { const p = document.createElement("p"); p.textContent = text; box.append(p); };
  if (data.choice === "discard") say("Discarded: this browser no longer keeps your unsaved text.");
  else if (data.choice === "keep") say("Kept: your unsaved text comes back in your editor when you log in again as " + data.name + ". No other user sees it.");
  else if (keys.length === 0) say("");
  else {
    say("This browser keeps unsaved text of yours (" + keys.length + " cop" + (keys.length === 1 ? "y" : "ies") + "). On a shared computer, discard it.");
    for (const [label, choice] of [["Discard the kept text", "discard"], ["Keep it for when I log in again", "keep"]]) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = label;
      b.addEventListener("click", () => {
        if (choice === "discard") for (const key of keys) localStorage.removeItem(key);
        setStateValue("choice", choice);
      });
      box.append(b);
    }
  }
  parentElement.replaceChildren(box);
}
"""

_KEPT_CSS = """
.kt-box { font-size: 0.95rem; }
.kt-box button { margin-right: 8px; padding: 4px 12px; border-radius: 8px; border: 1px solid #c9ccd6; background: white;
  cursor: pointer; font: inherit; color: #1f2330; }
"""

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
        "aware": bool(aspects), "terms": [{"id": i, "n": n, "term": term} for n, (i, term) in enumerate(aspects, 1)],
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
