"""Plain export records: what every formatter reads (export = load -> formatters -> writer).

A record is one exported sentence: the English source with its SemEval aspects and the Hindi
translation with its gold tags. Building one derives tokens, tags and character spans through
``corpus.tokens`` and ``corpus.bio`` and checks them, so formatters only print.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import MISSING, dataclass, field, fields
from functools import lru_cache
from itertools import repeat
from typing import Any, NamedTuple, Protocol

from corpus.bio import TAGS, char_spans_to_tags, validate_tags
from corpus.export.lid import sentence_lid, source_proper_nouns
from corpus.tokens import Token, normalize, token_spans, tokenize, tokenize_with_offsets
from corpus.vocabulary import GoldSource


class TermLinks(Protocol):
    """Hindi words -> the English aspect position they render (a dict, or a lazy look-up with ``get``)."""

    def get(self, term: str, /) -> int | None: ...


class RecordProblem(ValueError):
    """Why a sentence cannot be exported as it is stored (reported and counted, never repaired)."""

    def __init__(self, reason: str, detail: str):
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class EnglishAspect:
    term: str
    start: int
    end: int
    polarity: str | None = None
    position: int = 0


@dataclass(frozen=True)
class HindiAspect:
    """A gold Hindi aspect span: ``text[start:end] == term``; tokens ``token_start:token_end``."""

    term: str
    start: int
    end: int
    token_start: int
    token_end: int
    polarity: str | None = None
    source_position: int | None = None


@dataclass(frozen=True)
class Alignment:
    """A link of the aspect map: the Hindi characters rendering English aspect ``position``."""

    position: int
    start: int
    end: int


@dataclass(frozen=True)
class ExportSentence:
    uid: str
    sentence_id: str
    domain: str
    split: str
    en_text: str
    en_aspects: tuple[EnglishAspect, ...]
    en_tokens: tuple[str, ...]
    en_tags: tuple[str, ...]
    hi_text: str
    hi_tokens: tuple[str, ...]
    hi_tags: tuple[str, ...]
    hi_aspects: tuple[HindiAspect, ...]
    phase: str
    translator: str
    translation_id: int | None = None
    is_final: bool = True
    gold_source: str = GoldSource.AGREED
    categories: tuple[tuple[str, str | None], ...] = ()
    agreement: dict[str, Any] = field(default_factory=dict)
    guidelines_version: str | None = None
    lid: tuple[str, ...] = ()
    source_split: str = ""

    def __post_init__(self) -> None:
        if not self.source_split:
            object.__setattr__(self, "source_split", self.split)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.domain, self.source_split, self.sentence_id)


@dataclass(frozen=True)
class LeftOut:
    """A sentence (or, with every translation, a translation) that is not in the export, and why."""

    domain: str
    split: str
    sentence_id: str
    reason: str
    detail: str = ""
    translation_id: int | None = None


@dataclass
class ExportDataset:
    sentences: list[ExportSentence]
    left_out: list[LeftOut] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)

    def left_out_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for item in self.left_out:
            counts[item.reason] = counts.get(item.reason, 0) + 1
        return dict(sorted(counts.items()))

    def splits(self) -> list[str]:
        order = {"train": 0, "dev": 1, "test": 2}
        return sorted({s.split for s in self.sentences}, key=lambda s: (order.get(s, 9), s))

    def domains(self) -> list[str]:
        return sorted({s.domain for s in self.sentences})


# Line breaks and tabs inside a sentence: XML readers turn CR and CRLF into LF (shifting every offset after
# them), TSV and CoNLL readers split rows on them. None is a token (``corpus.tokens`` skips them as space), so
# each is written as one space: the tokens, the tags and every character offset stay as they are.
_BREAKS = "\t\n\r\x0b\x0c\x85\u2028\u2029"
_SPACE_LIKE = str.maketrans({c: " " for c in _BREAKS})
_HAS_BREAK = re.compile(f"[{_BREAKS}]")


def one_line(text: str) -> str:
    """``text`` with each tab or line-break character replaced by one space (same length, same tokens)."""
    return text.translate(_SPACE_LIKE) if _HAS_BREAK.search(text) else text


_NFC = repeat("NFC")  # map(unicodedata.normalize, _NFC, texts): NFC of each text, as ``normalize``


def _normalized_offset(text: str, offset: int) -> int:
    """Where ``offset`` into ``text`` lands in ``normalize(text)`` (NFC may merge characters)."""
    return len(normalize(text[:offset]))


def _english_text(text: str, aspects: Sequence[EnglishAspect]) -> tuple[str, tuple[EnglishAspect, ...]]:
    """The English text (NFC, one line) and its aspects with offsets into it."""
    norm = one_line(normalize(text))
    if norm != text:
        aspects = [
            EnglishAspect(a.term, _normalized_offset(text, a.start), _normalized_offset(text, a.end), a.polarity, a.position)
            for a in aspects
        ]
        aspects = [EnglishAspect(norm[a.start:a.end], a.start, a.end, a.polarity, a.position) for a in aspects]
    return norm, tuple(aspects)


def english_side(text: str, aspects: Sequence[EnglishAspect]) -> tuple[str, tuple[EnglishAspect, ...], list[Token], list[str]]:
    """The English text (NFC), its aspects with offsets into it, tokens and BIO tags from the offsets."""
    norm, aspects = _english_text(text, aspects)
    tokens = tokenize_with_offsets(norm)
    tags = char_spans_to_tags(tokens, [(a.start, a.end) for a in aspects])
    return norm, aspects, tokens, tags


class _Span(NamedTuple):
    """A token's offsets: what ``corpus.bio.char_spans_to_tags`` reads of a ``Token``."""

    start: int
    end: int


def _english_texts(text: str, aspects: Sequence[EnglishAspect]) -> tuple[str, tuple[EnglishAspect, ...], list[str], list[str]]:
    """``english_side`` with the tokens' texts in place of ``Token`` objects (what a record keeps): the same
    tokens and tags, without an object per token."""
    norm, aspects = _english_text(text, aspects)
    if not aspects:
        tokens = tokenize(norm)
        return norm, aspects, tokens, ["O"] * len(tokens)
    offsets = token_spans(norm)  # one pass of the tokenizer: the tokens are the text at their offsets
    tokens = [norm[start:end] for start, end in offsets]
    return norm, aspects, tokens, char_spans_to_tags(list(map(_Span._make, offsets)), [(a.start, a.end) for a in aspects])


def checked_hindi(text: str, frozen_tokens: Sequence[str], tags: Sequence[str],
                  offsets: bool = True) -> tuple[str, list[Token] | list[str]]:
    """The Hindi text (NFC, one line) and its tokens, once checked against the tagging item: a RecordProblem
    if the text no longer tokenizes to the frozen tokens or the gold tags are not valid BIO for them. The
    only way a record with gold cannot be built (the dashboard counts the left-out sentences by it).
    Without ``offsets`` the tokens are their texts only (``corpus.tokens.tokenize``: the same tokens)."""
    norm = one_line(normalize(text))
    tokens = tokenize_with_offsets(norm) if offsets else tokenize(norm)
    if (tokens if not offsets else [t.text for t in tokens]) != list(map(unicodedata.normalize, _NFC, frozen_tokens)):
        raise RecordProblem("tokens changed after tagging", "the translation no longer tokenizes to the tagged tokens")
    if len(tags) != len(tokens):
        raise RecordProblem("invalid gold tags", f"{len(tags)} tags for {len(tokens)} tokens")
    if not _valid_bio(tags):
        problems = validate_tags(tags)
        if problems:
            raise RecordProblem("invalid gold tags", str(problems[0]))
    return norm, tokens


_BIO_TAGS = frozenset(TAGS)
_VALID_BIO = re.compile(r"(?:BI*|O)*")
_SPAN = re.compile(r"BI*")


def _valid_bio(tags: Sequence[str]) -> bool:
    """Whether ``corpus.bio.validate_tags`` finds nothing, tested on the tags as one string: True only when
    every tag is one of B, I, O and every I follows a B or an I (False: ask ``validate_tags``)."""
    try:
        if not _BIO_TAGS.issuperset(tags):
            return False
    except TypeError:  # a tag that cannot be hashed
        return False
    return _VALID_BIO.fullmatch("".join(tags)) is not None


def _bio_spans(tags: Sequence[str]) -> list[tuple[int, int]]:
    """``corpus.bio.tags_to_spans`` of tags ``checked_hindi`` has found valid: each B and the I's after it."""
    return [m.span() for m in _SPAN.finditer("".join(tags))] if "B" in tags else []


def hindi_side(
    text: str, frozen_tokens: Sequence[str], tags: Sequence[str], alignments: Sequence[Alignment] = (),
    polarity_of: dict[int, str | None] | None = None, term_links: TermLinks | None = None,
) -> tuple[str, list[str], list[HindiAspect]]:
    """The Hindi text (NFC), its tokens and the gold spans with character offsets and carried-over polarity.

    A span takes the English aspect this translation's aspect map links it to, else the one ``term_links``
    names for its exact words (what the maps of the sentence's other translations give that aspect).
    The gold tags label the tagging item's frozen tokens; if the stored text no longer tokenizes to
    them, or the tags are not valid BIO, this is a RecordProblem (the sentence is reported, not fixed).
    """
    norm, tokens = checked_hindi(text, frozen_tokens, tags, offsets=False)
    polarity_of = polarity_of or {}
    aspects = []
    spans = _bio_spans(tags)
    offsets = _token_offsets(norm, tokens, spans[-1][1]) if spans else []  # up to the last span's last token
    for token_start, token_end in spans:
        start, end = offsets[token_start][0], offsets[token_end - 1][1]
        position = _aligned_position(start, end, alignments)
        if position is None and term_links is not None:
            position = term_links.get(norm[start:end])
        aspects.append(_frozen(HindiAspect, {
            "term": norm[start:end], "start": start, "end": end, "token_start": token_start, "token_end": token_end,
            "polarity": polarity_of.get(position) if position is not None else None, "source_position": position,
        }))
    return norm, tokens, aspects


def _token_offsets(text: str, tokens: Sequence[str], limit: int) -> list[tuple[int, int]]:
    """``corpus.tokens.token_spans(text, limit)`` of a text whose tokens are known, with no second pass of the
    tokenizer: the tokenizer leaves only white space between tokens, so each token's first occurrence after
    the previous one is the token."""
    offsets = []
    find = text.find
    at = 0
    for token in tokens[:limit]:
        start = find(token, at)
        at = start + len(token)
        offsets.append((start, at))
    return offsets


def _aligned_position(start: int, end: int, alignments: Sequence[Alignment]) -> int | None:
    """The English aspect whose mapped characters overlap this span most (ties: the earlier aspect)."""
    best, best_overlap = None, 0
    for link in sorted(alignments, key=lambda a: a.position):
        overlap = min(end, link.end) - max(start, link.start)
        if overlap > best_overlap:
            best, best_overlap = link.position, overlap
    return best


@lru_cache(maxsize=1 << 15)
def _english_record(
    text: str, aspects: tuple[EnglishAspect, ...]
) -> tuple[str, tuple[EnglishAspect, ...], tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """A record's English side (``_english_texts``, as tuples) and the names its source capitalises
    (``source_proper_nouns``): derived once per source sentence and remembered, since an every-translation
    export repeats each source sentence once per translation and every export of a project repeats them all."""
    norm, aspects_n, tokens, tags = _english_texts(text, aspects)
    return norm, aspects_n, tuple(tokens), tuple(tags), tuple(source_proper_nouns(tokens))


def build_sentence(
    *, uid: str, sentence_id: str, domain: str, split: str, en_text: str, en_aspects: Sequence[EnglishAspect],
    hi_text: str, frozen_tokens: Sequence[str], tags: Sequence[str], phase: str, translator: str,
    alignments: Sequence[Alignment] = (), term_links: TermLinks | None = None,
    translation_id: int | None = None, is_final: bool = True,
    gold_source: str = GoldSource.AGREED, categories: Sequence[tuple[str, str | None]] = (),
    agreement: dict[str, Any] | None = None, guidelines_version: str | None = None,
    proper_nouns: Sequence[str] = (),
) -> ExportSentence:
    try:
        en_norm, en_aspects_n, en_tokens, en_tags, en_names = _english_record(en_text, tuple(en_aspects))
    except TypeError:  # an aspect that cannot be hashed: derived as it is
        en_norm, en_aspects_n, en_tokens, en_tags, en_names = _english_record.__wrapped__(en_text, tuple(en_aspects))
    polarity_of = {a.position: a.polarity for a in en_aspects_n}
    hi_norm, hi_tokens, hi_aspects = hindi_side(hi_text, frozen_tokens, tags, alignments, polarity_of, term_links)
    return _frozen(ExportSentence, {
        "uid": uid, "sentence_id": sentence_id, "domain": domain, "split": split,
        "en_text": en_norm, "en_aspects": en_aspects_n, "en_tokens": en_tokens, "en_tags": en_tags,
        "hi_text": hi_norm, "hi_tokens": tuple(hi_tokens), "hi_tags": tuple(tags), "hi_aspects": tuple(hi_aspects),
        "phase": phase, "translator": translator, "translation_id": translation_id, "is_final": is_final,
        "gold_source": gold_source, "categories": tuple(categories), "agreement": dict(agreement or {}),
        "guidelines_version": guidelines_version, "lid": tuple(sentence_lid(hi_tokens, proper_nouns, en_names)),
    })


def _frozen(cls, values: dict):
    """An instance of the frozen dataclass ``cls`` with ``values`` (every field without a default, in field
    order), made without its generated ``__init__``, which sets each field through ``object.__setattr__``: for
    a 22-field record that was most of making one (~6,000 records and their aspects an export). The fields'
    defaults and the class's own ``__post_init__`` apply as the constructor applies them. Only for values
    already checked as the constructor would have them."""
    record = object.__new__(cls)
    defaults = _defaults(cls)
    if defaults.keys() <= values.keys():
        record.__dict__.update(values)
    else:  # in field order, as the constructor sets them
        record.__dict__.update({name: values[name] if name in values else defaults[name] for name in _names(cls)})
    if hasattr(cls, "__post_init__"):
        record.__post_init__()
    return record


@lru_cache(maxsize=None)
def _defaults(cls) -> dict:
    return {f.name: f.default for f in fields(cls) if f.default is not MISSING}


@lru_cache(maxsize=None)
def _names(cls) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls))


def build_source_sentence(
    *, uid: str, sentence_id: str, domain: str, split: str, en_text: str, en_aspects: Sequence[EnglishAspect],
    categories: Sequence[tuple[str, str | None]] = (),
) -> ExportSentence:
    """The English side alone (``--source-only``): tokens and BIO from the SemEval offsets, as in
    ``build_sentence``; no Hindi fields."""
    en_norm, en_aspects_n, en_tokens, en_tags = english_side(en_text, en_aspects)
    return ExportSentence(
        uid=uid, sentence_id=sentence_id, domain=domain, split=split,
        en_text=en_norm, en_aspects=en_aspects_n, en_tokens=tuple(t.text for t in en_tokens), en_tags=tuple(en_tags),
        hi_text="", hi_tokens=(), hi_tags=(), hi_aspects=(), phase="", translator="", is_final=False,
        gold_source="semeval", categories=tuple(categories),
    )
