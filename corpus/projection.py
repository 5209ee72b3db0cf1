"""Projection suggestions: an item with no complete aspect map of its own (every aspect-blind translation, an
aware one whose map is incomplete) gets each English aspect of its sentence found in its own tokens, from
item one, with no training.

For each English aspect the realisation is looked for, in order, through
1. ``aware``: the Hindi the aware translators of the same sentence mapped to it: exactly, then tolerant of
   spelling and inflection (nukta, anusvara/candrabindu, long/short vowel and class-nasal variants, as
   ``corpus.glossary.loose_key`` and ``corpus.romanization.spelling_variants`` fold them; gender and number
   endings on every word: स्क्रीन/स्क्रीनें, अच्छा/अच्छी, बैटरी/बैटरियाँ);
2. ``glossary``: the team's Hindi for the English term (guideline 2), the same way;
3. ``transliteration``: the English words written in Devanagari (``keyboard`` → कीबोर्ड, through the caller's
   transliterator, ``corpus.transliterate.suggest``), or kept in Roman script (guideline 1);
4. ``crf``: the trained model's spans (``corpus.suggestions``), where none of the above put a span.
The first source that finds an aspect wins; a span never overlaps one already suggested. Each suggestion
carries its source and a confidence. A suggestion is never a tag until the annotator accepts it.
Pure functions over plain values; ``db.projection`` reads the maps, the glossary and the settings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from corpus.glossary import GlossaryEntry, loose_key
from corpus.romanization import spelling_variants
from corpus.tokens import is_word, normalize, tokenize
from corpus.vocabulary import Phase

#: Sources: the aware phase's translations (their aspect maps), the glossary, transliteration, the CRF.
AWARE, GLOSSARY, TRANSLITERATION, CRF = Phase.AWARE.value, "glossary", "transliteration", "crf"
MAP = "map"  # the item's own aspect map (an aware translation's translator), not a projection
#: The projection's sources, in the order they are tried.
SOURCES = (AWARE, GLOSSARY, TRANSLITERATION, CRF)
#: Every source a suggestion can come from, as the figures list them.
ALL_SOURCES = (MAP, *SOURCES)

#: Confidence of an exact and of an inflection-tolerant match, per source (the CRF brings its own).
CONFIDENCE = {AWARE: (0.95, 0.85), GLOSSARY: (0.9, 0.8), TRANSLITERATION: (0.8, 0.7)}
#: Candidates asked of the transliterator per English word: past the third, they are mostly other Hindi words.
TRANSLITERATION_CANDIDATES = 3
#: Closed-class Hindi words (postpositions, auxiliaries, pronouns, conjunctions, particles): never an aspect's
#: realisation, though a transliteration may spell one (key → की, usb → सब).
FUNCTION_WORDS = frozenset("""
का की के को में से पर ने तक वाला वाले वाली है हैं था थी थे थीं हो होता होती होते गया गई गए रहा रही रहे और या
पर लेकिन मगर भी तो ही न नहीं ना यह ये वह वे इस उस इन उन इसका इसकी इसके उसका उसकी उसके मैं हम तुम आप सब कुछ
एक बार जो कि जब तब अब बहुत कम ज़्यादा""".split())

# Gender and number endings a Hindi noun or adjective (also a transliterated root, guideline 4) takes, as
# ``loose_key`` writes them (ी folds to ि, ँ to ं), longest first. A stem keeps at least two characters.
_ENDINGS = ("ियां", "ियों", "ियो", "िया", "ाएं", "ाओं", "ों", "ें", "ा", "े", "ि", "ो")
_MIN_STEM = 2

Span = tuple[int, int]
Transliterator = Callable[[str], Sequence[str]]


@dataclass(frozen=True)
class SourceAspect:
    """One English aspect of the sentence and the Hindi each aware translator mapped to it (empty when
    none did, or every one dropped it)."""

    term: str
    renderings: tuple[str, ...] = ()


@dataclass(frozen=True)
class Projected:
    """A suggested token span, where it came from and how sure the rule is."""

    span: Span
    source: str
    confidence: float
    term: str  # the English aspect it renders ("" for the CRF's)
    exact: bool = True  # False: found through the spelling and inflection folding


def fold(word: str) -> str:
    """A word as spelling-tolerant matching compares it: ``loose_key`` (nukta, candrabindu, long/short vowels,
    ZWJ) after a class nasal before its consonant is written as the anusvara (खण्ड → खंड), and case-folded for
    Roman words."""
    word = normalize(word)
    while True:  # each class nasal + virama before its consonant becomes the anusvara, one at a time
        shorter = [v for v in spelling_variants(word)
                   if len(v) == len(word) - 1 and v.count("\u0902") == word.count("\u0902") + 1]
        if not shorter:
            return loose_key(word).casefold()
        word = shorter[0]


def stem(word: str) -> str:
    """The folded word without one gender/number ending (``fold`` first): बैटरियाँ, बैटरी → बैटर."""
    key = fold(word)
    for ending in _ENDINGS:
        if key.endswith(ending) and len(key) - len(ending) >= _MIN_STEM:
            return key[: -len(ending)]
    return key


def _windows(tokens: Sequence[str], target: Sequence[str], exact: bool) -> list[Span]:
    """Non-overlapping runs of ``tokens`` equal to ``target``, exactly or after ``stem`` on every word; never a
    run of function words only."""
    n = len(target)
    if not n or n > len(tokens) or all(normalize(t) in FUNCTION_WORDS for t in target):
        return []
    want = list(target) if exact else [stem(t) for t in target]
    have = list(tokens) if exact else [stem(t) for t in tokens]
    found: list[Span] = []
    i = 0
    while i <= len(tokens) - n:
        if have[i:i + n] == want and not all(normalize(t) in FUNCTION_WORDS for t in tokens[i:i + n]):
            found.append((i, i + n))
            i += n
        else:
            i += 1
    return found


def find(tokens: Sequence[str], renderings: Iterable[str], want: int | None = None) -> list[tuple[Span, bool]]:
    """Where the Hindi renderings occur in ``tokens``, as (span, exact): every exact match of any rendering, then,
    while fewer than ``want`` (None: when there is none), the inflection-tolerant ones. Longer renderings win
    overlaps; sorted by position."""
    targets = sorted({tuple(tokenize(r)) for r in renderings if r and r.strip()} - {()}, key=lambda t: (-len(t), t))
    targets = [t for t in targets if any(is_word(w) for w in t)]
    found: list[tuple[Span, bool]] = []
    for exact in (True, False):
        if not exact and found and (want is None or len(found) >= want):
            break
        for target in targets:
            found += [(s, exact) for s in _windows(tokens, target, exact) if not any(_overlap(s, o) for o, _ in found)]
    return sorted(found)


def _overlap(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def glossary_renderings(term: str, entries: Iterable[GlossaryEntry]) -> list[str]:
    """The team's Hindi for an English aspect: entries whose English is the term, case and a plural -s/-es
    aside."""
    key = _english_key(term)
    return [e.hindi for e in entries if _english_key(e.english) == key]


def _english_key(text: str) -> str:
    words = text.casefold().split()
    if words and words[-1].endswith(("ses", "xes", "zes", "ches", "shes")):
        words[-1] = words[-1][:-2]
    elif words and len(words[-1]) > 2 and words[-1].endswith("s") and not words[-1].endswith("ss"):
        words[-1] = words[-1][:-1]
    return " ".join(words)


def transliteration_renderings(term: str, transliterate: Transliterator,
                               k: int = TRANSLITERATION_CANDIDATES) -> list[str]:
    """The English term written as Hindi writes a loanword: every combination of each word's first ``k``
    Devanagari candidates (the singular's too, for a plural) or the word itself in Roman script (guideline 1)."""
    words = [w for w in tokenize(term) if is_word(w)]
    if not words or len(words) > 4:
        return [term] if words else []
    options: list[list[str]] = []
    for word in words:
        forms = list(transliterate(word))[:k]
        singular = _english_key(word)
        if singular != word.casefold():
            forms += [f for f in list(transliterate(singular))[:k] if f not in forms]
        options.append([*forms, word])  # a word kept in Roman script (guideline 1: USB पोर्ट)
    combos = [""]
    for forms in options:
        combos = [f"{c} {f}".strip() for c in combos for f in forms][:200]
    return combos


def _merged(aspects: Sequence[SourceAspect]) -> list[SourceAspect]:
    """One aspect per English term (case aside), in first-seen order, with every rendering of its occurrences."""
    out: dict[str, SourceAspect] = {}
    for a in aspects:
        key = a.term.casefold().strip()
        if not key:
            continue
        had = out.get(key)
        out[key] = a if had is None else SourceAspect(had.term, tuple(dict.fromkeys(had.renderings + a.renderings)))
    return list(out.values())


def _occurrences(aspects: Sequence[SourceAspect]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for a in aspects:
        key = a.term.casefold().strip()
        counts[key] = counts.get(key, 0) + 1
    return counts


def project(
    tokens: Sequence[str],
    aspects: Sequence[SourceAspect],
    *,
    glossary: Iterable[GlossaryEntry] = (),
    transliterate: Transliterator | None = None,
    crf: Iterable[tuple[int, int, float]] = (),
    sources: Iterable[str] = SOURCES,
    taken: Iterable[Span] = (),
) -> list[Projected]:
    """Suggestions for ``tokens`` (the item's frozen canonical tokens) from the English ``aspects`` of its
    sentence, trying ``sources`` in the module's order; ``taken`` are spans already suggested (the item's own
    map), which nothing overlaps. An English term that occurs n times in the sentence is looked for once and
    its first n Hindi occurrences suggested; when the Hindi has more, the confidence falls by n / occurrences
    (the same word may stand for something else). Sorted by position."""
    enabled = set(sources)
    entries = list(glossary) if GLOSSARY in enabled else []
    occupied: list[Span] = list(taken)
    out: list[Projected] = []
    counts = _occurrences(aspects)
    # longer terms first: "camera app" takes its कैमरा before "camera" looks for one
    merged = sorted(_merged(aspects), key=lambda a: -len(tokenize(a.term)))
    for aspect in merged:
        key = aspect.term.casefold().strip()
        for source, renderings in _renderings(aspect, enabled, entries, transliterate):
            hits = [(s, exact) for s, exact in find(tokens, renderings, counts[key])
                    if not any(_overlap(s, o) for o in occupied)]
            if not hits:
                continue
            share = min(1.0, counts[key] / len(hits))  # the word also stands for something else (खाना: food, eat)
            for span, exact in sorted(hits, key=lambda h: (not h[1], h[0]))[:counts[key]]:
                occupied.append(span)
                confidence = round(CONFIDENCE[source][0 if exact else 1] * share, 4)
                out.append(Projected(span, source, confidence, aspect.term, exact))
            break
    if CRF in enabled:
        for start, end, confidence in sorted(crf):
            span = (int(start), int(end))
            if 0 <= span[0] < span[1] <= len(tokens) and not any(_overlap(span, o) for o in occupied):
                occupied.append(span)
                out.append(Projected(span, CRF, round(float(confidence), 4), ""))
    return sorted(out, key=lambda p: p.span)


def _renderings(aspect: SourceAspect, enabled: set[str], entries: Sequence[GlossaryEntry],
                transliterate: Transliterator | None) -> Iterable[tuple[str, list[str]]]:
    """(source, Hindi renderings) in the order the sources are tried; computed lazily, so the transliterator
    is asked only about aspects the maps and the glossary did not find."""
    if AWARE in enabled and aspect.renderings:
        yield AWARE, list(aspect.renderings)
    if GLOSSARY in enabled and entries:
        found = glossary_renderings(aspect.term, entries)
        if found:
            yield GLOSSARY, found
    if TRANSLITERATION in enabled and transliterate is not None:
        yield TRANSLITERATION, transliteration_renderings(aspect.term, transliterate)


def aware_renderings(text: str, spans: Iterable[tuple[int, int] | None]) -> tuple[str, ...]:
    """The Hindi an aware translator mapped, from their translation's text and the map's character spans
    (None: dropped)."""
    out = []
    for span in spans:
        if span is None:
            continue
        start, end = span
        if 0 <= start < end <= len(text):
            out.append(normalize(text[start:end]))
    return tuple(out)
