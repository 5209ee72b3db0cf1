"""Roman → Devanagari typing help, a thin wrapper over ``indic-transliteration``.

The library's schemes are Sanskrit-oriented; for typing Hindi we adjust three things:
a consonant at the end of a word gets no virama (Hindi drops the final schwa: ``kIborD`` → कीबोर्ड),
the two-code-point "ा + ॅ" the library emits for English /ɔ/ becomes the single vowel sign ॉ (so
मॉनिटर is spelled one way), and digits stay Western (the corpus writes 2, not २). Text inside
``{braces}`` is copied unchanged, for names that rule 1 keeps in Roman script.

Phonetic typing (``khana`` → खाना, as Hindi speakers type) is ``suggest``: ranked candidates from the learned model
in ``corpus.romanization``, reordered by the words typed before it in the sentence (``context``) with the word
bigram model of ``corpus.word_context`` (its counts come from the Hindi LibreOffice help and messages, Debian's
``libreoffice-help-hi`` and ``libreoffice-l10n-hi``, MPL-2.0; and, at run time, from the project's own
translations); the schemes here stay for those who prefer a strict scheme.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from corpus import romanization
from corpus.tokens import normalize
from corpus.word_context import is_devanagari_word, load_context_model


@dataclass(frozen=True)
class Scheme:
    key: str
    label: str
    description: str


SCHEMES: tuple[Scheme, ...] = (
    Scheme("itrans", "ITRANS", "Case-sensitive ASCII: A = ा, I = ी, T = ट, D = ड, sh = श. Easiest to type."),
    Scheme("hk", "Harvard-Kyoto", "Case-sensitive ASCII: A = ा, I = ी, T = ट, z = श, S = ष."),
    Scheme("optitrans", "OPTITRANS", "Like ITRANS, with more phonetic spellings (aa, ii, ee)."),
    Scheme("velthuis", "Velthuis", "ASCII with dots: aa = ा, .t = ट, .d = ड."),
    Scheme("iast", "IAST", "Romanization with diacritics: ā, ī, ṭ, ḍ, ś."),
)
SCHEME_KEYS = tuple(s.key for s in SCHEMES)
DEFAULT_SCHEME = "itrans"

_BRACED = re.compile(r"\{([^{}]*)\}")
_FINAL_VIRAMA = re.compile(r"([\u0915-\u0939\u0958-\u095f]\u093c?)\u094d(?![\u0900-\u097f\u200c\u200d])")
_DEVANAGARI_DIGITS = str.maketrans("०१२३४५६७८९", "0123456789")
# The library writes English /ɔ/ as AA + candra E; Hindi spells it with the one candra-O sign.
_CANDRA_O = (("\u093e\u0945", "\u0949"), ("\u0906\u0945", "\u0911"), ("\u0905\u0945", "\u0911"))
# Shortcuts for sounds the Sanskrit tables leave out: ITRANS "O" (unused there) types ॉ.
_SHORTCUTS = {"itrans": (("O", "A.c"),)}


# With context: how many of the model's candidates are reordered, and how (tuned on a held-out tenth of the bigram
# text, each word typed as a Dakshina train romanization of it; never on Dakshina's dev sentences). A candidate's
# score is -POSITION_COST per place in the model's list + CONTEXT_WEIGHT * log(P(word | previous) / P(word)) +
# UNIGRAM_WEIGHT * log P(word), P(word) its share of running text (the lexicon's frequency, at least its floor).
CONTEXT_CANDIDATES = 10
POSITION_COST = 1.0
CONTEXT_WEIGHT = 0.3
UNIGRAM_WEIGHT = 0.15
# The model's best this many also offer their form with a final anusvara (है → हैं, थी → थीं), right after them, when
# the lexicon has it: chat drops the nasal that grammar needs after a plural or a verb in -ते (``rahe hai`` → रहे हैं).
NASAL_VARIANTS_OF = 3
# ... when the lexicon's frequency of that form is this far (log) above its floor (about 3e-5 of running words), so a
# word list's slip (हें, कीं) is never offered; or when the project writes it.
NASAL_LOG_FREQ = 4.0
# Preceding words used (most recent last).
MAX_CONTEXT = 3


def usable_context(context: Sequence[str]) -> tuple[str, ...]:
    """The last ``MAX_CONTEXT`` preceding words, NFC, that are Devanagari words; the run stops at anything else (a
    Roman name, digits, punctuation), since a bigram spans only adjacent words."""
    if isinstance(context, str):
        context = context.split()
    out: list[str] = []
    for word in reversed(tuple(context)[-MAX_CONTEXT:]):
        word = unicodedata.normalize("NFC", word.strip()) if isinstance(word, str) else ""
        if not is_devanagari_word(word):
            break
        out.append(word)
    return tuple(reversed(out))


def suggest(roman: str, k: int = 5, *, context: Sequence[str] = (), lexicon_extra: Mapping[str, float] | None = None,
            prefer: Sequence[str] = (), context_extra: Mapping[str, Mapping[str, int]] | None = None) -> list[str]:
    """Ranked NFC Devanagari candidates for one Roman word, best first, no duplicates, at most ``k``.

    ``context``: the Devanagari words typed before it in the sentence, most recent last. Empty, the phonetic model's
    own order (``corpus.romanization.suggest``); otherwise its best ``CONTEXT_CANDIDATES`` (and their final-nasal
    forms) reordered by the word bigram model (``corpus.word_context``). ``lexicon_extra`` and ``prefer`` as in
    ``corpus.romanization.suggest``; ``context_extra`` adds bigram counts (previous word → word → count), e.g. from
    the project's translations.
    """
    ctx = usable_context(context)
    if not ctx or k <= 0:
        return romanization.suggest(roman, k, lexicon_extra=lexicon_extra, prefer=prefer)
    base = romanization.suggest(roman, max(k, CONTEXT_CANDIDATES), lexicon_extra=lexicon_extra, prefer=prefer)
    if len(base) <= 1:  # nothing to choose from (or Devanagari, digits: passed through)
        return base[:k]
    model = romanization.load_model()
    lexicon = model.lexicon
    candidates: list[str] = []
    for place, word in enumerate(base):
        candidates.append(word)
        nasal = word + "\u0902"
        if place < NASAL_VARIANTS_OF and not word.endswith(("\u0902", "\u0901")) and nasal not in base and (
                model.log_freq(nasal) >= NASAL_LOG_FREQ or (lexicon_extra and nasal in lexicon_extra)):
            candidates.append(nasal)
    floor = math.exp(model.log_floor) if lexicon else 1e-7
    words = load_context_model()
    prev = ctx[-1]
    scored = []
    for place, word in enumerate(candidates):
        share = max(lexicon.get(word, 0.0), float((lexicon_extra or {}).get(word, 0.0) or 0.0), floor)
        gain = words.logp(word, prev, share, context_extra) - math.log(share)
        scored.append((-POSITION_COST * place + CONTEXT_WEIGHT * gain + UNIGRAM_WEIGHT * math.log(share), -place, word))
    scored.sort(reverse=True)
    return [word for *_, word in scored][:k]


def scheme_label(key: str) -> str:
    for s in SCHEMES:
        if s.key == key:
            return s.label
    raise ValueError(f"transliteration scheme must be one of {', '.join(SCHEME_KEYS)}, not {key!r}")


def to_devanagari(roman: str, scheme: str = DEFAULT_SCHEME) -> str:
    """Convert Roman input to NFC Devanagari in a Hindi-friendly way; ``{...}`` stays Roman."""
    scheme_label(scheme)
    out: list[str] = []
    pos = 0
    for m in _BRACED.finditer(roman):
        out.append(_convert(roman[pos:m.start()], scheme))
        out.append(m.group(1))
        pos = m.end()
    out.append(_convert(roman[pos:], scheme))
    return normalize("".join(out))


def _convert(chunk: str, scheme: str) -> str:
    if not chunk:
        return ""
    for old, new in _SHORTCUTS.get(scheme, ()):
        chunk = chunk.replace(old, new)
    # Imported here, not at the top: reading the library's scheme tables costs a process about 0.3 CPU-seconds, and
    # the phonetic model (``suggest``), which every app server and test worker loads, never needs them.
    from indic_transliteration import sanscript

    text = sanscript.transliterate(chunk, scheme, sanscript.DEVANAGARI)
    for old, new in _CANDRA_O:
        text = text.replace(old, new)
    text = _FINAL_VIRAMA.sub(r"\1", text)
    return text.translate(_DEVANAGARI_DIGITS)


# (Roman, Devanagari, note) per scheme; the examples are run through to_devanagari in the tests.
CHEAT_SHEETS: dict[str, tuple[tuple[str, str, str], ...]] = {
    "itrans": (
        ("a A i I u U", "अ आ इ ई उ ऊ", "short and long vowels"),
        ("e ai o au", "ए ऐ ओ औ", ""),
        ("O  (or A.c)", "ॉ / ऑ", "English 'o' as in monitor: mOniTar → मॉनिटर"),
        ("M  .N", "ं ँ", "anusvara, candrabindu: hAM → हां, mA.N → माँ"),
        ("k kh g gh", "क ख ग घ", ""),
        ("ch Ch j jh", "च छ ज झ", ""),
        ("T Th D Dh N", "ट ठ ड ढ ण", "capitals are retroflex"),
        ("t th d dh n", "त थ द ध न", ""),
        ("p ph b bh m", "प फ ब भ म", ""),
        ("y r l v sh Sh s h", "य र ल व श ष स ह", ""),
        (".D .Dh", "ड़ ढ़", "nukta letters"),
        ("f z q", "फ़ ज़ क़", ""),
        ("kIborD", "कीबोर्ड", "a word-final consonant needs no 'a'"),
        ("blUTUtha", "ब्लूटूथ", ""),
        ("khAnA bahuta achChA thA.", "खाना बहुत अच्छा था।", "full stop becomes danda"),
        ("{Sony} kA laipaTOp", "", "{braces} keep a name in Roman script"),
    ),
    "hk": (
        ("a A i I u U", "अ आ इ ई उ ऊ", ""),
        ("e ai o au", "ए ऐ ओ औ", ""),
        ("M", "ं", "anusvara"),
        ("k kh g gh", "क ख ग घ", ""),
        ("c ch j jh", "च छ ज झ", "HK writes च as c"),
        ("T Th D Dh N", "ट ठ ड ढ ण", ""),
        ("t th d dh n", "त थ द ध न", ""),
        ("y r l v z S s h", "य र ल व श ष स ह", "z = श, S = ष"),
        ("kIborD", "कीबोर्ड", ""),
    ),
    "optitrans": (
        ("a aa i ii u uu", "अ आ इ ई उ ऊ", ""),
        ("e ai o au", "ए ऐ ओ औ", ""),
        ("T Th D Dh", "ट ठ ड ढ", ""),
        ("kiiborD", "कीबोर्ड", ""),
    ),
    "velthuis": (
        ("a aa i ii u uu", "अ आ इ ई उ ऊ", ""),
        (".t .th .d .dh .n", "ट ठ ड ढ ण", ""),
        ("\"s .s", "श ष", ""),
        ("kiibor.d", "कीबोर्ड", ""),
    ),
    "iast": (
        ("a ā i ī u ū", "अ आ इ ई उ ऊ", ""),
        ("ṭ ṭh ḍ ḍh ṇ", "ट ठ ड ढ ण", ""),
        ("ś ṣ", "श ष", ""),
        ("kībor\u1e0d", "कीबोर्ड", ""),
    ),
}


def cheat_sheet(scheme: str = DEFAULT_SCHEME) -> list[dict[str, str]]:
    """Rows ``{type, gives, note}``; an empty ``gives`` is filled by converting the example."""
    scheme_label(scheme)
    rows = []
    for roman, deva, note in CHEAT_SHEETS.get(scheme, ()):
        rows.append({"type": roman, "gives": deva or to_devanagari(roman, scheme), "note": note})
    return rows


__all__ = [
    "DEFAULT_SCHEME", "SCHEMES", "SCHEME_KEYS", "Scheme", "cheat_sheet", "scheme_label", "suggest", "to_devanagari",
]
