// The span editor's pure parts (ui/components/span_editor/model.js): token selection, suggestions, the
// edits an action makes and the key map, without a browser.
import test from "node:test";
import assert from "node:assert/strict";

import {
  acceptOpen, applyAction, bioTags, floatButtons, keyCommand, nextSuggestion, openSuggestions, overlaps, pressTarget,
  putSpan, same, selectionOf, spanOf, tapGrows, tokenTitle,
} from "../../ui/components/span_editor/model.js";
import { stepCursor } from "../../ui/components/shared/tokens.js";

const key = (k, mods = {}) => ({ key: k, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...mods });

test("spans: the one holding a token, overlap and equality of [start, end) ranges", () => {
  const spans = [[0, 2], [4, 5]];
  assert.deepEqual(spanOf(spans, 1), [0, 2]);
  assert.equal(spanOf(spans, 2), null);
  assert.deepEqual(spanOf(spans, 4), [4, 5]);
  assert.equal(overlaps([0, 2], [1, 3]), true);
  assert.equal(overlaps([0, 2], [2, 3]), false, "touching ranges do not overlap");
  assert.equal(same([1, 2], [1, 2]), true);
  assert.equal(same([1, 2], [1, 3]), false);
});

test("a new span replaces every span it overlaps and the list stays sorted", () => {
  assert.deepEqual(putSpan([[0, 1], [3, 5], [6, 7]], [4, 7]), [[0, 1], [4, 7]]);
  assert.deepEqual(putSpan([[5, 6]], [1, 2]), [[1, 2], [5, 6]]);
  assert.deepEqual(putSpan([[1, 3]], [3, 4]), [[1, 3], [3, 4]], "an adjacent span stays");
});

test("selection: anchor to cursor in either direction, whole tokens, none without a cursor", () => {
  assert.equal(selectionOf(null, null), null);
  assert.equal(selectionOf(3, null), null);
  assert.deepEqual(selectionOf(null, 2), [2, 3]);
  assert.deepEqual(selectionOf(1, 3), [1, 4]);
  assert.deepEqual(selectionOf(3, 1), [1, 4]);
});

test("← / → move inside the row; from no cursor → starts at the first token, ← at the last", () => {
  assert.equal(stepCursor(null, 5, 1), 0);
  assert.equal(stepCursor(null, 5, -1), 4);
  assert.equal(stepCursor(undefined, 5, 1), 0);
  assert.equal(stepCursor(2, 5, 1), 3);
  assert.equal(stepCursor(4, 5, 1), 4);
  assert.equal(stepCursor(0, 5, -1), 0);
});

test("BIO tags of the spans", () => {
  assert.deepEqual(bioTags(6, [[0, 1], [2, 5]]), ["B", "O", "B", "I", "I", "O"]);
  assert.deepEqual(bioTags(3, []), ["O", "O", "O"]);
});

const SUGS = [
  { span: [5, 6], term: "staff" },
  { span: [1, 3], term: "battery life", confidence: 0.87 },
  { span: [8, 9], term: "food", source: "glossary", title: "suggested for “food” from the glossary" },
];

test("open suggestions: not rejected and not on marked tokens", () => {
  assert.deepEqual(openSuggestions(SUGS, [], []), SUGS);
  assert.deepEqual(openSuggestions(SUGS, [[2, 3]], [[8, 9]]), [SUGS[0]]);
  assert.deepEqual(openSuggestions(SUGS, [], [[8, 10]]), SUGS, "only the exact span is rejected");
});

test("a token's title names the suggestion on it or the aspect tag", () => {
  assert.equal(tokenTitle(SUGS[1], "O"), "model suggestion, confidence 87%");
  assert.equal(tokenTitle(SUGS[0], "O"), "suggested for “staff”");
  assert.equal(tokenTitle(SUGS[2], "O"), "suggested for “food” from the glossary");
  assert.equal(tokenTitle(null, "B"), "aspect (B)");
  assert.equal(tokenTitle(null, "O"), "");
});

test("Tab goes to the next open suggestion by position and wraps; Shift+Tab goes back", () => {
  const open = openSuggestions(SUGS, [], []);
  assert.equal(nextSuggestion(SUGS, open, -1, null, 10, 1), SUGS[1], "from nowhere: the first");
  assert.equal(nextSuggestion(SUGS, open, -1, null, 10, -1), SUGS[2], "back from nowhere: the last");
  assert.equal(nextSuggestion(SUGS, open, 1, 2, 10, 1), SUGS[0], "from the active one");
  assert.equal(nextSuggestion(SUGS, open, 2, 8, 10, 1), SUGS[1], "wraps round");
  assert.equal(nextSuggestion(SUGS, open, -1, 6, 10, 1), SUGS[2], "from the cursor");
  assert.equal(nextSuggestion(SUGS, open, -1, 6, 10, -1), SUGS[0]);
  assert.equal(nextSuggestion(SUGS, [], -1, null, 10, 1), null);
});

test("a press selects the whole aspect, else the suggestion (made active), else the token", () => {
  const spans = [[2, 4]];
  const open = openSuggestions(SUGS, spans, []);
  assert.deepEqual(pressTarget(spans, SUGS, open, 3), { anchor: 2, cursor: 3, activeSug: -1 });
  assert.deepEqual(pressTarget(spans, SUGS, open, 5), { anchor: 5, cursor: 5, activeSug: 0 });
  assert.deepEqual(pressTarget(spans, SUGS, open, 7), { anchor: 7, cursor: 7, activeSug: -1 });
  assert.deepEqual(pressTarget(spans, SUGS, open, 1), { anchor: 1, cursor: 1, activeSug: -1 },
    "a suggestion over a marked token is no longer open");
});

test("a tap next to a plain selection grows it; on an aspect or a suggestion it does not", () => {
  assert.deepEqual(tapGrows([2, 4], [], -1, 4), { anchor: 2, cursor: 4 });
  assert.deepEqual(tapGrows([2, 4], [], -1, 1), { anchor: 3, cursor: 1 });
  assert.equal(tapGrows([2, 4], [], -1, 6), null, "not adjacent");
  assert.equal(tapGrows([2, 4], [[2, 4]], -1, 4), null, "an aspect is selected");
  assert.equal(tapGrows([2, 4], [], 0, 4), null, "a suggestion is active");
  assert.equal(tapGrows(null, [], -1, 4), null);
});

test("the floating buttons match the selection", () => {
  assert.deepEqual(floatButtons([], [1, 2], null), { mark: true, unmark: false, accept: false, reject: false });
  assert.deepEqual(floatButtons([[1, 2]], [1, 2], null), { mark: false, unmark: true, accept: false, reject: false });
  assert.deepEqual(floatButtons([[1, 3]], [1, 2], null), { mark: true, unmark: true, accept: false, reject: false },
    "part of an aspect: mark it anew or remove it");
  assert.deepEqual(floatButtons([], [5, 6], SUGS[0]), { mark: false, unmark: false, accept: true, reject: true });
});

test("actions: mark, unmark, accept, reject and what they select", () => {
  const base = { spans: [[0, 1]], rejected: [], sel: [2, 4], active: null };
  assert.deepEqual(applyAction("mark", base), { action: "mark", spans: [[0, 1], [2, 4]], rejected: [], select: [2, 3] });
  assert.equal(applyAction("mark", { ...base, sel: null }), null);
  assert.deepEqual(applyAction("unmark", { ...base, sel: [0, 1] }), { action: "unmark", spans: [], rejected: [], select: undefined });
  assert.equal(applyAction("unmark", base), null, "nothing marked there: no edit");
  const onSug = { spans: [], rejected: [], sel: [5, 6], active: SUGS[0] };
  assert.deepEqual(applyAction("mark", onSug), { action: "accept", spans: [[5, 6]], rejected: [], select: [5, 5] },
    "mark on the active suggestion accepts it");
  assert.deepEqual(applyAction("accept", onSug), applyAction("mark", onSug));
  assert.equal(applyAction("accept", base), null, "accept needs an active suggestion");
  assert.deepEqual(applyAction("reject", onSug), { action: "reject", spans: [], rejected: [[5, 6]], select: [null, null] });
  assert.equal(applyAction("reject", base), null);
  assert.equal(applyAction("submit", base), null);
});

test("accept all: every open suggestion becomes a span, overlapping ones after the first are left out", () => {
  assert.deepEqual(acceptOpen([[0, 1]], [SUGS[1], SUGS[0]]), [[0, 1], [1, 3], [5, 6]]);
  assert.deepEqual(acceptOpen([], [{ span: [1, 3] }, { span: [2, 4] }]), [[1, 3]]);
  assert.deepEqual(acceptOpen([[0, 1]], []), [[0, 1]]);
});

test("the key map (KEYS in ui/span_editor.py)", () => {
  const cases = [
    [key("ArrowRight"), "move-right"], [key("ArrowLeft"), "move-left"],
    [key("ArrowRight", { shiftKey: true }), "extend-right"], [key("ArrowLeft", { shiftKey: true }), "extend-left"],
    [key("Home"), "home"], [key("End"), "end"],
    [key("Enter"), "mark"], [key("a"), "mark"], [key("A"), "mark"],
    [key("A", { shiftKey: true }), "accept-all"],
    [key("Backspace"), "unmark"], [key("Delete"), "unmark"],
    [key("Tab"), "next-suggestion"], [key("Tab", { shiftKey: true }), "previous-suggestion"],
    [key("x"), "reject"], [key("X"), "reject"],
    [key("Escape"), "clear"],
    [key("n"), "next"], [key("J"), "next"], [key("p"), "prev"], [key("k"), "prev"],
    [key("Enter", { ctrlKey: true }), "submit"], [key("Enter", { metaKey: true }), "submit"],
    [key("Enter", { ctrlKey: true, shiftKey: true }), "accept-all-and-submit"],
    [key("z", { ctrlKey: true }), "undo"], [key("Z", { metaKey: true }), "undo"],
    [key("z", { ctrlKey: true, shiftKey: true }), "redo"], [key("y", { ctrlKey: true }), "redo"],
  ];
  for (const [e, want] of cases) assert.equal(keyCommand(e), want, JSON.stringify(e));
});

test("keys the editor leaves to the browser", () => {
  for (const e of [key("c", { ctrlKey: true }), key("a", { altKey: true }), key("Enter", { altKey: true }), key("q"),
    key("1"), key(" "), key("ArrowUp")]) {
    assert.equal(keyCommand(e), null, JSON.stringify(e));
  }
});
