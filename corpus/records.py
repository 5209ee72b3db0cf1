"""Plain records passed between importers, the database layer, metrics and exporters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple
from corpus.vocabulary import Phase, Role, Status

#: The stored strings of the vocabulary's phases and roles, in its order (plain ``str``: interned, hashed, written as is).
PHASES = tuple(p.value for p in Phase)
SPLITS = ("train", "test", "dev")
POLARITIES = ("positive", "negative", "neutral", "conflict")
ROLES = tuple(r.value for r in Role)
UNTRANSLATABLE_REASONS = ("idiom", "pun", "missing context", "other")


class SentenceKey(NamedTuple):
    """A sentence's identity: the same id may occur in another domain or split."""

    domain: str
    split: str
    id: str

    def __str__(self) -> str:
        return f"{self.domain}/{self.split}/{self.id}"


@dataclass(frozen=True)
class AspectRecord:
    term: str
    start: int
    end: int
    polarity: str | None = None
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class CategoryRecord:
    category: str
    polarity: str | None = None


@dataclass(frozen=True)
class SentenceRecord:
    key: SentenceKey
    text: str
    aspects: tuple[AspectRecord, ...] = ()
    categories: tuple[CategoryRecord, ...] = ()
    flags: tuple[str, ...] = ()
    line: int | None = None


@dataclass(frozen=True)
class AspectLink:
    """Where a source aspect went in a Hindi translation: a character span, or dropped with a reason."""

    aspect_index: int
    start: int | None = None
    end: int | None = None
    dropped: bool = False
    reason: str | None = None


@dataclass(frozen=True)
class TranslationRecord:
    key: SentenceKey
    phase: str
    translator: str
    text: str | None
    untranslatable: bool = False
    reason: str | None = None
    reason_text: str | None = None
    aspect_map: tuple[AspectLink, ...] = ()
    time_spent_s: float | None = None
    guidelines_version: str | None = None
    status: str = Status.SUBMITTED
    submitted_at: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class AnnotationRecord:
    key: SentenceKey
    phase: str
    translator: str
    annotator: str
    tokens: tuple[str, ...] | None
    tags: tuple[str, ...]
    status: str = Status.SUBMITTED
    submitted_at: str | None = None
    line: int | None = None


@dataclass
class WorkFile:
    sentences: list[SentenceRecord] = field(default_factory=list)
    translations: list[TranslationRecord] = field(default_factory=list)
    annotations: list[AnnotationRecord] = field(default_factory=list)
