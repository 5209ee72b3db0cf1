import { el } from "../shared/dom.js";
import { stepCursor } from "../shared/tokens.js";
import {
  acceptOpen, applyAction, bioTags, floatButtons, keyCommand, nextSuggestion, openSuggestions, pressTarget,
  selectionOf, tapGrows, tokenTitle,
} from "./model.js";

// The span editor (ui/span_editor.py): the DOM, the pointer and the keys; what they do to the spans is
// model.js.

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
    return openSuggestions(this.suggestions, this.spans, this.rejected);
  }

  selection() { return selectionOf(this.anchor, this.cursor); }

  select(anchor, cursor, activeSug = -1) {
    this.anchor = anchor; this.cursor = cursor; this.activeSug = activeSug;
    this.render();
  }

  render() {
    const tags = bioTags(this.tokens.length, this.spans);
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
      t.title = tokenTitle(sug, tags[i]);
    });
    this.placeFloat(sel, active);
    const st = this.waiting ? { kind: "saving", text: "Saving…" } : this.serverStatus || { kind: "", text: "" };
    this.statusEl.dataset.kind = st.kind || "";
    this.statusEl.textContent = st.text || "";
  }

  placeFloat(sel, active) {
    if (!sel || this.readonly) { this.floatEl.dataset.show = "0"; return; }
    const shown = floatButtons(this.spans, sel, active);
    for (const act of ["mark", "unmark", "accept", "reject"]) this.buttons[act].hidden = !shown[act];
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
    const grown = e.pointerType === "touch" ? tapGrows(sel, this.spans, this.activeSug, i) : null;
    if (grown) {
      this.select(grown.anchor, grown.cursor);  // tap the next word to grow the selection
      return;
    }
    this.dragFrom = i;
    this.dragged = false;
    const to = pressTarget(this.spans, this.suggestions, this.pending(), i);
    this.select(to.anchor, to.cursor, to.activeSug);
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
    const pick = nextSuggestion(this.suggestions, this.pending(), this.activeSug, this.cursor, this.tokens.length, step);
    if (!pick) return false;
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
    const change = applyAction(action, {
      spans: this.spans, rejected: this.rejected, sel: this.selection(),
      active: this.activeSug >= 0 ? this.suggestions[this.activeSug] : null,
    });
    if (!change) return;
    this.edit(change.action, change.spans, change.rejected);
    if (change.select) this.select(change.select[0], change.select[1]);
    else this.render();
  }

  acceptAll() {  // every open suggestion becomes a span, as one undoable edit; false when none is open
    if (this.readonly) { this.note("Submitted: choose “Reopen for editing” to change it."); return false; }
    const open = this.pending();
    if (!open.length) return false;
    this.edit("accept", acceptOpen(this.spans, open), this.rejected);
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
    const command = keyCommand(e);
    const n = this.tokens.length;
    let handled = command !== null;
    this.keys += 1;
    switch (command) {
      case "accept-all-and-submit": this.acceptAll(); this.commit("submit"); break;
      case "submit": this.commit("submit"); break;
      case "undo": this.history(this.undo, this.redo, "undo"); break;
      case "redo": this.history(this.redo, this.undo, "redo"); break;
      case "move-left": case "move-right": case "extend-left": case "extend-right": {
        if (!n) return;
        const next = stepCursor(this.cursor, n, command.endsWith("right") ? 1 : -1);
        if (command.startsWith("extend") && this.cursor !== null) this.select(this.anchor === null ? this.cursor : this.anchor, next);
        else this.select(next, next);
        break;
      }
      case "home": case "end":
        if (n) this.select(command === "home" ? 0 : n - 1, command === "home" ? 0 : n - 1);
        break;
      case "accept-all": this.acceptAll(); break;
      case "mark": case "unmark": case "reject": this.act(command); break;
      case "next-suggestion": case "previous-suggestion":
        handled = this.nextSuggestion(command === "next-suggestion" ? 1 : -1);
        break;
      case "clear": this.select(null, null); break;
      case "next": case "prev": this.commit(command); break;
      default: break;
    }
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
