"""Roman → Devanagari typing help, a thin wrapper over ``indic-transliteration``.

The library's schemes are Sanskrit-oriented; for typing Hindi we adjust three things:
a consonant at the end of a word gets no virama (Hindi drops the final schwa: ``kIborD`` → कीबोर्ड),
the two-code-point "ा + ॅ" the library emits for English /ɔ/ becomes the single vowel sign ॉ (so
मॉनिटर is spelled one way), and digits stay Western (the corpus writes 2, not २). Text inside
``{braces}`` is copied unchanged, for names that rule 1 keeps in Roman script.

Phonetic typing (``khana`` → खाना, as Hindi speakers type) is ``suggest``: ranked candidates from the learned model
in ``corpus.romanization``; the schemes here stay for those who prefer a strict scheme.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indic_transliteration import sanscript

from corpus.romanization import suggest
from corpus.tokens import normalize


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
