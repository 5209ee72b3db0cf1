"""Which Devanagari word comes next: a small word bigram model that ranks typing candidates by the words before them.

The phonetic model (``corpus.romanization``) spells one Roman word at a time, so ``main`` is मैं or में, ``hai`` है
or हैं, ``ki`` की or कि whatever was typed before. Here the sentence's preceding words decide among the candidates
it offers. ``P(word | previous)`` is a Witten-Bell interpolation of three levels, each backing off to the next:

1. the previous word itself (bigram counts);
2. the previous word's last two characters, then its last one (``रहे``, ``करते`` and ``होते`` all end in ``े``, and
   ``हैं`` follows them all), learned from the same counts, so a verb the text never showed still helps;
3. the word's share of running Hindi: the typing lexicon's frequencies (wordfreq 3.1.1's Hindi list, the unit of
   ``hi_lexicon.tsv.gz``), with the caller's extra words.

The shipped counts (``corpus/data/hi_bigrams.tsv.gz``, ``prev<TAB>word<TAB>count``) come from Hindi running text
that installs offline as Debian packages: the Hindi help of LibreOffice (``libreoffice-help-hi``) and the Hindi
messages of its interface (``libreoffice-l10n-hi``), MPL-2.0, built by ``python -m corpus.romanization_build
--bigrams-only`` (credit in ``corpus/data/hi_bigrams.LICENSE``). They are not Dakshina's sentences nor its Wikipedia
text, on which the running-text benchmark (``bench.bench_typing_context``) is measured. A project's own translations
add their counts at run time (``extra``: previous word → following word → count).
"""

from __future__ import annotations

import gzip
import math
from collections.abc import Mapping, Sequence
from functools import lru_cache
from itertools import pairwise
from pathlib import Path

import regex

from corpus import model_cache

BIGRAMS_PATH = Path(__file__).resolve().parent / "data" / "hi_bigrams.tsv.gz"
# A word's share of running text when the lexicon does not know it.
UNKNOWN_SHARE = 1e-8
# How many characters of the previous word's end make its class (``SUFFIXES[0]`` first, then the next).
SUFFIXES = (2, 1)
_DEVANAGARI_WORD = regex.compile(r"^[\u0900-\u0963\u0966-\u097f\u200c\u200d]+$")
_WORD = regex.compile(r"[\p{L}\p{M}\u200c\u200d]+")


def is_devanagari_word(word: str) -> bool:
    """One word of Devanagari letters and signs (no danda, digits or Latin)."""
    return bool(word) and _DEVANAGARI_WORD.match(word) is not None


def sentence_pairs(words: Sequence[str | None]) -> list[tuple[str, str]]:
    """The (previous, word) pairs of a run of words where both are Devanagari words; ``None`` or any other word
    (Latin, digits) breaks the run."""
    pairs = []
    for prev, word in pairwise(words):
        if prev and word and is_devanagari_word(prev) and is_devanagari_word(word):
            pairs.append((prev, word))
    return pairs


def text_words(text: str) -> list[str]:
    """The words of a text in order (runs of letters and combining marks), for ``sentence_pairs``; each sentence
    end (danda, full stop, question or exclamation mark) is a ``""`` that breaks the pairs."""
    out: list[str] = []
    for piece in regex.split(r"[।॥.?!:;\n]", text):
        out.extend(_WORD.findall(piece))
        out.append("")
    return out


class _Level:
    """Counts of the words seen after one context: the total, how many distinct ones, and each one's count."""
    __slots__ = ("counts", "kinds", "total")

    def __init__(self) -> None:
        self.total = 0
        self.kinds = 0
        self.counts: dict[str, int] = {}

    def add(self, word: str, n: int) -> None:
        if word not in self.counts:
            self.kinds += 1
            self.counts[word] = 0
        self.counts[word] += n
        self.total += n


class ContextModel:
    """The bigram counts, with the previous word's suffix classes gathered from them."""

    def __init__(self, bigrams: Mapping[str, Mapping[str, int]]):
        self.after: dict[str, _Level] = {}
        self.after_suffix: list[dict[str, _Level]] = [{} for _ in SUFFIXES]
        for prev, followers in bigrams.items():
            for word, n in followers.items():
                self._add(prev, word, n)

    def _add(self, prev: str, word: str, n: int) -> None:
        self.after.setdefault(prev, _Level()).add(word, n)
        for level, size in zip(self.after_suffix, SUFFIXES):
            level.setdefault(prev[-size:], _Level()).add(word, n)

    def logp(self, word: str, prev: str | None, unigram: float,
             extra: Mapping[str, Mapping[str, int]] | None = None) -> float:
        """log P(word | prev): interpolated from the previous word's counts (``extra``'s added), its suffix classes'
        and the word's running-text share ``unigram``. No previous word: the share alone."""
        p = max(unigram, UNKNOWN_SHARE)
        if not prev:
            return math.log(p)
        for level, size in reversed(list(zip(self.after_suffix, SUFFIXES))):
            p = _witten_bell(level.get(prev[-size:]), word, p)
        own = self.after.get(prev)
        more = extra.get(prev) if extra else None
        if more:
            mixed = _Level()
            for source in (own.counts if own else {}, more):
                for w, n in source.items():
                    if isinstance(n, int) and n > 0:
                        mixed.add(w, n)
            own = mixed
        p = _witten_bell(own, word, p)
        return math.log(p)


def _witten_bell(level: _Level | None, word: str, lower: float) -> float:
    if level is None or not level.total:
        return lower
    weight = level.total / (level.total + level.kinds)
    return weight * level.counts.get(word, 0) / level.total + (1 - weight) * lower


def read_bigrams(path: Path = BIGRAMS_PATH) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    if not path.exists():
        return out
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        for line in fh:
            prev, word, n = line.rstrip("\n").split("\t")
            out.setdefault(prev, {})[word] = int(n)
    return out


@lru_cache(maxsize=1)
def load_context_model() -> ContextModel:
    """The shipped counts, once per process: built by ``build_context_model`` once per change of them or of this
    module, then read from ``corpus.model_cache``."""
    return model_cache.cached("hi_bigrams", (BIGRAMS_PATH, Path(__file__)), build_context_model,
                              licences=(BIGRAMS_PATH.parent / "hi_bigrams.LICENSE",))


def build_context_model() -> ContextModel:
    """The model built from the shipped counts (what ``load_context_model`` caches)."""
    return ContextModel(read_bigrams(BIGRAMS_PATH))


def bigram_counts(texts: Sequence[str]) -> dict[str, dict[str, int]]:
    """previous word → following word → count over texts (NFC expected), for ``ContextModel`` or ``extra``."""
    out: dict[str, dict[str, int]] = {}
    for text in texts:
        for prev, word in sentence_pairs(text_words(text)):
            followers = out.setdefault(prev, {})
            followers[word] = followers.get(word, 0) + 1
    return out
