// The translation editor's text rules, pure: the canonical tokenizer of corpus/tokens.py ported to JS, the map
// carried over an edit (relocate in the corpus package's map module), the context words sent with a look-up,
// braces, danda, and the words the typing converts. tests/unit/test_translation_editor_js.py checks the
// tokenizer and relocate against the Python; tests/js/translation_editor.test.mjs the rest.
// (Served to blind tasks too: no word here names the kind of term the aware phase maps.)
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

export function isLetter(ch) { return !!ch && /[A-Za-z]/.test(ch); }
export function isDeva(ch) { return !!ch && /[\u0900-\u0963\u0966-\u097F\u200c\u200d]/.test(ch); }

// The Roman word that ends at ``pos`` (ASCII letters only: Devanagari is never a "word" to convert).
export function romanBefore(value, pos) {
  const m = value.slice(0, pos).match(/[A-Za-z]+$/);
  if (!m || isLetter(value.charAt(pos))) return null;
  const start = pos - m[0].length;
  const prev = value.charAt(start - 1);
  if (prev && /[0-9_@]/.test(prev)) return null;  // part of a number, an address or a handle
  return { start, end: pos, word: m[0] };
}

// The Devanagari word around ``pos`` (for reopening a converted word's list).
export function devaAround(value, pos) {
  let s = pos, e = pos;
  while (s > 0 && isDeva(value.charAt(s - 1))) s--;
  while (e < value.length && isDeva(value.charAt(e))) e++;
  return s < e ? { start: s, end: e, word: value.slice(s, e) } : null;
}
