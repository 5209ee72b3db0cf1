// The translation editor's word conversion state, pure: what a typed character does (a separator converts
// the Roman word before it, "}" closes a braced word, "." or "|" becomes the danda), which word the caret
// is on, the candidate list and its keys, and the look-up cache's keys. The editor (index.js) applies the
// answers to the text area; tests/js/translation_editor.test.mjs runs them without a browser.
import { bracedWord, endsSentence, insideBraces, romanBefore } from "./text.js";

// Characters after which the Roman word before them is converted.
export const SEPARATORS = " .,;:!?)]}\"'\u0964\u0965/-|\n";

// Is ``w`` the word the translator chose to keep in Roman letters (Esc, the list's last entry, braces)?
export function isKept(kept, w) {
  return !!kept && !!w && kept.start === w.start && kept.word === w.word;
}

// The Roman word ending at the caret ``pos`` that typing would convert: null inside braces, for a kept
// word, or where none ends there.
export function wordToConvert(value, pos, kept) {
  const w = romanBefore(value, pos);
  if (!w || insideBraces(value.slice(0, w.start)) || isKept(kept, w)) return null;
  return w;
}

// What the character ``ch`` just typed (the caret now at ``pos``, right after it) does in phonetic mode:
// { kind: "braced", start, inner } — "{words}" closed: the words stay Roman, the braces go;
// { kind: "separator", word, keep } — the Roman word before it (or null) is converted, unless ``keep``
//   (the kept word, which the separator releases);
// { kind: "none" } — an ordinary character (or a separator inside open braces).
export function typedChar(value, pos, ch, kept) {
  const braced = ch === "}" ? bracedWord(value.slice(0, pos)) : null;
  if (braced) return { kind: "braced", start: braced.start, inner: braced.inner };
  if (SEPARATORS.includes(ch) && !insideBraces(value.slice(0, pos - 1))) {
    const word = romanBefore(value, pos - 1);
    return { kind: "separator", word, keep: isKept(kept, word) };
  }
  return { kind: "none" };
}

// Does the stop ``ch`` just typed (now at ``at - 1``) become the danda? "|" always, "." after a word, and
// only when the project's danda setting is on.
export function becomesDanda(ch, value, at, dandaOn) {
  return (ch === "." || ch === "|") && !!dandaOn && (ch === "|" || endsSentence(value.charAt(at - 2)));
}

// The list under the caret: up to five candidates, then the Roman word itself (last, once).
export function listOptions(candidates, roman) {
  const options = candidates.slice(0, 5).filter((c) => c !== roman);
  options.push(roman);
  return options;
}

// A key pressed while the list of n options is open: { pick: i } (1–9 within the list), { move: ±1 }
// (↓ ↑), { enter: true }, { escape: true }, or null for a key the list leaves to the text area.
export function listKey(key, n) {
  if (/^[1-9]$/.test(key) && Number(key) <= n) return { pick: Number(key) - 1 };
  if (key === "ArrowDown" || key === "ArrowUp") return { move: key === "ArrowDown" ? 1 : -1 };
  if (key === "Enter") return { enter: true };
  if (key === "Escape") return { escape: true };
  return null;
}

// The highlighted option after ↓ (step 1) or ↑ (step -1), round the list of n.
export function cycle(highlight, step, n) {
  return (highlight + (step > 0 ? 1 : n - 1)) % n;
}

// The look-up cache's key for a Roman word typed after the context words ``ctx``.
export function cacheKey(roman, ctx) { return roman.toLowerCase() + "|" + (ctx || ""); }

// Candidates with the one just picked first (what was picked comes first next time too).
export function promote(candidates, form) { return [form, ...candidates.filter((x) => x !== form)]; }

// The look-up URL (ui/api_routes.py): five candidates for the word, with its context words if any.
export function suggestUrl(api, roman, ctx) {
  let url = api + "?k=5&q=" + encodeURIComponent(roman.toLowerCase());
  if (ctx) url += "&ctx=" + encodeURIComponent(ctx);
  return url;
}

// Pauses (ms) before asking again for a word to convert when the look-up failed: a busy server answers 429
// (this session has look-ups waiting: prefetches of a word's first letters while typing slowed down) or 503,
// or is too slow to answer; the word must not stay in Roman letters for that.
export const RETRY_PAUSES_MS = [500, 1000, 2000, 4000];

// ``attempt()`` (a Promise of candidates, or null when the look-up failed) until it gives candidates, waiting
// ``sleep(ms)`` between tries, once per pause; null when every try failed. An empty list is an answer, not a
// failure: the server knows no candidate, asking again would change nothing.
export async function patiently(attempt, pauses, sleep) {
  for (let i = 0; ; i += 1) {
    const got = await attempt();
    if (got !== null || i >= pauses.length) return got;
    await sleep(pauses[i]);
  }
}
