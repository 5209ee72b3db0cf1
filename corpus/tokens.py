"""The canonical tokenizer: the dataset's tokenization, named and versioned.

Python's ``\\w`` splits Devanagari words at vowel signs and rouge-score's default tokenizer
drops Devanagari entirely, so every token, word and offset in the project comes from here.
A token is a maximal run of letters, combining marks, digits, ZWJ and ZWNJ (after NFC);
every other non-space character is a token by itself.
"""

from __future__ import annotations

import unicodedata
from itertools import islice
from dataclasses import dataclass

TOKENIZER_NAME = "hi-canon"
TOKENIZER_VERSION = "1.0"
TOKENIZER_SIGNATURE = f"{TOKENIZER_NAME}/{TOKENIZER_VERSION}"

_WORD_CHARACTER = r"[\p{L}\p{M}\p{N}\u200c\u200d]"
_SPACE_CHARACTER = r"\p{White_Space}"
_TOKEN_PATTERN = rf"{_WORD_CHARACTER}+|[^{_SPACE_CHARACTER}]"
_WORDLIKE_PATTERN = r"[\p{L}\p{N}]"
#: Compiled on first use (``_compiled``): importing this module (every stored text's ``normalize``) does not
#: import ``regex``, a tenth of a command's start-up.
_TOKEN = _WORDLIKE = _WORD_CHAR = _SPACE_CHAR = None


def _compiled():  # noqa: ANN202
    global _TOKEN, _WORDLIKE, _WORD_CHAR, _SPACE_CHAR
    import regex

    _TOKEN, _WORDLIKE = regex.compile(_TOKEN_PATTERN), regex.compile(_WORDLIKE_PATTERN)
    _WORD_CHAR, _SPACE_CHAR = regex.compile(_WORD_CHARACTER), regex.compile(_SPACE_CHARACTER)
    return _TOKEN


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
    return [Token(m.group(), m.start(), m.end()) for m in (_TOKEN or _compiled()).finditer(normalize(text))]


def token_spans(text: str, limit: int | None = None) -> list[tuple[int, int]]:
    """``(start, end)`` of each token of ``tokenize_with_offsets(text)`` (of the first ``limit`` tokens if
    given), without making a ``Token`` of each."""
    matches = (_TOKEN or _compiled()).finditer(normalize(text))
    return [m.span() for m in (matches if limit is None else islice(matches, limit))]


def covers_whole_tokens(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (of an NFC text, inside it, not empty) starts where a token starts and ends
    where one ends, read off the characters at its two ends and their neighbours: an import checks ~25,000
    aspect spans, and tokenizing each text took three times as long."""
    if _TOKEN is None:
        _compiled()
    first, last = text[start], text[end - 1]
    if _SPACE_CHAR.match(first) or _SPACE_CHAR.match(last):
        return False
    if start > 0 and _WORD_CHAR.match(first) and _WORD_CHAR.match(text[start - 1]):
        return False
    return not (end < len(text) and _WORD_CHAR.match(last) and _WORD_CHAR.match(text[end]))


def tokenize(text: str) -> list[str]:
    return (_TOKEN or _compiled()).findall(normalize(text))


def is_word(token: str) -> bool:
    """Words are tokens holding a letter or digit; punctuation and danda are not words."""
    if _WORDLIKE is None:
        _compiled()
    return _WORDLIKE.search(token) is not None


def words(text: str) -> list[str]:
    """The case-folded words ROUGE-L is computed over."""
    tokens = (_TOKEN or _compiled()).findall(normalize(text))
    return [t.casefold() for t in tokens if _WORDLIKE.search(t)]
