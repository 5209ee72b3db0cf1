// The span editor's pure parts: spans are [start, end) token ranges; a selection runs from an anchor token
// to the cursor token; a suggestion is { span, term, confidence?, source?, title? }. Nothing here touches
// the DOM, so node --test runs it (tests/js/span_editor.test.mjs).

export function spanOf(spans, i) { return spans.find(([s, e]) => s <= i && i < e) || null; }
export function overlaps(a, b) { return a[0] < b[1] && b[0] < a[1]; }
export function same(a, b) { return a[0] === b[0] && a[1] === b[1]; }

// ``span`` added to the spans, replacing every span it overlaps; sorted by start.
export function putSpan(spans, span) {
  const kept = spans.filter((s) => s[1] <= span[0] || s[0] >= span[1]);
  return [...kept, span].sort((a, b) => a[0] - b[0]);
}

// The selected tokens as a span, or null when there is no cursor.
export function selectionOf(anchor, cursor) {
  if (cursor === null) return null;
  const a = anchor === null ? cursor : anchor;
  return [Math.min(a, cursor), Math.max(a, cursor) + 1];
}

// Suggestions still open: not rejected and not on marked tokens.
export function openSuggestions(suggestions, spans, rejected) {
  return suggestions.filter((s) => !rejected.some((r) => same(r, s.span))
    && !spans.some((m) => overlaps(m, s.span)));
}

// The BIO tag of each of n tokens.
export function bioTags(n, spans) {
  const tags = Array.from({ length: n }, () => "O");
  for (const [s, e] of spans) { tags[s] = "B"; for (let i = s + 1; i < e; i++) tags[i] = "I"; }
  return tags;
}

// A token's title: the suggestion on it (its own title, the model's confidence, or the term it was
// suggested for), else "aspect (B)" / "aspect (I)" on a marked token, else nothing.
export function tokenTitle(sug, tag) {
  if (sug) {
    return sug.title || (typeof sug.confidence === "number"
      ? "model suggestion, confidence " + Math.round(sug.confidence * 100) + "%"
      : "suggested for “" + sug.term + "”");
  }
  return tag === "O" ? "" : "aspect (" + tag + ")";
}

// Which of the floating buttons show over a selection (``active``: the suggestion Tab moved to, or null).
export function floatButtons(spans, sel, active) {
  const marked = spans.find((m) => overlaps(m, sel));
  const exactMarked = !!marked && same(marked, sel);
  const onActive = !!(active && same(active.span, sel));
  return { mark: !exactMarked && !onActive, unmark: !!marked, accept: onActive, reject: onActive };
}

// A press on token i with nothing held: the whole aspect it is in, else the open suggestion it is in
// (made active), else the token alone. { anchor, cursor, activeSug }.
export function pressTarget(spans, suggestions, open, i) {
  const marked = spanOf(spans, i);
  if (marked) return { anchor: marked[0], cursor: marked[1] - 1, activeSug: -1 };
  const sug = open.find((s) => s.span[0] <= i && i < s.span[1]);
  if (sug) return { anchor: sug.span[0], cursor: sug.span[1] - 1, activeSug: suggestions.indexOf(sug) };
  return { anchor: i, cursor: i, activeSug: -1 };
}

// On a touch screen, a tap on the token just before or after a plain selection (not an aspect, not a
// suggestion) grows the selection to it: the new { anchor, cursor }, or null for an ordinary tap.
export function tapGrows(sel, spans, activeSug, i) {
  if (!sel || spans.some((m) => same(m, sel)) || activeSug >= 0) return null;
  if (i !== sel[0] - 1 && i !== sel[1]) return null;
  return { anchor: i < sel[0] ? sel[1] - 1 : sel[0], cursor: i };
}

// Tab / Shift+Tab: the next (step 1) or previous (step -1) open suggestion from the active one, else from
// the cursor, wrapping round; null when none is open.
export function nextSuggestion(suggestions, open, activeSug, cursor, n, step) {
  const sorted = open.slice().sort((a, b) => a.span[0] - b.span[0]);
  if (!sorted.length) return null;
  const here = activeSug >= 0 ? suggestions[activeSug].span[0]
    : (cursor === null ? (step > 0 ? -1 : n) : cursor);
  const pick = step > 0 ? sorted.find((s) => s.span[0] > here) : sorted.slice().reverse().find((s) => s.span[0] < here);
  return pick || (step > 0 ? sorted[0] : sorted[sorted.length - 1]);
}

// What an action does to the spans: { action, spans, rejected, select } (select: [anchor, cursor] to put
// the selection on, or undefined to keep it), or null when it changes nothing. Mark on the active
// suggestion's tokens accepts it.
export function applyAction(action, { spans, rejected, sel, active }) {
  if (action === "accept" || (action === "mark" && active && sel && same(active.span, sel))) {
    if (!active) return null;
    return { action: "accept", spans: putSpan(spans, active.span), rejected, select: [active.span[0], active.span[1] - 1] };
  }
  if (action === "mark") {
    if (!sel) return null;
    return { action: "mark", spans: putSpan(spans, sel), rejected, select: [sel[0], sel[1] - 1] };
  }
  if (action === "unmark") {
    if (!sel) return null;
    const left = spans.filter((m) => !overlaps(m, sel));
    if (left.length === spans.length) return null;
    return { action: "unmark", spans: left, rejected, select: undefined };
  }
  if (action === "reject") {
    if (!active) return null;
    return { action: "reject", spans, rejected: [...rejected, active.span], select: [null, null] };
  }
  return null;
}

// Every open suggestion made a span (one that overlaps a span taken before it is left out).
export function acceptOpen(spans, open) {
  let out = spans;
  for (const s of open) if (!out.some((m) => overlaps(m, s.span))) out = putSpan(out, s.span);
  return out;
}

// The key map (KEYS in ui/span_editor.py): the command a key press means, or null for a key the editor
// leaves alone. ``e`` needs only key, shiftKey, ctrlKey, metaKey and altKey.
export function keyCommand(e) {
  const k = e.key;
  const ctrl = e.ctrlKey || e.metaKey;
  const z = k === "z" || k === "Z";
  if (ctrl && e.shiftKey && k === "Enter") return "accept-all-and-submit";
  if (ctrl && k === "Enter") return "submit";
  if (ctrl && z && !e.shiftKey) return "undo";
  if (ctrl && ((z && e.shiftKey) || k === "y" || k === "Y")) return "redo";
  if (ctrl || e.altKey) return null;
  if (k === "ArrowRight" || k === "ArrowLeft") return (e.shiftKey ? "extend-" : "move-") + (k === "ArrowRight" ? "right" : "left");
  if (k === "Home" || k === "End") return k.toLowerCase();
  if (k === "A" && e.shiftKey) return "accept-all";
  if (k === "Enter" || k === "a" || k === "A") return "mark";
  if (k === "Backspace" || k === "Delete") return "unmark";
  if (k === "Tab") return e.shiftKey ? "previous-suggestion" : "next-suggestion";
  if (k === "x" || k === "X") return "reject";
  if (k === "Escape") return "clear";
  if (k === "n" || k === "N" || k === "j" || k === "J") return "next";
  if (k === "p" || k === "P" || k === "k" || k === "K") return "prev";
  return null;
}
