"""The canonical tokenizer: the dataset's tokenization, named and versioned.

Python's ``\\w`` splits Devanagari words at vowel signs and rouge-score's default tokenizer
drops Devanagari entirely, so every token, word and offset in the project comes from here.
A token is a maximal run of letters, combining marks, digits, ZWJ and ZWNJ (after NFC);
every other non-space character is a token by itself.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

import regex

TOKENIZER_NAME = "hi-canon"
TOKENIZER_VERSION = "1.0"
TOKENIZER_SIGNATURE = f"{TOKENIZER_NAME}/{TOKENIZER_VERSION}"

_TOKEN = regex.compile(r"[\p{L}\p{M}\p{N}\u200c\u200d]+|[^\p{White_Space}]")
_WORDLIKE = regex.compile(r"[\p{L}\p{N}]")


@dataclass(frozen=True, slots=True)
class Token:
    text: str
    start: int
    end: int


def normalize(text: str) -> str:
    """NFC, the form every stored text is in."""
    return unicodedata.normalize("NFC", text)


def tokenize_with_offsets(text: str) -> list[Token]:
    """Tokens with character offsets into ``normalize(text)``."""
    return [Token(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(normalize(text))]


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(normalize(text))


def is_word(token: str) -> bool:
    """Words are tokens holding a letter or digit; punctuation and danda are not words."""
    return _WORDLIKE.search(token) is not None


def words(text: str) -> list[str]:
    """The case-folded words ROUGE-L is computed over."""
    return [t.casefold() for t in _TOKEN.findall(normalize(text)) if _WORDLIKE.search(t)]
