"""The translate page's editor: Hindi typed the way Hindi speakers type, Roman letters turned into
Devanagari word by word as you write (a Streamlit components v2 element).

In phonetic mode a Roman word becomes its top candidate when a space or punctuation follows it; a
small list under the caret shows the other candidates (``1``–``5`` or arrows and Enter pick one,
``Esc`` keeps the Roman word, as guideline 1 keeps names); ``Ctrl+.`` switches between phonetic Hindi
and plain Roman; Devanagari typed or pasted passes through untouched. Candidates come from the JSON
route in ``ui/api_routes.py`` (never a page rerun), cached per word in the browser and fetched while
the word is being typed, so the space usually converts at once; if the route is slow or down the
Roman word simply stays.

The text reaches the server once per pause or when the editor loses focus (a ``typed`` state with a
sequence number, plus the Roman→Devanagari pairs accepted since the last send, for the project's
learned forms); ``Ctrl+Enter`` sends a ``submit`` trigger. Text typed since the last save is kept in
localStorage per task and tab (two tabs never overwrite each other's copy) and offered back after a refresh only when it was typed on top of what is
stored now. The page changes the text only by raising ``rev`` (a conflict resolved, an insert from
the ITRANS box). User text reaches the DOM only through ``value`` and ``textContent``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

PHONETIC = "phonetic"
AUTOSAVE_PAUSE_MS = 1500

KEYS_HELP = (
    ("space or punctuation", "turns the Roman word before the caret into its top candidate"),
    ("1 – 5", "picks that candidate from the list under the caret"),
    ("↓ ↑ then Enter", "picks the highlighted candidate"),
    ("Esc", "keeps the word in Roman letters (names, guideline 1)"),
    ("Ctrl+.", "switches between phonetic Hindi and plain Roman"),
    ("Ctrl+Enter", "submits the translation and opens the next task"),
)

_CSS = """
.hi-root { position: relative; font-family: inherit; }
.hi-label { display: block; font-size: 0.875rem; margin-bottom: 0.25rem; color: var(--st-text-color, #31333f); }
.hi-area { box-sizing: border-box; width: 100%; min-height: 7.5rem; resize: vertical; padding: 0.5rem 0.75rem;
  font: inherit; font-size: 1.05rem; line-height: 1.6; border: 1px solid #d5d7de; border-radius: 0.5rem;
  background: var(--st-secondary-background-color, #f0f2f6); color: var(--st-text-color, #31333f); }
.hi-area:focus { outline: none; border-color: var(--st-primary-color, #ff4b4b); }
.hi-status { font-size: 0.8rem; color: #6b6f7b; margin-top: 0.2rem; display: flex; gap: 1rem; }
.hi-mode { font-weight: 600; }
.hi-list { position: absolute; z-index: 20; min-width: 9rem; background: white; color: #1f2330;
  border: 1px solid #c9ccd6; border-radius: 0.4rem; box-shadow: 0 4px 12px rgba(0,0,0,0.15); padding: 0.2rem 0;
  font-size: 1rem; }
.hi-item { padding: 0.15rem 0.6rem; cursor: pointer; white-space: nowrap; }
.hi-item[aria-selected="true"] { background: #e8eefc; }
.hi-num { display: inline-block; width: 1.2rem; color: #6b6f7b; font-size: 0.8rem; }
.hi-hint { padding: 0.15rem 0.6rem; font-size: 0.75rem; color: #6b6f7b; border-top: 1px solid #eceef3; }
.hi-offer { font-size: 0.95rem; background: #fff4dc; border: 1px solid #c77700; border-radius: 8px;
  padding: 8px 12px; margin: 4px 0; }
.hi-offer button { margin-left: 8px; padding: 3px 12px; border-radius: 8px; border: 1px solid #c77700;
  background: white; cursor: pointer; font: inherit; }
"""

_JS = r"""
const CACHE = new Map();      // roman (lower case) -> candidates, shared by every editor on the page
const INFLIGHT = new Map();   // roman -> Promise of candidates (or null)
const SEPARATORS = " .,;:!?)]}\"'\u0964\u0965/-";
const MODE_KEY = "corpus-tool:typing-mode";
const TAB_KEY = "corpus-tool:tab";
const KEPT_PREFIX = "corpus-tool:unsaved-text:";
const LOOKUP_TIMEOUT_MS = 20000;  // a busy server's first look-up loads the model
const PREFETCH_PAUSE_MS = 120;  // a look-up once typing pauses this long, not one per keystroke

function lookup(st, roman) {
  const key = roman.toLowerCase();
  if (CACHE.has(key)) return Promise.resolve(CACHE.get(key));
  if (INFLIGHT.has(key)) return INFLIGHT.get(key);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), LOOKUP_TIMEOUT_MS);
  const url = st.data.api + "?k=5&q=" + encodeURIComponent(key);
  const p = fetch(url, { headers: { "X-Corpus-Session": st.data.token || "" }, credentials: "same-origin",
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

function isLetter(ch) { return !!ch && /[A-Za-z]/.test(ch); }

// The Roman word that ends at the caret (ASCII letters only: Devanagari is never a "word" to convert).
function wordAtCaret(area) {
  if (area.selectionStart !== area.selectionEnd) return null;
  const pos = area.selectionStart;
  const before = area.value.slice(0, pos);
  const m = before.match(/[A-Za-z]+$/);
  if (!m || isLetter(area.value.charAt(pos))) return null;
  const start = pos - m[0].length;
  const prev = area.value.charAt(start - 1);
  if (prev && /[0-9_@]/.test(prev)) return null;  // part of a number, an address or a handle
  return { start, end: pos, word: m[0] };
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

function build(parentElement, data) {
  parentElement.querySelectorAll(".hi-root").forEach((old) => old.remove());
  const root = document.createElement("div");
  root.className = "hi-root";
  root.dataset.task = data.task;
  const id = "hi-area-" + data.task.replace(/[^A-Za-z0-9_-]/g, "_");
  const label = document.createElement("label");
  label.className = "hi-label";
  label.htmlFor = id;
  label.textContent = data.label;
  const area = document.createElement("textarea");
  area.className = "hi-area";
  area.id = id;
  area.setAttribute("aria-label", data.label);
  area.placeholder = data.placeholder || "";
  area.spellcheck = false;
  area.setAttribute("autocomplete", "off");
  area.setAttribute("autocorrect", "off");
  area.setAttribute("autocapitalize", "off");
  area.value = data.text || "";
  const list = document.createElement("div");
  list.className = "hi-list";
  list.setAttribute("role", "listbox");
  list.setAttribute("aria-label", "Suggestions");
  list.hidden = true;
  const status = document.createElement("div");
  status.className = "hi-status";
  const mode = document.createElement("span");
  mode.className = "hi-mode";
  mode.setAttribute("role", "status");
  status.append(mode);
  root.append(label, area, list, status);
  parentElement.append(root);

  const st = {
    root, area, list, mode, data, rev: data.rev, lastSent: data.text || "", seq: 0,
    accepted: [], timer: null, prefetch: null, kept: null, pending: [], waits: [], shown: null, highlight: 0,
    hindi: localStorage.getItem(MODE_KEY) !== "roman", setStateValue: null, setTriggerValue: null,
  };
  root.__hi = st;
  // One kept copy per tab (the tab's id lives in sessionStorage, which a reload keeps), so two tabs of one
  // task never overwrite each other's unsaved text.
  let tab = sessionStorage.getItem(TAB_KEY);
  if (!tab) { tab = Date.now().toString(36) + Math.random().toString(36).slice(2); sessionStorage.setItem(TAB_KEY, tab); }
  const keptPrefix = KEPT_PREFIX + data.task + ":";
  const storeKey = keptPrefix + tab;
  st.storeKey = storeKey;

  const nextSeq = () => { st.seq = Math.max(st.seq + 1, Date.now()); return st.seq; };
  const phonetic = () => st.data.scheme === "phonetic" && st.hindi;

  const showMode = () => {
    if (st.data.scheme !== "phonetic") {
      st.mode.textContent = "Plain typing: use the typing help below for " + st.data.schemeLabel + ".";
    } else {
      st.mode.textContent = st.hindi ? "Phonetic Hindi (Ctrl+. for Roman)" : "Roman (Ctrl+. for phonetic Hindi)";
    }
  };
  showMode();

  const remember = () => {
    localStorage.setItem(storeKey, JSON.stringify({ text: area.value, saved: st.data.saved, sent: st.lastSent, at: Date.now() }));
  };

  const send = () => {
    clearTimeout(st.timer);
    st.timer = null;
    if (area.value === st.lastSent && st.accepted.length === 0) return;
    st.lastSent = area.value;
    const accepted = st.accepted.splice(0);
    st.setStateValue("typed", { text: area.value, accepted, seq: nextSeq() });
  };

  const edited = () => {
    remember();
    clearTimeout(st.timer);
    st.timer = setTimeout(send, st.data.pauseMs);
  };

  const hideList = () => { list.hidden = true; st.shown = null; list.replaceChildren(); };

  // Every replacement goes through here, so words still waiting for their candidates move with the text.
  const replaceWord = (w, text, keepCaret) => {
    area.setRangeText(text, w.start, w.end, keepCaret ? "preserve" : "end");
    const delta = text.length - (w.end - w.start);
    for (const p of st.pending) {
      if (p !== w && p.start >= w.end) { p.start += delta; p.end += delta; }
    }
  };

  const accept = (w, form) => {
    st.accepted.push([w.word, form]);
    const key = w.word.toLowerCase();
    const c = CACHE.get(key) || [];
    CACHE.set(key, [form, ...c.filter((x) => x !== form)]);  // what was picked is first next time here too
  };

  const pick = (i) => {
    const w = wordAtCaret(area);
    if (!w || !st.shown || w.word !== st.shown.word || i >= st.shown.candidates.length) return false;
    const form = st.shown.candidates[i];
    replaceWord(w, form, false);
    accept(w, form);
    hideList();
    edited();
    return true;
  };

  const renderList = (w, candidates) => {
    list.replaceChildren();
    st.shown = { word: w.word, start: w.start, candidates };
    if (st.highlight >= candidates.length) st.highlight = 0;
    candidates.forEach((form, i) => {
      const item = document.createElement("div");
      item.className = "hi-item";
      item.setAttribute("role", "option");
      item.setAttribute("aria-selected", i === st.highlight ? "true" : "false");
      const num = document.createElement("span");
      num.className = "hi-num";
      num.textContent = String(i + 1);
      const text = document.createElement("span");
      text.textContent = form;
      item.append(num, text);
      item.addEventListener("mousedown", (e) => { e.preventDefault(); pick(i); });
      list.append(item);
    });
    const hint = document.createElement("div");
    hint.className = "hi-hint";
    hint.textContent = "Esc keeps " + w.word;
    list.append(hint);
    const at = caretOffset(area, w.start);
    list.style.top = at.top + 2 + "px";
    list.style.left = Math.max(0, at.left) + "px";
    list.hidden = false;
  };

  const refreshList = () => {
    const w = phonetic() ? wordAtCaret(area) : null;
    if (!w || (st.kept && st.kept.start === w.start && st.kept.word === w.word)) { hideList(); return; }
    if (!st.shown || st.shown.word !== w.word) st.highlight = 0;
    const key = w.word.toLowerCase();
    if (CACHE.has(key)) {
      const c = CACHE.get(key);
      if (c.length) renderList(w, c.slice(0, 5)); else hideList();
      return;
    }
    if (st.shown && st.shown.start !== w.start) hideList();
    clearTimeout(st.prefetch);
    st.prefetch = setTimeout(() => {
      const still = phonetic() ? wordAtCaret(area) : null;
      if (!still || still.word !== w.word) return;
      lookup(st, w.word).then((c) => {  // earlier words may have been converted meanwhile: match by the word
        const now = phonetic() ? wordAtCaret(area) : null;
        if (c && c.length && now && now.word === w.word) renderList(now, c.slice(0, 5));
      });
    }, PREFETCH_PAUSE_MS);
  };

  // Convert the word before a separator; if its candidates are not here yet, the separator goes in at
  // once and the word is replaced when they arrive, only if it is still there unchanged.
  const convert = (w) => {
    const c = CACHE.get(w.word.toLowerCase());
    if (c && c.length) {
      replaceWord(w, c[0], false);
      accept(w, c[0]);
      return true;
    }
    const waiting = { start: w.start, end: w.end, word: w.word };
    st.pending.push(waiting);
    const done = lookup(st, w.word).then((late) => {
      st.pending = st.pending.filter((p) => p !== waiting);
      if (!late || !late.length || !phonetic()) return;
      if (area.value.slice(waiting.start, waiting.end) !== waiting.word) return;  // edited since: leave it
      if (isLetter(area.value.charAt(waiting.start - 1)) || isLetter(area.value.charAt(waiting.end))) return;
      replaceWord(waiting, late[0], true);
      accept(waiting, late[0]);
      edited();
    });
    st.waits.push(done);
    return false;
  };

  // Commit the word at the caret (before a submit): wait briefly for its candidates.
  st.commitWord = async () => {
    const late = st.waits.splice(0);
    if (late.length) await Promise.race([Promise.all(late), new Promise((r) => setTimeout(r, 2500))]);
    const w = phonetic() ? wordAtCaret(area) : null;
    if (!w || (st.kept && st.kept.start === w.start && st.kept.word === w.word)) return;
    const c = await Promise.race([lookup(st, w.word), new Promise((r) => setTimeout(() => r(null), 2500))]);
    if (c && c.length && area.value.slice(w.start, w.end) === w.word) {
      replaceWord(w, c[0], false);
      accept(w, c[0]);
    }
  };

  area.addEventListener("keydown", (e) => {
    if (e.isComposing) return;
    if (e.key === "." && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      st.hindi = !st.hindi;
      localStorage.setItem(MODE_KEY, st.hindi ? "hindi" : "roman");
      showMode();
      hideList();
      return;
    }
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      hideList();
      clearTimeout(st.timer);
      st.commitWord().then(() => {
        remember();
        st.lastSent = area.value;
        const accepted = st.accepted.splice(0);
        st.setTriggerValue("submit", { text: area.value, accepted, seq: nextSeq() });
      });
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const open = st.shown && !list.hidden;
    if (open) {
      if (/^[1-9]$/.test(e.key) && Number(e.key) <= st.shown.candidates.length) {
        e.preventDefault();
        pick(Number(e.key) - 1);
        return;
      }
      if (e.key === "ArrowDown" || e.key === "ArrowUp") {
        e.preventDefault();
        const n = st.shown.candidates.length;
        st.highlight = (st.highlight + (e.key === "ArrowDown" ? 1 : n - 1)) % n;
        const w = wordAtCaret(area);
        if (w) renderList(w, st.shown.candidates);
        return;
      }
      if (e.key === "Enter") {
        e.preventDefault();
        pick(st.highlight);
        return;
      }
      if (e.key === "Escape") {
        e.preventDefault();
        e.stopPropagation();
        const w = wordAtCaret(area);
        if (w) st.kept = { start: w.start, word: w.word };
        hideList();
        return;
      }
    }
    if (e.key.length === 1 && SEPARATORS.includes(e.key) && phonetic()) {
      const w = wordAtCaret(area);
      hideList();
      if (!w || (st.kept && st.kept.start === w.start && st.kept.word === w.word)) { st.kept = null; return; }
      st.kept = null;
      if (convert(w)) {
        e.preventDefault();
        area.setRangeText(e.key, area.selectionStart, area.selectionEnd, "end");
        edited();
      }
    }
  });
  area.addEventListener("input", () => { edited(); refreshList(); });
  area.addEventListener("click", () => hideList());
  area.addEventListener("focus", () => { st.focused = true; });
  // Taken out of the page by a rerun is not leaving the editor: it keeps its focus when it is put back.
  area.addEventListener("blur", () => {
    hideList();
    send();
    setTimeout(() => { if (root.isConnected && document.activeElement !== area) st.focused = false; }, 0);
  });

  // Text this browser kept from before a refresh, typed on top of what is stored now: offer it back.
  // This tab's own copy first; else the newest copy another tab (since closed) typed on top of it.
  const same = (a, b) => typeof a === "string" && a.trim() === (b || "").trim();  // stored text is trimmed
  const read = (key) => { try { return JSON.parse(localStorage.getItem(key) || "null"); } catch (e) { return null; } };
  const onTop = (copy) => copy && typeof copy.text === "string" && (same(copy.saved, data.saved) || same(copy.sent, data.saved));
  let kept = read(storeKey);
  let keptKey = storeKey;
  if (!onTop(kept)) {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      const copy = key && key.startsWith(keptPrefix) ? read(key) : null;
      if (onTop(copy) && !same(copy.text, data.saved) && (!kept || !onTop(kept) || (copy.at || 0) > (kept.at || 0))) {
        kept = copy;
        keptKey = key;
      }
    }
  }
  if (kept && typeof kept.text === "string") {
    if (same(kept.text, data.saved)) {
      localStorage.removeItem(keptKey);
    } else if (onTop(kept) && kept.text !== area.value) {
      const box = document.createElement("div");
      box.className = "hi-offer";
      const note = document.createElement("span");
      note.textContent = "This browser kept " + kept.text.length + " characters you typed here after the last save. ";
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = "Restore unsaved text";
      button.onclick = () => {
        area.value = kept.text;
        st.lastSent = kept.text;
        box.remove();
        if (keptKey !== storeKey) localStorage.removeItem(keptKey);  // now this tab's copy
        remember();
        st.setTriggerValue("restore", { text: kept.text, seq: nextSeq() });
      };
      box.append(note, button);
      root.insertBefore(box, label);
    }
  }
  if (data.focus) requestAnimationFrame(() => { area.focus(); area.setSelectionRange(area.value.length, area.value.length); });
  return st;
}

// The editor of each task on this page, kept across re-mounts: when a rerun moves or re-creates the
// element, the same task's editor (its text, caret and focus) is put back rather than rebuilt from the
// server's copy, which may be older than what was typed during the round trip.
const LIVE = new Map();

function adopt(parentElement, data) {
  const live = LIVE.get(data.task);
  if (!live || live.rev !== data.rev) return null;
  const hadFocus = live.focused;
  const a = live.area;
  const sel = [a.selectionStart, a.selectionEnd, a.selectionDirection];
  parentElement.querySelectorAll(".hi-root").forEach((old) => { if (old !== live.root) old.remove(); });
  parentElement.append(live.root);
  if (hadFocus) { a.focus({ preventScroll: true }); a.setSelectionRange(sel[0], sel[1], sel[2]); }
  return live;
}

export default function ({ parentElement, data, setStateValue, setTriggerValue }) {
  let root = parentElement.querySelector(".hi-root");
  let st = root && root.dataset.task === data.task ? root.__hi : adopt(parentElement, data);
  if (!st) {
    st = build(parentElement, data);
    for (const [task, other] of LIVE) if (!other.root.isConnected) LIVE.delete(task);
    LIVE.set(data.task, st);
  }
  st.data = data;
  st.setStateValue = setStateValue;
  st.setTriggerValue = setTriggerValue;
  if (data.rev !== st.rev) {  // the page changed the text (a conflict resolved, an insert): show it
    st.rev = data.rev;
    st.area.value = data.text || "";
    st.lastSent = st.area.value;
  }
  if (st.area.value.trim() === (data.saved || "").trim()) localStorage.removeItem(st.storeKey);
}
"""

_component = st.components.v2.component("corpus_tool_hindi_input", js=_JS, css=_CSS)


def hindi_input(key: str, *, task: str, label: str, text: str, saved: str, rev: int, scheme: str,
                scheme_label: str, api: str, token: str | None, placeholder: str,
                on_typed: Callable[[], None], on_submit: Callable[[], None], on_restore: Callable[[], None],
                focus: bool = True) -> Any:
    """Mount the editor for one task. The callbacks read the payload with ``editor_payload``."""
    data = {
        "task": task, "label": label, "text": text, "saved": saved, "rev": rev, "scheme": scheme,
        "schemeLabel": scheme_label, "api": api, "token": token, "placeholder": placeholder,
        "pauseMs": AUTOSAVE_PAUSE_MS, "focus": focus,
    }
    return _component(key=key, data=data, on_typed_change=on_typed, on_submit_change=on_submit,
                      on_restore_change=on_restore)


def editor_payload(key: str, event: str) -> dict | None:
    """What the editor sent for ``event`` (``typed``, ``submit`` or ``restore``), if well formed."""
    value = getattr(st.session_state.get(key), event, None)
    if not isinstance(value, dict) or not isinstance(value.get("text"), str):
        return None
    if not isinstance(value.get("seq"), (int, float)):
        return None
    return value
