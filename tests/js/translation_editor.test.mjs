// The translation editor's pure parts (ui/components/translation_editor/: text.js, typing.js, kept.js):
// the text rules, the word conversion state and the kept copies, without a browser. The tokenizer and the
// map's relocation are checked against the Python in tests/unit/test_translation_editor_js.py.
import test from "node:test";
import assert from "node:assert/strict";

import {
  bracedWord, contextWords, devaAround, endsSentence, insideBraces, isDeva, isLetter, romanBefore,
} from "../../ui/components/translation_editor/text.js";
import {
  RETRY_PAUSES_MS, SEPARATORS, becomesDanda, cacheKey, cycle, isKept, listKey, listOptions, patiently, promote,
  suggestUrl, typedChar, wordToConvert,
} from "../../ui/components/translation_editor/typing.js";
import { carriedText, keptToRestore } from "../../ui/components/translation_editor/kept.js";

test("context: up to three Devanagari words of the sentence before the word", () => {
  assert.equal(contextWords("मैंने अपनी बेटी के "), "अपनी बेटी के");
  assert.equal(contextWords("वह आया। मैं "), "मैं");
  assert.equal(contextWords("Sony की "), "की");
  assert.equal(contextWords("it was good. अच्छा "), "अच्छा");
  assert.equal(contextWords(""), "");
  assert.equal(contextWords(undefined), "");
});

test("a stop after a word ends the sentence; after a digit or a space it does not", () => {
  for (const ch of ["ा", "ह", "y", "”", ")", "'"]) assert.equal(endsSentence(ch), true, ch);
  for (const ch of ["3", " ", "", "।", "."]) assert.equal(endsSentence(ch), false, ch);
});

test("braces", () => {
  assert.deepEqual(bracedWord("हम {Brooklyn}"), { start: 3, inner: "Brooklyn" });
  assert.deepEqual(bracedWord("{Moti Mahal}"), { start: 0, inner: "Moti Mahal" });
  assert.equal(bracedWord("{}"), null);
  assert.equal(bracedWord("{a\nb}"), null, "a brace does not span lines");
  assert.equal(insideBraces("हम {Moti "), true);
  assert.equal(insideBraces("हम {Moti} "), false);
  assert.equal(insideBraces(""), false);
});

test("letters: Roman letters are words to convert, Devanagari letters and joiners are converted words", () => {
  assert.equal(isLetter("a"), true);
  assert.equal(isLetter("ा"), false);
  assert.equal(isLetter(""), false);
  assert.equal(isDeva("क"), true);
  assert.equal(isDeva("\u200d"), true);
  assert.equal(isDeva("।"), false, "the danda ends a word");
  assert.equal(isDeva("a"), false);
});

test("the Roman word before the caret, not a number's, an address's or a handle's", () => {
  assert.deepEqual(romanBefore("मैं kal", 7), { start: 4, end: 7, word: "kal" });
  assert.deepEqual(romanBefore("kal aaya", 3), { start: 0, end: 3, word: "kal" });
  assert.equal(romanBefore("kal", 2), null, "the caret inside a word");
  assert.equal(romanBefore("3kg", 3), null);
  assert.equal(romanBefore("me@mail", 7), null);
  assert.equal(romanBefore("a_b", 3), null);
  assert.equal(romanBefore("हम ", 3), null);
});

test("the Devanagari word around the caret", () => {
  assert.deepEqual(devaAround("मैं कल आया", 6), { start: 4, end: 6, word: "कल" });
  assert.deepEqual(devaAround("मैं कल आया", 4), { start: 4, end: 6, word: "कल" });
  assert.equal(devaAround("kal  ", 4), null);
});

test("word conversion: a separator converts the word before it", () => {
  for (const ch of [" ", ".", ",", "?", "\n", "।"]) assert.ok(SEPARATORS.includes(ch), JSON.stringify(ch));
  assert.ok(!SEPARATORS.includes("a") && !SEPARATORS.includes("1"));
  assert.deepEqual(typedChar("mera kal ", 9, " ", null),
    { kind: "separator", word: { start: 5, end: 8, word: "kal" }, keep: false });
  assert.deepEqual(typedChar("मेरा 3.", 7, ".", null), { kind: "separator", word: null, keep: false },
    "after a number: nothing to convert (the danda rule decides the stop)");
  assert.deepEqual(typedChar("mera k", 6, "k", null), { kind: "none" });
});

test("word conversion: a kept word stays Roman and the separator releases it", () => {
  const kept = { start: 0, word: "Sony" };
  assert.equal(isKept(kept, { start: 0, end: 4, word: "Sony" }), true);
  assert.equal(isKept(kept, { start: 5, end: 9, word: "Sony" }), false, "the same word elsewhere is converted");
  assert.equal(isKept(null, { start: 0, word: "Sony" }), false);
  assert.equal(isKept(kept, null), false);
  assert.deepEqual(typedChar("Sony ", 5, " ", kept), { kind: "separator", word: { start: 0, end: 4, word: "Sony" }, keep: true });
});

test("word conversion: braces keep words Roman, without the braces", () => {
  assert.deepEqual(typedChar("हम {Moti Mahal}", 15, "}", null), { kind: "braced", start: 3, inner: "Moti Mahal" });
  assert.deepEqual(typedChar("हम {Moti ", 9, " ", null), { kind: "none" }, "a space inside open braces converts nothing");
  assert.deepEqual(typedChar("}", 1, "}", null).kind, "separator", "a lone closing brace is an ordinary separator");
});

test("the word the caret is on, if typing would convert it", () => {
  assert.deepEqual(wordToConvert("mera kal", 8, null), { start: 5, end: 8, word: "kal" });
  assert.equal(wordToConvert("{mera kal", 9, null), null, "inside braces");
  assert.equal(wordToConvert("Sony", 4, { start: 0, word: "Sony" }), null, "kept");
  assert.equal(wordToConvert("मेरा ", 5, null), null);
});

test("the danda: | always, . after a word, only when the project's setting is on", () => {
  // ``at`` is the caret after the stop: the character before the stop is at ``at - 2``.
  assert.equal(becomesDanda(".", "अच्छा.", 6, true), true);
  assert.equal(becomesDanda(".", "good.", 5, true), true);
  assert.equal(becomesDanda(".", "3.", 2, true), false);
  assert.equal(becomesDanda(".", "अच्छा .", 7, true), false);
  assert.equal(becomesDanda("|", "3|", 2, true), true);
  assert.equal(becomesDanda(".", "अच्छा.", 6, false), false);
  assert.equal(becomesDanda("|", "अच्छा|", 6, false), false);
  assert.equal(becomesDanda(",", "अच्छा,", 6, true), false);
});

test("the candidate list: five candidates at most, then the Roman word, once", () => {
  assert.deepEqual(listOptions(["कल", "काल"], "kal"), ["कल", "काल", "kal"]);
  assert.deepEqual(listOptions(["a", "b", "c", "d", "e", "f"], "x"), ["a", "b", "c", "d", "e", "x"]);
  assert.deepEqual(listOptions(["Sony", "सोनी"], "Sony"), ["सोनी", "Sony"]);
  assert.deepEqual(listOptions([], "kal"), ["kal"]);
});

test("the list's keys: a number picks, arrows move round the list, Enter and Esc", () => {
  assert.deepEqual(listKey("1", 3), { pick: 0 });
  assert.deepEqual(listKey("3", 3), { pick: 2 });
  assert.equal(listKey("4", 3), null, "beyond the list: typed as a digit");
  assert.equal(listKey("0", 3), null);
  assert.deepEqual(listKey("ArrowDown", 3), { move: 1 });
  assert.deepEqual(listKey("ArrowUp", 3), { move: -1 });
  assert.deepEqual(listKey("Enter", 3), { enter: true });
  assert.deepEqual(listKey("Escape", 3), { escape: true });
  assert.equal(listKey("a", 3), null);
  assert.equal(cycle(0, 1, 3), 1);
  assert.equal(cycle(2, 1, 3), 0);
  assert.equal(cycle(0, -1, 3), 2);
});

test("the look-up cache and URL", () => {
  assert.equal(cacheKey("Kal", "मैं"), "kal|मैं");
  assert.equal(cacheKey("kal", ""), "kal|");
  assert.equal(cacheKey("kal", undefined), "kal|");
  assert.deepEqual(promote(["कल", "काल", "कला"], "कला"), ["कला", "कल", "काल"]);
  assert.deepEqual(promote(["कल"], "किल"), ["किल", "कल"]);
  assert.equal(suggestUrl("/api/suggest", "Kal", ""), "/api/suggest?k=5&q=kal");
  assert.equal(suggestUrl("/api/suggest", "kal", "मैं & तुम"),
    "/api/suggest?k=5&q=kal&ctx=" + encodeURIComponent("मैं & तुम"));
});

test("kept copies: this tab's copy typed on the stored text comes back", () => {
  const own = ["p:tabA", { text: "मेरा नया वाक्य", saved: "मेरा", at: 5 }];
  assert.deepEqual(keptToRestore("p:tabA", [own], "मेरा", "मेरा"), { restore: "p:tabA", text: "मेरा नया वाक्य" });
  assert.equal(keptToRestore("p:tabA", [own], "मेरा", "मेरा नया वाक्य"), null, "already in the editor");
  assert.equal(keptToRestore("p:tabA", [own], "कुछ और", "कुछ और"), null, "typed on older stored text: not put back");
  assert.equal(keptToRestore("p:tabA", [], "मेरा", "मेरा"), null);
  assert.equal(keptToRestore("p:tabA", [["p:tabA", null]], "मेरा", "मेरा"), null, "an unreadable copy");
});

test("kept copies: one holding what is stored is forgotten", () => {
  const own = ["p:tabA", { text: " मेरा ", saved: "पुराना", at: 5 }];
  assert.deepEqual(keptToRestore("p:tabA", [own], "मेरा", "मेरा"), { forget: "p:tabA" });
});

test("kept copies: else the newest copy another tab typed on the stored text", () => {
  const copies = [
    ["p:tabA", { text: "x", saved: "other", at: 9 }],
    ["p:tabB", { text: "मेरा एक", saved: "मेरा", at: 3 }],
    ["p:tabC", { text: "मेरा दो", saved: "मेरा", at: 7 }],
    ["p:tabD", { text: "मेरा", saved: "मेरा", at: 8 }],
  ];
  assert.deepEqual(keptToRestore("p:tabA", copies, "मेरा", "मेरा"), { restore: "p:tabC", text: "मेरा दो" });
  assert.deepEqual(keptToRestore("p:tabB", copies, "मेरा", "मेरा"), { restore: "p:tabB", text: "मेरा एक" },
    "this tab's own copy first");
});

test("text typed after Submit & next moves to the next task", () => {
  assert.equal(carriedText("मेरा वाक्य", "मेरा वाक्य और", true), " और");
  assert.equal(carriedText("मेरा वाक्य", "मेरा वाक्य और", false), "और");
  assert.equal(carriedText("मेरा वाक्य", "मेरा वाक्य", false), "");
  assert.equal(carriedText("मेरा वाक्य", "बदला", true), "", "the old text changed: nothing moves");
});

test("a failed look-up is asked again after each pause until it answers; an empty answer is an answer", async () => {
  const slept = [];
  const sleep = async (ms) => { slept.push(ms); };
  const answers = [null, null, ["है"]];
  assert.deepEqual(await patiently(async () => answers.shift(), [500, 1000, 2000], sleep), ["है"]);
  assert.deepEqual(slept, [500, 1000]);

  slept.length = 0;
  assert.equal(await patiently(async () => null, [500, 1000], sleep), null);  // every try failed
  assert.deepEqual(slept, [500, 1000]);

  slept.length = 0;
  assert.deepEqual(await patiently(async () => [], [500], sleep), []);
  assert.deepEqual(slept, []);
  assert.deepEqual(RETRY_PAUSES_MS.length > 0 && RETRY_PAUSES_MS.every((ms) => ms > 0), true);
});
