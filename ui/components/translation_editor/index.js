import { el } from "../shared/dom.js";
import { stepCursor } from "../shared/tokens.js";
import { carriedText, keptToRestore } from "./kept.js";
import { contextWords, devaAround, isLetter, relocate, romanBefore, tokenize } from "./text.js";
import {
  RETRY_PAUSES_MS, becomesDanda, cacheKey, cycle, listKey, listOptions, patiently, promote, suggestUrl, typedChar,
  wordToConvert,
} from "./typing.js";

// The translation editor (ui/translation_editor.py): the text area, the candidate list, the map of terms
// and the buttons. The rules it applies are text.js, typing.js and kept.js.

const CACHE = new Map();      // roman (lower case) + "|" + context -> candidates, shared by every editor on the page
const INFLIGHT = new Map();   // the same key -> Promise of candidates (or null)
const MODE_KEY = "corpus-tool:typing-mode";
const SCHEME_KEY = "corpus-tool:typing-scheme";
const TAB_KEY = "corpus-tool:tab";
const KEPT_PREFIX = "corpus-tool:unsaved-text:";  // + "<user id>:<assignment>:<tab>" (KEPT_PREFIX in Python)
const LOOKUP_TIMEOUT_MS = 20000;  // a busy server's first look-up loads the model
const PREFETCH_PAUSE_MS = 120;  // a look-up once typing pauses this long, not one per keystroke
const LIVE = new Map();  // task -> its editor, kept across re-mounts of the element

function lookup(data, roman, ctx) {
  const key = cacheKey(roman, ctx);
  if (CACHE.has(key)) return Promise.resolve(CACHE.get(key));
  if (INFLIGHT.has(key)) return INFLIGHT.get(key);
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), LOOKUP_TIMEOUT_MS);
  const p = fetch(suggestUrl(data.api, roman, ctx), { headers: { "X-Corpus-Session": data.token || "" }, credentials: "same-origin",
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

function cached(roman, ctx) { return CACHE.get(cacheKey(roman, ctx)); }

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
      const extra = carriedText(other.leaving, other.area.value, !!this.area.value);
      other.leaving = null;
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
      const mapHead = el("div", "te-map-head",
        "Where did each highlighted term go? Pick a term, then click (Shift+click or drag) the Hindi words that render it, or mark it dropped.");
      this.termRows = el("div", "te-terms");
      this.strip = el("div", "te-tokens");
      this.strip.tabIndex = 0;
      this.strip.lang = "hi";
      this.strip.setAttribute("role", "group");
      this.strip.setAttribute("aria-label", "Words of your translation");
      this.mapBox.append(mapHead, this.termRows, this.strip);
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
    for (const key of [cacheKey(roman, ctx), cacheKey(roman, "")]) {
      const c = CACHE.get(key);
      if (c) CACHE.set(key, promote(c, form));  // what was picked is first next time here too
    }
  }

  hideList() { this.list.hidden = true; this.shown = null; this.list.replaceChildren(); }

  // The list under the caret for the word at [start, end): its candidates, then the Roman word itself.
  renderList(start, end, roman, candidates, ctx) {
    const options = listOptions(candidates, roman);
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
    const w = this.phonetic() && pos === this.area.selectionEnd ? wordToConvert(this.area.value, pos, this.kept) : null;
    if (!w) {
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

  // The candidates of the word ``spot`` ({ start, end, word }) to convert, asked again after each pause while the
  // server is busy (429, 503, too slow) and the word is still there unchanged; [] once it is gone.
  lookupPatiently(spot, ctx, pauses) {
    const ask = () => (!this.sent(spot) && this.area.value.slice(spot.start, spot.end) === spot.word
      ? lookup(this.data, spot.word, ctx) : Promise.resolve([]));
    return patiently(ask, pauses, (ms) => new Promise((r) => setTimeout(r, ms)));
  }

  // A word in the text Submit & next or Skip sent (it went as it was: changed here, what is typed after it would no
  // longer be found after it, ``carryOver``), or in an editor the next one has replaced: left as it is.
  sent(spot) {
    return !this.root.isConnected || (typeof this.leaving === "string" && spot.start < this.leaving.length);
  }

  // The word before a separator at ``end``: replaced by its top candidate now, or when its candidates arrive
  // (only if it is still there unchanged; a look-up the server could not answer is asked again).
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
    const done = this.lookupPatiently(waiting, ctx, RETRY_PAUSES_MS).then((late) => {
      this.pending = this.pending.filter((p) => p !== waiting);
      if (!late || !late.length || !this.phonetic()) return;
      if (this.sent(waiting)) return;  // answered after the submit went
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
    const w = wordToConvert(this.area.value, this.area.selectionStart, this.kept);
    if (!w) return;
    const ctx = this.ctxAt(w.start);
    // Not asked again for long: the translator is waiting for the next task.
    const c = await Promise.race([this.lookupPatiently(w, ctx, RETRY_PAUSES_MS.slice(0, 2)),
                                  new Promise((r) => setTimeout(() => r(null), 4000))]);
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
      const typed = typedChar(area.value, pos, ch, this.kept);
      if (typed.kind === "braced") {  // {Brooklyn}: the word stays Roman, the braces go
        this.replaceRange(typed.start, pos, typed.inner, false);
        this.kept = { start: typed.start, word: typed.inner };
        this.hideList();
      } else if (typed.kind === "separator") {
        this.hideList();
        if (typed.keep) this.kept = null;
        else if (typed.word) { this.kept = null; this.convert(typed.word); }
        const at = area.selectionStart;
        if (becomesDanda(ch, area.value, at, this.data.danda)) this.replaceRange(at - 1, at, "\u0964", false);
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
    const key = listKey(e.key, n);
    if (!key) return;
    if (key.pick !== undefined) {
      e.preventDefault();
      this.pick(key.pick);
    } else if (key.move) {
      e.preventDefault();
      this.highlight = cycle(this.highlight, key.move, n);
      const s = this.shown;
      this.renderList(s.start, s.end, s.roman, s.options.filter((x) => x !== s.roman), s.ctx);
      this.shown.reopened = s.reopened;
    } else if (key.enter) {
      e.preventDefault();
      this.pick(this.highlight);
    } else if (key.escape) {
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
      const next = stepCursor(this.cursor, n, step);
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
    const read = (key) => { try { return JSON.parse(localStorage.getItem(key) || "null"); } catch { return null; } };
    const copies = [];
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (key && key.startsWith(this.keptPrefix)) copies.push([key, read(key)]);
    }
    const todo = keptToRestore(this.storeKey, copies, data.saved, this.area.value);
    if (!todo) return;
    if (todo.forget) { localStorage.removeItem(todo.forget); return; }
    const before = this.area.value;
    this.area.value = todo.text;
    this.afterEdit();
    if (todo.restore !== this.storeKey) localStorage.removeItem(todo.restore);  // now this tab's copy
    this.remember();
    const note = el("span", "", "Restored " + todo.text.length + " characters this browser kept from before the last save. ");
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
