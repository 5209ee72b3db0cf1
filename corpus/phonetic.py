"""Transliteration-tolerant ROUGE-L: is a disagreement between translators real, or only spelling?

Translators legitimately spell transliterated words differently (``कीबोर्ड`` / ``की-बोर्ड`` /
``keyboard``, ``लाइफ़`` / ``लाइफ``). Here every word is mapped to a *phonetic key*: Devanagari and
Roman are both brought to one Roman form with indic-transliteration (ISO 15919), nukta and vowel
length are folded, aspiration is folded, repeated letters are collapsed and hyphens ignored. Two
words count as equal when their keys match, or when their phonetic edit distance (after MIPE's
PDS: deleting or changing a vowel is cheap, swapping similar sounds is cheap) is under a
threshold. The normalized ROUGE-L built on that equality is a diagnostic shown beside the raw
figure; **the raw ROUGE-L stays the official one** and is never changed by this module.

Hyphens: the canonical tokenizer splits ``की-बोर्ड`` into ``की`` ``-`` ``बोर्ड``. For the normalized
variant only, word tokens joined by a hyphen with no space on either side are read as one word
(``की-बोर्ड`` → ``कीबोर्ड``); the raw figure keeps the canonical words.

Short words (keys under ``MIN_FUZZY_LENGTH`` letters) match only by equal keys; a word ending in a
vowel never fuzzily matches one ending in a consonant (``battery`` / ``बटर``); and two Devanagari
words whose final vowels differ never match fuzzily: in Hindi the final vowel carries gender and
number (``सकता`` / ``सकती``), a real difference rather than a spelling one.

Two Devanagari words are compared more strictly: both writers had the same script, so a different
consonant, aspiration or long ``ा`` is a different word (``खाना`` / ``गाना`` / ``काना``, ``जाना`` / ``जीना``,
``पढ़ना`` / ``पड़ना``, ``कम`` / ``काम``), never a spelling variant. Their keys keep aspiration and long
``ā``, and the only fuzzy edits allowed are short-vowel and glide edits (``सर्विस`` / ``सरविस``,
``मेन्यू`` / ``मेनू``, ``मेगापिक्सल`` / ``मेगापिक्सेल``, ``कॅमरा`` / ``कैमरा``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import regex

from corpus.records import PHASES
from corpus.rouge import f_from_lcs, lcs_with_masks
from corpus.tokens import (
    TOKENIZER_SIGNATURE,
    is_word,
    normalize,
    tokenize_with_offsets,
    words,
)

PHONETIC_NAME = "phonetic-key"
PHONETIC_VERSION = "1.0"
DEFAULT_THRESHOLD = 0.15
MIN_FUZZY_LENGTH = 4

VOWELS = frozenset("aeiou")
# Similar sounds: substituting within a group is cheap (voicing, place, nasal, semivowel pairs).
SIMILAR_GROUPS = ("kg", "cjs", "td", "pbf", "vb", "nm", "yi", "vu", "rl")
VOWEL_COST = 0.25
SEMIVOWEL_INDEL_COST = 0.5
SIMILAR_COST = 0.5

HYPHENS = frozenset("-\u2010\u2011")
ZERO_WIDTH = regex.compile(r"[\u200b\u200c\u200d\u2060\ufeff]")
_DEVANAGARI = regex.compile(r"\p{Devanagari}")
_LATIN = regex.compile(r"\p{Latin}")
_NUKTA = "\u093c"
_ASPIRATES = (("kh", "k"), ("gh", "g"), ("ch", "c"), ("jh", "j"), ("th", "t"), ("dh", "d"),
              ("ph", "f"), ("bh", "b"), ("sh", "s"))
_SIMILAR = {(a, b) for group in SIMILAR_GROUPS for a in group for b in group if a != b}


def signature(threshold: float = DEFAULT_THRESHOLD) -> str:
    """What produced a normalized figure, so it can be reproduced."""
    return (f"{TOKENIZER_SIGNATURE}+{PHONETIC_NAME}/{PHONETIC_VERSION}"
            f"|threshold={threshold}|hyphen-join|rouge-l-f1")


def script_of(word: str) -> str:
    """``devanagari``, ``roman``, ``mixed`` or ``other`` by the letters a word holds."""
    deva = _DEVANAGARI.search(word) is not None
    latin = _LATIN.search(word) is not None
    if deva and latin:
        return "mixed"
    if deva:
        return "devanagari"
    if latin:
        return "roman"
    return "other"


def _strip_marks(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def _devanagari_to_roman(word: str, long_a: str = "a") -> str:
    """ISO 15919 with nukta folded, anusvara as a homorganic nasal and the final inherent vowel deleted.

    ``long_a`` is what ``ā`` becomes: ``a`` (length folded) or ``A`` for the strict same-script key.
    """
    from indic_transliteration import sanscript  # here: its scheme tables cost an importer 0.3 CPU-seconds

    word = unicodedata.normalize("NFD", word).replace(_NUKTA, "")
    iso = unicodedata.normalize("NFC", sanscript.transliterate(word, sanscript.DEVANAGARI, sanscript.ISO))
    iso = regex.sub(r"(ṁ|m̐)(?=[pbm])", "m", iso)
    iso = iso.replace("ṁ", "n").replace("m̐", "n")
    # Schwa deletion at the word end: कीमत is "kīmat", not "kīmata"; ā (long) is a real vowel.
    if len(iso) > 2 and iso.endswith("a") and _strip_marks(iso[-2]).lower() not in VOWELS:
        iso = iso[:-1]
    iso = iso.lower().replace("ā", "\x01")
    return _strip_marks(iso).replace("\x01", long_a)


def _english_to_roman(word: str) -> str:
    """English spelling towards how Hindi writes it: c as k or s, x as ks, silent final e, y as vowel."""
    w = _strip_marks(word).lower()
    w = regex.sub(r"(?<=[a-z])(tion|sion)$", "san", w)
    w = w.replace("ph", "f").replace("ck", "k").replace("q", "k").replace("x", "ks")
    w = w.replace("oo", "u").replace("au", "o").replace("aw", "o")
    w = regex.sub(r"g(?=[eiy])", "j", w)
    w = w.replace("ch", "\x00")
    w = regex.sub(r"c(?=[eiy])", "s", w).replace("c", "k").replace("\x00", "c")
    w = regex.sub(r"y(?![aeiou])", "i", w)
    if len(w) > 3 and w.endswith("e") and w[-2] not in VOWELS and w[-2] != "e":
        w = w[:-1]
    return w


def _fold(roman: str, aspiration: bool = True) -> str:
    if aspiration:
        for aspirate, plain in _ASPIRATES:
            roman = roman.replace(aspirate, plain)
    roman = roman.replace("w", "v").replace("z", "j").replace("q", "k").replace("x", "ks")
    roman = regex.sub(r"[^a-zA-Z0-9]", "", roman)
    return regex.sub(r"(.)\1+", r"\1", roman)


@lru_cache(maxsize=65536)
def phonetic_key(word: str) -> str:
    """One Roman form for a word in either script; hyphens and zero-width characters ignored."""
    word = ZERO_WIDTH.sub("", normalize(word))
    word = "".join(c for c in word if c not in HYPHENS).casefold()
    if _DEVANAGARI.search(word):
        roman = regex.sub(r"\p{Devanagari}+", lambda m: _devanagari_to_roman(m.group()), word)
        return _fold(roman)
    return _fold(_english_to_roman(word))


@lru_cache(maxsize=65536)
def same_script_key(word: str) -> str:
    """The stricter key for comparing two Devanagari words: aspiration and long ``ā`` (as ``A``) kept."""
    word = ZERO_WIDTH.sub("", normalize(word))
    word = "".join(c for c in word if c not in HYPHENS).casefold()
    roman = regex.sub(r"\p{Devanagari}+", lambda m: _devanagari_to_roman(m.group(), long_a="A"), word)
    return _fold(roman, aspiration=False)


def _same_script_sub_cost(a: str, b: str) -> float:
    """Only short vowels may change (schwa written or not, ए/ऐ); anything else is another word."""
    return 0.0 if a == b else VOWEL_COST if a in VOWELS and b in VOWELS else float("inf")


def _same_script_indel_cost(c: str) -> float:
    return VOWEL_COST if c in VOWELS else SEMIVOWEL_INDEL_COST if c in "yv" else float("inf")


@lru_cache(maxsize=4096)
def _cross_script_sub_cost(a: str, b: str) -> float:
    if a == b:
        return 0.0
    if a in VOWELS and b in VOWELS:
        return VOWEL_COST
    if (a, b) in _SIMILAR:
        return SIMILAR_COST
    return 1.0


@lru_cache(maxsize=256)
def _cross_script_indel_cost(c: str) -> float:
    if c in VOWELS:
        return VOWEL_COST
    if c in "yvh":
        return SEMIVOWEL_INDEL_COST
    return 1.0


def phonetic_edit_distance(a: str, b: str, limit: float | None = None, same_script: bool = False) -> float:
    """Weighted Levenshtein over keys: vowel edits and similar-sound swaps are cheap.

    With ``limit``, stops as soon as the distance must exceed it and returns ``inf``. With
    ``same_script`` (two Devanagari words' strict keys), only short-vowel and glide edits are allowed.
    """
    _indel_cost = _same_script_indel_cost if same_script else _cross_script_indel_cost
    _sub_cost = _same_script_sub_cost if same_script else _cross_script_sub_cost
    indel_b = [_indel_cost(cb) for cb in b]
    prev = [0.0]
    for cost in indel_b:
        prev.append(prev[-1] + cost)
    pairs = list(zip(b, indel_b))
    for ca in a:
        cost_a = _indel_cost(ca)
        left = prev[0] + cost_a
        cur = [left]
        for j, (cb, cost_b) in enumerate(pairs):
            sub = prev[j] if ca == cb else prev[j] + _sub_cost(ca, cb)
            left = min(prev[j + 1] + cost_a, left + cost_b, sub)
            cur.append(left)
        if limit is not None and min(cur) > limit:
            return float("inf")
        prev = cur
    return prev[-1]


def _final_vowel(key: str) -> str:
    return key[-1] if key and key[-1] in VOWELS else ""


@lru_cache(maxsize=262144)
def _match(a: str, b: str, threshold: float) -> bool:
    if a == b:
        return True
    same_script = script_of(a) == "devanagari" and script_of(b) == "devanagari"
    if same_script:
        ka, kb = same_script_key(a), same_script_key(b)
    else:
        ka, kb = phonetic_key(a), phonetic_key(b)
    if ka == kb:
        return bool(ka)
    if min(len(ka), len(kb)) < MIN_FUZZY_LENGTH:
        return False
    fa, fb = _final_vowel(ka), _final_vowel(kb)
    if bool(fa) != bool(fb):
        return False
    if fa != fb and same_script:
        return False
    longest = max(len(ka), len(kb))
    return phonetic_edit_distance(ka, kb, threshold * longest, same_script) / longest < threshold


def words_match(a: str, b: str, threshold: float = DEFAULT_THRESHOLD) -> bool:
    """Whether two words are the same word spelt differently (same key, or phonetically close)."""
    return _match(a, b, threshold)


def normalized_words(text: str) -> list[str]:
    """Case-folded canonical words, with hyphen-joined parts read as one word (normalized variant only)."""
    out: list[str] = []
    word_end: int | None = None
    hyphen_end: int | None = None
    for token in tokenize_with_offsets(text):
        if token.text in HYPHENS:
            hyphen_end = token.end if word_end is not None and token.start == word_end else None
            word_end = None
            continue
        if not is_word(token.text):
            word_end = hyphen_end = None
            continue
        word = token.text.casefold()
        if hyphen_end is not None and token.start == hyphen_end:
            out[-1] += word
        else:
            out.append(word)
        word_end, hyphen_end = token.end, None
    return out


def lcs_length(a: Sequence[str], b: Sequence[str], equal: Callable[[str, str], bool]) -> int:
    """Longest common subsequence under an equality predicate (need not be transitive), by the official
    ROUGE-L's LCS (``corpus.rouge.lcs_with_masks``): its bit-parallel recurrence holds for any match
    table, so the only difference is which positions of ``a`` each word of ``b`` matches."""
    if not a or not b:
        return 0
    masks = {w: sum(1 << i for i, x in enumerate(a) if equal(x, w)) for w in set(b)}
    return lcs_with_masks(masks, len(a), b)


def normalized_rouge_l(a: str, b: str, threshold: float = DEFAULT_THRESHOLD) -> float:
    """ROUGE-L F (β = 1) over hyphen-joined words, phonetically equal words counting as equal. Symmetric."""
    wa, wb = normalized_words(a), normalized_words(b)
    return f_from_lcs(lcs_length(wa, wb, lambda x, y: _match(x, y, threshold)), len(wa), len(wb))


@dataclass(frozen=True)
class PairChange:
    """One translation pair's raw and normalized ROUGE-L; ``delta`` > 0 means spelling explained disagreement."""

    key: object
    text_a: str
    text_b: str
    raw_f: float
    normalized_f: float

    @property
    def delta(self) -> float:
        return self.normalized_f - self.raw_f


def rank_changes(changes: Iterable[PairChange], limit: int = 20) -> list[PairChange]:
    """The scored pairs that moved, largest change first (ties by key)."""
    moved = [p for p in changes if p.delta != 0]
    moved.sort(key=lambda p: (-abs(p.delta), str(p.key)))
    return moved[:limit]


def matched_variants(a: str, b: str, threshold: float = DEFAULT_THRESHOLD) -> list[tuple[str, str]]:
    """Word pairs counted equal only by the normalization (for showing leads why a score moved)."""
    wa, wb = normalized_words(a), normalized_words(b)
    exact_b = set(wb)
    seen: list[tuple[str, str]] = []
    for x in wa:
        if x in exact_b:
            continue
        for y in wb:
            if x != y and _match(x, y, threshold) and (x, y) not in seen:
                seen.append((x, y))
                break
    return seen


# --- Corpus level: every pair of the official ROUGE-L, scored both ways -----------------------------


def _prepared(text: str | None) -> tuple[list[str], bool]:
    """A text's normalized words, and whether they are exactly its raw ROUGE-L words (no glued hyphen)."""
    text = text or ""
    if not any(h in text for h in HYPHENS):
        return words(text), True
    joined = normalized_words(text)
    return joined, joined == words(text)


@lru_cache(maxsize=65536)
def _shape(word: str) -> tuple[str, int, int, int, str, bool]:
    """Key, key length, consonant count, bit set of the key's consonants, final vowel, Devanagari or not."""
    key = phonetic_key(word)
    mask = consonants = 0
    for c in key:
        if c not in VOWELS:
            mask |= 1 << (ord(c) - 48)
            consonants += 1
    return key, len(key), consonants, mask, _final_vowel(key), script_of(word) == "devanagari"


def variant_partners(vocabulary: Iterable[str], threshold: float = DEFAULT_THRESHOLD) -> dict[str, set[str]]:
    """For distinct words, the other words each one matches (``words_match``: same key, or phonetically close).

    Before the edit distance, pairs are ruled out by ``words_match``'s own final-vowel rules and by a
    lower bound on the distance: an indel costs at least a vowel edit (0.25), and every consonant not
    matched to the same letter costs at least 0.5 (a similar-sound swap or a semivowel indel), one per
    side per edit; so do the surplus consonants of the longer skeleton and the letters only one key has.
    """
    by_key: dict[str, list[str]] = {}
    fuzzy: list[tuple[str, tuple]] = []
    for word in dict.fromkeys(vocabulary):
        shape = _shape(word)
        if shape[0]:
            by_key.setdefault(shape[0], []).append(word)
        if shape[1] >= MIN_FUZZY_LENGTH:
            fuzzy.append((word, shape))
    partners: dict[str, set[str]] = {}
    for group in by_key.values():
        if len(group) > 1:
            for x in group:  # one shared key, but two Devanagari words must also share the strict key
                same = {y for y in group if y != x and _match(x, y, threshold)}
                if same:
                    partners.setdefault(x, set()).update(same)
    for i, (x, (kx, lx, cx, mx, fx, dx)) in enumerate(fuzzy):
        for y, (ky, ly, cy, my, fy, dy) in fuzzy[i + 1:]:
            if kx == ky or bool(fx) != bool(fy) or (fx != fy and dx and dy):
                continue
            budget = threshold * (lx if lx > ly else ly)
            if VOWEL_COST * abs(lx - ly) >= budget or SIMILAR_COST * abs(cx - cy) >= budget:
                continue
            if SIMILAR_COST * max((mx & ~my).bit_count(), (my & ~mx).bit_count()) >= budget:
                continue
            if _match(x, y, threshold) or _match(y, x, threshold):
                partners.setdefault(x, set()).add(y)
                partners.setdefault(y, set()).add(x)
    return partners


@lru_cache(maxsize=32768)
def _unit_partners(vocabulary: tuple[str, ...], threshold: float) -> dict[str, set[str]]:
    """``variant_partners`` of one unit's words, remembered: after a save only the changed units pay again.
    The result is shared between calls: read it, never change it."""
    return variant_partners(vocabulary, threshold)


def normalized_pair_f(texts: Sequence[str | None], pair_a: Sequence[int], pair_b: Sequence[int],
                      pair_unit: Sequence[int], raw_f: Sequence[float] | None = None,
                      threshold: float = DEFAULT_THRESHOLD) -> list[float]:
    """``normalized_rouge_l`` of many pairs of ``texts`` (indices), grouped in units (sentence, phase).

    With ``raw_f`` (each pair's official raw F), a pair in which no two different words match and
    whose normalized words are its raw words keeps its raw F exactly (the LCS is the same), so only
    pairs with a spelling variant pay for the phonetic LCS: values equal ``normalized_rouge_l``.
    """
    prepared = [_prepared(t) for t in texts]
    word_sets = [set(w) for w, _ in prepared]
    members: dict[int, set[int]] = {}
    for a, b, unit in zip(pair_a, pair_b, pair_unit):
        members.setdefault(unit, set()).update((a, b))
    partners = {
        unit: _unit_partners(tuple(sorted({w for i in idx for w in prepared[i][0]})), threshold)
        for unit, idx in members.items()
    } if raw_f is not None else {}
    matches = lambda x, y: _match(x, y, threshold)  # noqa: E731
    nothing: frozenset[str] = frozenset()
    out: list[float] = []
    for k, (a, b, unit) in enumerate(zip(pair_a, pair_b, pair_unit)):
        (wa, plain_a), (wb, plain_b) = prepared[a], prepared[b]
        equal = matches
        if raw_f is not None:
            near = partners[unit]
            if plain_a and plain_b and not any(near.get(x, nothing) & word_sets[b] for x in word_sets[a]):
                out.append(float(raw_f[k]))
                continue
            # words_match is symmetric (exact costs), so the unit's partners are the same predicate.
            equal = lambda x, y, near=near: x == y or y in near.get(x, nothing)  # noqa: E731
        out.append(f_from_lcs(lcs_length(wa, wb, equal), len(wa), len(wb)))
    return out


def _weighted(values: Sequence[float], weights: Sequence[float]) -> float | None:
    if not values:
        return None
    total = sum(weights)
    if total <= 0:
        return sum(values) / len(values)
    return sum(v * w for v, w in zip(values, weights)) / total


def corpus_rouge_summary(pair_unit: Sequence[int], pair_f: Sequence[float], unit_phase: Sequence[str],
                         unit_weight: Sequence[float]) -> dict:
    """Corpus ROUGE-L from pair scores, weighted as the official figure (``corpus.agreement.rouge_summary``).

    Each unit's (sentence, phase) mean over its pairs, averaged weighted by ``unit_weight`` (source words
    + mean words of the unit's translations) per phase and pooled over both (``overall``); also
    unweighted means. Units without a pair are left out. Fed raw pair F it gives the official figures.
    """
    sums: dict[int, float] = {}
    counts: dict[int, int] = {}
    for unit, f in zip(pair_unit, pair_f):
        sums[unit] = sums.get(unit, 0.0) + float(f)
        counts[unit] = counts.get(unit, 0) + 1
    units = sorted(sums)
    means = {u: sums[u] / counts[u] for u in units}
    summary: dict = {}
    unweighted: dict = {}
    for phase in (*PHASES, "overall"):
        chosen = [u for u in units if phase == "overall" or unit_phase[u] == phase]
        values = [means[u] for u in chosen]
        summary[phase] = _weighted(values, [float(unit_weight[u]) for u in chosen])
        unweighted[phase] = sum(values) / len(values) if values else None
    summary["unweighted"] = unweighted
    summary["units"] = {p: sum(1 for u in units if unit_phase[u] == p) for p in PHASES}
    summary["pairs"] = len(pair_f)
    return summary


def _column(values) -> list:
    return values.tolist() if hasattr(values, "tolist") else list(values)


def spelling_tolerant_report(result, limit: int = 20, threshold: float = DEFAULT_THRESHOLD) -> dict:
    """Raw and normalized corpus ROUGE-L over the official figure's pairs, and the pairs moved most.

    ``result`` is a ``corpus.agreement.RougeResult`` (its translations, pairs, units and weights).
    The raw figure stays the official one; the normalized one says how much disagreement is spelling.
    """
    texts = [t.text for t in result.translations]
    pair_a, pair_b = _column(result.pair_a), _column(result.pair_b)
    pair_unit, raw = _column(result.pair_unit), _column(result.pair_f)
    unit_phase, unit_weight = list(result.unit_phase), _column(result.unit_weight)
    normalized = normalized_pair_f(texts, pair_a, pair_b, pair_unit, raw, threshold)
    unit_sentence = _column(result.unit_sentence)

    def label(k: int) -> tuple:
        s = result.sentences[unit_sentence[pair_unit[k]]]
        return (s.domain, s.split, s.sentence_id, unit_phase[pair_unit[k]],
                result.translations[pair_a[k]].translator, result.translations[pair_b[k]].translator)

    moved = [k for k in range(len(raw)) if normalized[k] != raw[k]]
    ranked = rank_changes(
        (PairChange(label(k), texts[pair_a[k]] or "", texts[pair_b[k]] or "", float(raw[k]), normalized[k]) for k in moved),
        limit,
    )
    rows = [
        {
            "domain": c.key[0], "split": c.key[1], "sentence_id": c.key[2], "phase": c.key[3],
            "translator_a": c.key[4], "translator_b": c.key[5],
            "raw_f": c.raw_f, "normalized_f": c.normalized_f, "change": c.delta,
            "text_a": c.text_a, "text_b": c.text_b,
            "variants": "; ".join(f"{x} = {y}" for x, y in matched_variants(c.text_a, c.text_b, threshold)),
        }
        for c in ranked
    ]
    return {
        "raw": corpus_rouge_summary(pair_unit, raw, unit_phase, unit_weight),
        "normalized": corpus_rouge_summary(pair_unit, normalized, unit_phase, unit_weight),
        "pairs": len(raw),
        "changed_pairs": len(moved),
        "changes": rows,
        "signature": signature(threshold),
    }
