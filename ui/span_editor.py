"""The span editor: one widget where an annotator (or a lead editing gold) marks aspect spans directly on
the frozen tokens of an item.

Every selection step (click, drag, shift-click, arrow keys, tab to a suggestion) happens in the browser;
the server hears about a change only when it is committed (mark, unmark, accept, reject, undo, redo,
submit, next/previous item), as ONE state value carrying the item it was made on, the whole new span list
and the actions the page has not acknowledged yet.
The page refuses a commit that names another item than the one the editor was mounted for, so a value
can never land on the wrong item. Tokens reach the DOM only through ``textContent``.

Keys (also in the guideline expander and the README): see ``KEYS``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from corpus.bio import Span, parse_spans

ACTIONS = ("mark", "unmark", "accept", "reject", "undo", "redo", "submit", "next", "prev")
EDITS = ("mark", "unmark", "accept", "reject", "undo", "redo")

KEYS: list[tuple[str, str]] = [
    ("click · drag · Shift+click", "select tokens (whole tokens only)"),
    ("← / →", "move the cursor"),
    ("Shift+← / Shift+→", "extend the selection"),
    ("Enter or A", "mark the selection as an aspect (or accept the suggestion)"),
    ("Backspace / Delete", "remove the selected aspect"),
    ("Tab / Shift+Tab", "next / previous suggestion (dashed)"),
    ("X", "reject the suggestion"),
    ("Shift+A", "accept every open suggestion (then Ctrl+Enter submits)"),
    ("Ctrl+Shift+Enter", "accept every open suggestion and submit"),
    ("Ctrl+Z / Ctrl+Shift+Z", "undo / redo within the item"),
    ("N or J / P or K", "next / previous item"),
    ("Ctrl+Enter", "submit and open the next unfinished item"),
    ("Esc", "clear the selection"),
]


def keys_markdown() -> str:
    """The key table as Markdown (guideline expander, README)."""
    rows = "\n".join(f"| {k} | {what} |" for k, what in KEYS)
    return f"| Keys | Action |\n|---|---|\n{rows}"


@dataclass(frozen=True)
class Commit:
    """The editor's state after its latest committed change, with every change the page has not yet
    acknowledged (``actions``: (seq, action) pairs, oldest first). Spans are the whole list, so saving the
    latest state covers every edit; a submit or a move among the actions must still happen."""

    item: int
    seq: int
    spans: list[Span]
    rejected: list[Span]
    actions: tuple[tuple[int, str], ...]
    keys: int | None = None  # key presses and clicks in the editor on this item since it was mounted

    def since(self, ack: int) -> list[str]:
        """The actions the page has not handled yet (it has handled everything up to ``ack``)."""
        return [action for seq, action in self.actions if seq > ack]


def read_commit(raw: Any, item: int, n_tokens: int) -> Commit | None:
    """The editor's committed value if it was made on ``item``; None for a value about another item.
    Malformed spans are a ValueError (the editor never sends them); unknown actions are dropped."""
    if not isinstance(raw, dict) or raw.get("item") != item:
        return None
    seq = raw.get("seq")
    actions = tuple(
        (a["seq"], a["action"]) for a in raw.get("actions") or []
        if isinstance(a, dict) and isinstance(a.get("seq"), int) and a.get("action") in ACTIONS
    )
    return Commit(
        item=item,
        seq=seq if isinstance(seq, int) else max((s for s, _ in actions), default=0),
        spans=parse_spans(raw.get("spans") or [], n_tokens),
        rejected=parse_spans(raw.get("rejected") or [], n_tokens, overlapping=True),
        actions=actions,
        keys=raw["keys"] if isinstance(raw.get("keys"), int) and raw["keys"] >= 0 else None,
    )


_CSS = """
.se-root { position: relative; outline: none; border: 1px solid #d0d4da; border-radius: 10px;
  padding: 6px 10px 8px; background: #fff; font-family: inherit; }
.se-root:focus-visible, .se-root:focus { border-color: #3b6fd8; box-shadow: 0 0 0 2px #c9d9fb; }
.se-head { display: flex; gap: 12px; align-items: center; height: 1.6rem; overflow: hidden;
  font-size: 0.85rem; color: #555; white-space: nowrap; }
.se-key { font-weight: 600; color: #333; overflow: hidden; text-overflow: ellipsis; flex: 0 1 auto; }
.se-status { margin-left: auto; overflow: hidden; text-overflow: ellipsis; flex: 0 1 auto; }
.se-status[data-kind="error"] { color: #b00020; font-weight: 600; }
.se-status[data-kind="saving"] { color: #8a6d00; }
.se-status[data-kind="ok"] { color: #1b7f4b; }
.se-tokens { position: relative; display: flex; flex-wrap: wrap; gap: 6px 4px; padding: 34px 0 4px;
  line-height: 1.5; font-size: 1.2rem; }
.se-tok { display: inline-block; padding: 3px 7px; border-radius: 6px; border: 2px solid #d3d3d3;
  background: #fafafa; cursor: pointer; user-select: none; -webkit-user-select: none;
  touch-action: manipulation; }
.se-tok[data-tag="B"], .se-tok[data-tag="I"] { border: 2px solid #1b7f4b; background: #d8f3dc; font-weight: 600; }
.se-tok[data-tag="B"] { border-left-width: 6px; }
.se-tok[data-suggested="1"] { border: 2px dashed #c77700; background: #fff4dc; }
.se-tok[data-suggested="1"][data-active="1"] { background: #ffe2a8; }
.se-tok[data-disagree="1"] { box-shadow: inset 0 -3px 0 #d33; }
.se-tok[data-selected="1"] { background: #cfe0ff; border-color: #3b6fd8; }
.se-tok[data-cursor="1"] { outline: 2px solid #3b6fd8; outline-offset: 1px; }
.se-root[data-readonly="1"] .se-tok { cursor: default; }
.se-float { position: absolute; display: flex; gap: 4px; z-index: 2; visibility: hidden; }
.se-float[data-show="1"] { visibility: visible; }
.se-float button { font: inherit; font-size: 0.8rem; padding: 2px 10px; border-radius: 6px;
  border: 1px solid #3b6fd8; background: #fff; color: #1d4fb5; cursor: pointer; }
.se-float button[hidden] { display: none; }
.se-hints { font-size: 0.75rem; color: #777; height: 2.2rem; line-height: 1.1rem; overflow: hidden; }
@media (hover: none) { .se-hints { display: none; } .se-tok { padding: 6px 9px; } }
"""

_JS = r"""
function spanOf(spans, i) { return spans.find(([s, e]) => s <= i && i < e) || null; }
function overlaps(a, b) { return a[0] < b[1] && b[0] < a[1]; }
function same(a, b) { return a[0] === b[0] && a[1] === b[1]; }
function putSpan(spans, span) {
  const kept = spans.filter((s) => s[1] <= span[0] || s[0] >= span[1]);
  return [...kept, span].sort((a, b) => a[0] - b[0]);
}
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text !== undefined) node.textContent = text;
  return node;
}

class SpanEditor {
  constructor(host, data) {
    this.host = host;
    this.item = data.item;
    this.seq = data.ack || 0;
    this.unacked = [];
    this.undo = []; this.redo = [];
    this.anchor = null; this.cursor = null; this.activeSug = -1; this.dragFrom = null;
    this.keys = 0;  // key presses and clicks on this item, sent with every commit (keys per item)
    this.root = el("div", "se-root");
    this.root.setAttribute("data-testid", "span-editor");
    this.root.setAttribute("tabindex", "0");
    this.root.setAttribute("role", "application");
    this.root.setAttribute("aria-label", "Span editor: select tokens and mark aspect terms");
    this.root.dataset.item = String(data.item);
    const head = el("div", "se-head");
    this.keyEl = el("span", "se-key");
    this.keyEl.setAttribute("data-testid", "item-key");
    this.statusEl = el("span", "se-status");
    this.statusEl.setAttribute("data-testid", "save-state");
    this.statusEl.setAttribute("aria-live", "polite");
    head.append(this.keyEl, this.statusEl);
    this.tokensEl = el("div", "se-tokens");
    this.tokensEl.lang = "hi";
    this.floatEl = el("div", "se-float");
    this.buttons = {};
    for (const [act, label] of [["mark", "aspect"], ["unmark", "remove"], ["accept", "accept"], ["reject", "reject"]]) {
      const b = el("button", "", label);
      b.type = "button";
      b.dataset.act = act;
      b.addEventListener("pointerdown", (e) => e.preventDefault());
      b.addEventListener("click", (e) => { e.preventDefault(); this.keys += 1; this.act(act); this.root.focus({ preventScroll: true }); });
      this.buttons[act] = b;
      this.floatEl.append(b);
    }
    this.tokensEl.append(this.floatEl);
    this.hintsEl = el("div", "se-hints", data.hints || "");
    this.root.append(head, this.tokensEl, this.hintsEl);
    host.append(this.root);
    this.tokens = data.tokens;
    this.suggestions = data.suggestions || [];
    this.disagree = new Set(data.disagree || []);
    this.serverStatus = data.status || { kind: "", text: "" };
    this.tokEls = data.tokens.map((text, i) => {
      const t = el("span", "se-tok", text);
      t.dataset.tokenIndex = String(i);
      t.setAttribute("data-token-index", String(i));
      this.tokensEl.append(t);
      return t;
    });
    this.tokensEl.addEventListener("pointerdown", (e) => this.onDown(e));
    this.tokensEl.addEventListener("pointermove", (e) => this.onMove(e));
    window.addEventListener("pointerup", this.upHandler = () => { this.dragFrom = null; });
    this.root.addEventListener("keydown", (e) => this.onKey(e));
    this.adopt(data);
    if (data.focus) setTimeout(() => this.root.focus({ preventScroll: true }), 0);
  }

  adopt(data) {
    this.spans = (data.spans || []).map((s) => [s[0], s[1]]);
    this.rejected = (data.rejected || []).map((s) => [s[0], s[1]]);
    this.readonly = !!data.readonly;
    this.root.dataset.readonly = this.readonly ? "1" : "0";
    this.render();
  }

  update(data, setStateValue) {
    this.send = setStateValue;
    this.unacked = this.unacked.filter((a) => a.seq > (data.ack || 0));
    this.suggestions = data.suggestions || [];
    this.disagree = new Set(data.disagree || []);
    this.keyEl.textContent = data.label || "";
    this.hintsEl.textContent = data.hints || "";
    this.serverStatus = data.status || { kind: "", text: "" };
    if ((data.ack || 0) >= this.seq) {
      this.seq = data.ack || 0;
      this.adopt(data);  // the server has every change: its spans are the truth
    } else {
      this.render();
    }
  }

  pending() {  // suggestions still open: not rejected and not on marked tokens
    return this.suggestions.filter((s) => !this.rejected.some((r) => same(r, s.span))
      && !this.spans.some((m) => overlaps(m, s.span)));
  }

  selection() {
    if (this.cursor === null) return null;
    const a = this.anchor === null ? this.cursor : this.anchor;
    return [Math.min(a, this.cursor), Math.max(a, this.cursor) + 1];
  }

  select(anchor, cursor, activeSug = -1) {
    this.anchor = anchor; this.cursor = cursor; this.activeSug = activeSug;
    this.render();
  }

  render() {
    const tags = this.tokens.map(() => "O");
    for (const [s, e] of this.spans) { tags[s] = "B"; for (let i = s + 1; i < e; i++) tags[i] = "I"; }
    const open = this.pending();
    const active = this.activeSug >= 0 ? this.suggestions[this.activeSug] : null;
    const sel = this.selection();
    this.tokEls.forEach((t, i) => {
      const sug = open.find((s) => s.span[0] <= i && i < s.span[1]);
      t.dataset.tag = tags[i];
      t.dataset.suggested = sug ? "1" : "0";
      t.dataset.active = sug && active && sug === active ? "1" : "0";
      t.dataset.selected = sel && sel[0] <= i && i < sel[1] ? "1" : "0";
      t.dataset.cursor = this.cursor === i ? "1" : "0";
      t.dataset.disagree = this.disagree && this.disagree.has(i) ? "1" : "0";
      t.dataset.source = sug && sug.source ? sug.source : "";
      t.title = sug ? (sug.title || (typeof sug.confidence === "number"
        ? "model suggestion, confidence " + Math.round(sug.confidence * 100) + "%"
        : "suggested for “" + sug.term + "”")) : (tags[i] === "O" ? "" : "aspect (" + tags[i] + ")");
    });
    this.placeFloat(sel, active);
    const st = this.waiting ? { kind: "saving", text: "Saving…" } : this.serverStatus || { kind: "", text: "" };
    this.statusEl.dataset.kind = st.kind || "";
    this.statusEl.textContent = st.text || "";
  }

  placeFloat(sel, active) {
    if (!sel || this.readonly) { this.floatEl.dataset.show = "0"; return; }
    const marked = this.spans.find((m) => overlaps(m, sel));
    const exactMarked = marked && same(marked, sel);
    this.buttons.mark.hidden = !!exactMarked || !!(active && same(active.span, sel));
    this.buttons.unmark.hidden = !marked;
    this.buttons.accept.hidden = !(active && same(active.span, sel));
    this.buttons.reject.hidden = !(active && same(active.span, sel));
    const first = this.tokEls[sel[0]];
    this.floatEl.style.left = first.offsetLeft + "px";
    this.floatEl.style.top = Math.max(0, first.offsetTop - 30) + "px";
    this.floatEl.dataset.show = "1";
  }

  tokenAt(e) {
    let t = e.target && e.target.closest ? e.target.closest(".se-tok") : null;
    if (!t && e.clientX !== undefined) {
      const hit = document.elementFromPoint(e.clientX, e.clientY);
      t = hit && hit.closest ? hit.closest(".se-tok") : null;
    }
    return t && this.root.contains(t) ? Number(t.dataset.tokenIndex) : null;
  }

  onDown(e) {
    const i = this.tokenAt(e);
    if (i === null) return;
    this.keys += 1;
    if (e.pointerType === "mouse") e.preventDefault();
    this.root.focus({ preventScroll: true });
    const sel = this.selection();
    if (e.shiftKey && sel) {
      this.select(this.anchor === null ? this.cursor : this.anchor, i);
      return;
    }
    if (e.pointerType === "touch" && sel && !this.spans.some((m) => same(m, sel)) && this.activeSug < 0
        && (i === sel[0] - 1 || i === sel[1])) {
      this.select(i < sel[0] ? sel[1] - 1 : sel[0], i);  // tap the next word to grow the selection
      return;
    }
    this.dragFrom = i;
    this.dragged = false;
    const marked = spanOf(this.spans, i);
    if (marked) { this.select(marked[0], marked[1] - 1); return; }
    const open = this.pending();
    const sug = open.find((s) => s.span[0] <= i && i < s.span[1]);
    if (sug) { this.select(sug.span[0], sug.span[1] - 1, this.suggestions.indexOf(sug)); return; }
    this.select(i, i);
  }

  onMove(e) {
    if (this.dragFrom === null) return;
    if (e.pointerType === "mouse" && e.buttons === 0) { this.dragFrom = null; return; }
    const hit = document.elementFromPoint(e.clientX, e.clientY);
    const t = hit && hit.closest ? hit.closest(".se-tok") : null;
    if (!t || !this.root.contains(t)) return;
    const i = Number(t.dataset.tokenIndex);
    if (i === this.dragFrom && !this.dragged) return;
    this.dragged = true;
    if (this.anchor !== this.dragFrom || this.cursor !== i || this.activeSug >= 0) this.select(this.dragFrom, i);
  }

  nextSuggestion(step) {
    const open = this.pending().slice().sort((a, b) => a.span[0] - b.span[0]);
    if (!open.length) return false;
    const here = this.activeSug >= 0 ? this.suggestions[this.activeSug].span[0]
      : (this.cursor === null ? (step > 0 ? -1 : this.tokens.length) : this.cursor);
    let pick = step > 0 ? open.find((s) => s.span[0] > here) : open.slice().reverse().find((s) => s.span[0] < here);
    if (!pick) pick = step > 0 ? open[0] : open[open.length - 1];
    this.select(pick.span[0], pick.span[1] - 1, this.suggestions.indexOf(pick));
    return true;
  }

  edit(action, spans, rejected) {
    if (this.readonly) { this.note("Submitted: choose “Reopen for editing” to change it."); return; }
    this.undo.push({ spans: this.spans, rejected: this.rejected });
    this.redo = [];
    this.spans = spans; this.rejected = rejected;
    this.commit(action);
  }

  commit(action) {
    // State, not a trigger: a value the server has not run yet is never dropped, and it lists every
    // change not yet acknowledged, so a submit right after a mark is never lost.
    this.seq += 1;
    this.unacked.push({ seq: this.seq, action });
    this.waiting = action !== "next" && action !== "prev";
    this.render();
    this.send("commit", { item: this.item, seq: this.seq, spans: this.spans, rejected: this.rejected,
                          actions: this.unacked.slice(), keys: this.keys });
  }

  note(text) { this.statusEl.dataset.kind = "error"; this.statusEl.textContent = text; }

  act(action) {
    const sel = this.selection();
    const active = this.activeSug >= 0 ? this.suggestions[this.activeSug] : null;
    if (action === "accept" || (action === "mark" && active && sel && same(active.span, sel))) {
      if (!active) return;
      this.edit("accept", putSpan(this.spans, active.span), this.rejected);
      this.select(active.span[0], active.span[1] - 1);
    } else if (action === "mark") {
      if (!sel) return;
      this.edit("mark", putSpan(this.spans, sel), this.rejected);
      this.select(sel[0], sel[1] - 1);
    } else if (action === "unmark") {
      if (!sel) return;
      const left = this.spans.filter((m) => !overlaps(m, sel));
      if (left.length === this.spans.length) return;
      this.edit("unmark", left, this.rejected);
      this.render();
    } else if (action === "reject") {
      if (!active) return;
      this.edit("reject", this.spans, [...this.rejected, active.span]);
      this.select(null, null);
    }
  }

  acceptAll() {  // every open suggestion becomes a span, as one undoable edit; false when none is open
    if (this.readonly) { this.note("Submitted: choose “Reopen for editing” to change it."); return false; }
    const open = this.pending();
    if (!open.length) return false;
    let spans = this.spans;
    for (const s of open) if (!spans.some((m) => overlaps(m, s.span))) spans = putSpan(spans, s.span);
    this.edit("accept", spans, this.rejected);
    this.select(null, null);
    return true;
  }

  history(from, to, action) {
    if (this.readonly) { this.note("Submitted: choose “Reopen for editing” to change it."); return; }
    const state = from.pop();
    if (!state) return;
    to.push({ spans: this.spans, rejected: this.rejected });
    this.spans = state.spans; this.rejected = state.rejected;
    this.commit(action);
  }

  onKey(e) {
    const k = e.key;
    const ctrl = e.ctrlKey || e.metaKey;
    const n = this.tokens.length;
    let handled = true;
    this.keys += 1;
    if (ctrl && e.shiftKey && k === "Enter") { this.acceptAll(); this.commit("submit"); }
    else if (ctrl && k === "Enter") this.commit("submit");
    else if (ctrl && (k === "z" || k === "Z") && !e.shiftKey) this.history(this.undo, this.redo, "undo");
    else if (ctrl && ((k === "z" || k === "Z") && e.shiftKey || k === "y" || k === "Y")) this.history(this.redo, this.undo, "redo");
    else if (ctrl || e.altKey) handled = false;
    else if (k === "ArrowRight" || k === "ArrowLeft") {
      if (!n) return;
      const step = k === "ArrowRight" ? 1 : -1;
      const cur = this.cursor === null ? (step > 0 ? -1 : n) : this.cursor;
      const next = Math.max(0, Math.min(n - 1, cur + step));
      if (e.shiftKey && this.cursor !== null) this.select(this.anchor === null ? this.cursor : this.anchor, next);
      else this.select(next, next);
    } else if (k === "Home" || k === "End") {
      if (n) this.select(k === "Home" ? 0 : n - 1, k === "Home" ? 0 : n - 1);
    } else if (k === "A" && e.shiftKey) this.acceptAll();
    else if (k === "Enter" || k === "a" || k === "A") this.act("mark");
    else if (k === "Backspace" || k === "Delete") this.act("unmark");
    else if (k === "Tab") handled = this.nextSuggestion(e.shiftKey ? -1 : 1);
    else if (k === "x" || k === "X") this.act("reject");
    else if (k === "Escape") this.select(null, null);
    else if (k === "n" || k === "N" || k === "j" || k === "J") this.commit("next");
    else if (k === "p" || k === "P" || k === "k" || k === "K") this.commit("prev");
    else handled = false;
    if (handled) { e.preventDefault(); e.stopPropagation(); } else this.keys -= 1;
  }
}

export default function ({ parentElement, data, setStateValue }) {
  let editor = parentElement.__spanEditor;
  if (!editor || editor.item !== data.item || editor.tokens.length !== data.tokens.length) {
    if (editor) { editor.root.remove(); window.removeEventListener("pointerup", editor.upHandler); }
    editor = new SpanEditor(parentElement, data);
    parentElement.__spanEditor = editor;
  }
  if ((data.ack || 0) >= editor.seq) editor.waiting = false;
  editor.update(data, setStateValue);
  return () => window.removeEventListener("pointerup", editor.upHandler);
}
"""

_component = st.components.v2.component("corpus_tool_span_editor", css=_CSS, js=_JS, isolate_styles=False)

HINTS = ("Click/drag tokens · Enter or A mark · Backspace remove · Tab suggestion, Enter accept, X reject · "
         "Shift+A accept all · Ctrl+Z undo · N/P next/previous · Ctrl+Enter submit")


SOURCE_NAMES = {"map": "the translator's aspect map", "aware": "the aware translations' aspect maps",
                "glossary": "the glossary", "transliteration": "the loanword's transliteration", "crf": "the model",
                "llm": "the local language model"}


def _suggestion(span: Span, term: str, confidence: float | None = None, source: str | None = None) -> dict:
    """A suggestion for the editor: the aspect map's name the English term; the model's carry its confidence,
    which the token's title shows ("model suggestion, confidence 87%"); a projected one names its source and
    term ("suggested for “staff” from the aware translations' aspect maps · 95%")."""
    out = {"span": list(span), "term": term}
    if confidence is not None:
        out["confidence"] = float(confidence)
    if source is not None and source not in ("map", "crf"):  # the two older kinds keep their plain form
        out["source"] = source
        out["title"] = f"suggested for “{term}” from {SOURCE_NAMES.get(source, source)}" + (
            f" · {confidence:.0%}" if confidence is not None else "")
    return out


def span_editor(
    key: str,
    *,
    item: int,
    label: str,
    tokens: Sequence[str],
    spans: Sequence[Span],
    on_commit: Callable[[Commit], None],
    suggestions: Sequence[tuple[Span, str] | tuple[Span, str, float | None] | tuple[Span, str, float | None, str]] = (),
    rejected: Sequence[Span] = (),
    readonly: bool = False,
    ack: int = 0,
    status: tuple[str, str] = ("", ""),
    disagree: Sequence[int] = (),
    hints: str = HINTS,
    on_refused: Callable[[str], None] | None = None,
) -> None:
    """Mount the editor for one item. ``on_commit`` receives a committed change made on THIS item only;
    ``ack`` is the last commit the page has handled (until the page catches up the editor keeps its own
    newer state); ``status`` is (kind, text) for the fixed status line: kind ok, error, info or "".
    A malformed value (which the editor never sends) goes to ``on_refused`` and changes nothing."""

    def committed() -> None:
        raw = getattr(st.session_state.get(key), "commit", None)
        try:
            commit = read_commit(raw, item, len(tokens))
        except ValueError as exc:
            if on_refused is not None:
                on_refused(f"Not saved: {exc}")
            return
        if commit is not None:
            on_commit(commit)

    _component(
        key=key,
        data={
            "item": item, "label": label, "tokens": list(tokens), "spans": [list(s) for s in spans],
            "suggestions": [_suggestion(*s) for s in suggestions],
            "rejected": [list(s) for s in rejected], "readonly": readonly, "ack": ack,
            "status": {"kind": status[0], "text": status[1]}, "disagree": list(disagree), "hints": hints,
            "focus": True,
        },
        on_commit_change=committed,
    )
