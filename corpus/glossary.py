"""Glossary consistency: the team writes each transliterated term one way (rule 2) and keeps names
in Roman script (rule 1). Pure functions over plain text; the page shows their output as gentle
warnings, never as errors, because a translator may have a good reason to differ.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from corpus.tokens import normalize, tokenize

RULES = ("transliterate", "keep-roman")
# Endings a transliterated Hindi noun or adjective may take (rule 4: Hindi inflection on the root).
_MAX_INFLECTION = 4
# Spelling differences people make when transliterating the same English word; folded together
# so that किबोर्ड is recognised as the team's कीबोर्ड spelled differently.
_LOOSE = str.maketrans(
    {
        "\u0940": "\u093f",  # ी → ि
        "\u0942": "\u0941",  # ू → ु
        "\u0948": "\u0947",  # ै → े
        "\u094c": "\u094b",  # ौ → ो
        "\u0949": "\u094b",  # ॉ → ो
        "\u0945": "\u0947",  # ॅ → े
        "\u0911": "\u0913",  # ऑ → ओ
        "\u0908": "\u0907",  # ई → इ
        "\u090a": "\u0909",  # ऊ → उ
        "\u0901": "\u0902",  # ँ → ं
        "\u093c": None,  # nukta
        "\u200c": None,
        "\u200d": None,
    }
)
_DEVANAGARI = re.compile(r"[\u0900-\u097f]")


@dataclass(frozen=True)
class GlossaryEntry:
    english: str
    hindi: str
    rule: str = "transliterate"


@dataclass(frozen=True)
class GlossaryWarning:
    english: str
    expected: str
    found: str
    kind: str  # "roman", "spelling", "not-roman"
    message: str


def validate_entry(english: str, hindi: str, rule: str) -> GlossaryEntry:
    english = " ".join(english.split())
    hindi = normalize(" ".join(hindi.split()))
    if not english:
        raise ValueError("glossary: the English term is empty")
    if rule not in RULES:
        raise ValueError(f"glossary: rule must be one of {', '.join(RULES)}, not {rule!r}")
    if rule == "transliterate" and not _DEVANAGARI.search(hindi):
        raise ValueError(f"glossary: {english!r} is transliterated, so its Hindi form must be in Devanagari")
    if rule == "keep-roman":
        hindi = hindi or english
    if not hindi:
        raise ValueError(f"glossary: {english!r} needs a Hindi form")
    return GlossaryEntry(english, hindi, rule)


def _english_pattern(term: str) -> re.Pattern[str]:
    words = [re.escape(w) for w in term.split()]
    return re.compile(r"(?<![\w])" + r"\s+".join(words) + r"(?:s|es)?(?![\w])", re.IGNORECASE)


def mentions(text: str, english: str) -> list[str]:
    """Occurrences of an English term (whole words, any case, plural -s allowed) in ``text``."""
    return [m.group() for m in _english_pattern(english).finditer(text or "")]


def suggestions(source_text: str, entries: Iterable[GlossaryEntry]) -> list[GlossaryEntry]:
    """Glossary entries whose English term occurs in the source sentence, in sentence order."""
    found = []
    for entry in entries:
        m = _english_pattern(entry.english).search(source_text or "")
        if m:
            found.append((m.start(), entry.english.casefold(), entry))
    return [e for _, _, e in sorted(found, key=lambda t: (t[0], t[1]))]


def loose_key(text: str) -> str:
    return normalize(text).translate(_LOOSE)


def _spelling_variants(tokens: Sequence[str], entry: GlossaryEntry) -> list[str]:
    """Token runs that look like the entry's Hindi form spelled differently (allowing an inflection
    ending on the last word), but do not start with the team's exact spelling."""
    target = tokenize(entry.hindi)
    if not target:
        return []
    n = len(target)
    loose_target = [loose_key(t) for t in target]
    found = []
    for i in range(len(tokens) - n + 1):
        window = list(tokens[i:i + n])
        loose = [loose_key(t) for t in window]
        if loose[:-1] != loose_target[:-1]:
            continue
        last, want = loose[-1], loose_target[-1]
        if not last.startswith(want) or len(last) - len(want) > _MAX_INFLECTION:
            continue
        exact = window[:-1] == target[:-1] and window[-1].startswith(target[-1])
        if not exact:
            found.append(" ".join(window))
    return found


def check_translation(
    text: str | None, entries: Iterable[GlossaryEntry], source_text: str | None = None,
) -> list[GlossaryWarning]:
    """Gentle consistency warnings for one translation against the team's glossary.

    ``source_text`` enables the keep-Roman check ("a name in the sentence is missing"), which names
    terms of the sentence; leave it out in the aspect-blind phase, where those may be its aspects.
    """
    if not text or not text.strip():
        return []
    text = normalize(text)
    tokens = tokenize(text)
    warnings: list[GlossaryWarning] = []
    for entry in entries:
        if entry.rule == "transliterate":
            for found in dict.fromkeys(mentions(text, entry.english)):
                warnings.append(GlossaryWarning(
                    entry.english, entry.hindi, found, "roman",
                    f"“{found}” is left in Roman script; the team writes {entry.hindi} (rule 2).",
                ))
            for found in dict.fromkeys(_spelling_variants(tokens, entry)):
                warnings.append(GlossaryWarning(
                    entry.english, entry.hindi, found, "spelling",
                    f"“{found}” looks like {entry.hindi} (for “{entry.english}”) spelled differently; "
                    "the team spells it one way.",
                ))
        elif entry.rule == "keep-roman" and source_text and mentions(source_text, entry.english):
            if not mentions(text, entry.english) and not mentions(text, entry.hindi):
                warnings.append(GlossaryWarning(
                    entry.english, entry.hindi, "", "not-roman",
                    f"“{entry.english}” is a name the team keeps in Roman script (rule 1), "
                    "but it does not appear in Roman script in your translation.",
                ))
    return warnings
