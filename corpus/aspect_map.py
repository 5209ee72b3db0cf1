"""The aspect-aware map as the translator makes it: a selection of canonical tokens of their own
translation, stored as one character span per source aspect. Pure helpers and the map's rules: what a stored
map may hold (``map_refusals``: the app's save, ``db.translation``, and the work-file import,
``corpus.workfile``) and when a submission is refused for it (``submission_refused``)."""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from corpus.tokens import Token, covers_whole_tokens, token_spans


class NotContiguous(ValueError):
    """The selected words are not next to each other; one aspect maps to one span."""


def selection_to_span(tokens: Sequence[Token], indices: Sequence[int]) -> tuple[int, int] | None:
    """The character span covering the selected tokens; None for an empty selection."""
    chosen = sorted(set(indices))
    if not chosen:
        return None
    if any(i < 0 or i >= len(tokens) for i in chosen):
        raise IndexError("selection_to_span: token index out of range")
    if chosen[-1] - chosen[0] + 1 != len(chosen):
        raise NotContiguous("select words that are next to each other")
    return tokens[chosen[0]].start, tokens[chosen[-1]].end


def span_to_selection(tokens: Sequence[Token], start: int | None, end: int | None) -> list[int]:
    """Indices of the tokens lying inside a stored span (empty if the span does not fit the text)."""
    if start is None or end is None:
        return []
    inside = [i for i, t in enumerate(tokens) if t.start >= start and t.end <= end]
    if not inside or tokens[inside[0]].start != start or tokens[inside[-1]].end != end:
        return []
    return inside


def relocate(old: Sequence[str], indices: Sequence[int], new: Sequence[str]) -> list[int]:
    """Carry a selection over to an edited text: the same run of words, nearest its old place;
    empty if those words are no longer there together."""
    chosen = sorted(set(indices))
    if not chosen or chosen[-1] >= len(old):
        return []
    run = [old[i] for i in range(chosen[0], chosen[-1] + 1)]
    n = len(run)
    hits = [i for i in range(len(new) - n + 1) if list(new[i:i + n]) == run]
    if not hits:
        return []
    best = min(hits, key=lambda i: (abs(i - chosen[0]), i))
    return [best + (i - chosen[0]) for i in chosen]


class Marked(Protocol):
    """One aspect's entry in the editor's map: a run of tokens ``[from, to)``, or dropped with a reason."""

    tokens: tuple[int, int] | None
    dropped: bool
    reason: str | None


@dataclass(frozen=True)
class MapLink:
    """Where one source aspect went: a character span of the translation, or dropped."""

    aspect_id: int
    start: int | None = None
    end: int | None = None
    dropped: bool = False
    reason: str | None = None


def links_of_map(
    tokens: Sequence[Token], aspects: Sequence[tuple[int, str]], marked: Mapping[int, Marked],
) -> tuple[list[MapLink], list[str]]:
    """The editor's map as character spans of the translation's tokens, in the order of ``aspects``
    (id, term as the message names it); each aspect whose marked words are no longer in the translation is
    left out, with a problem saying so."""
    links: list[MapLink] = []
    problems: list[str] = []
    for aspect_id, term in aspects:
        m = marked.get(aspect_id)
        if m is None:
            continue
        if m.dropped:
            links.append(MapLink(aspect_id, dropped=True, reason=m.reason))
        elif m.tokens:
            try:
                span = selection_to_span(tokens, range(*m.tokens))
            except IndexError:
                problems.append(f"the words marked for “{term}” are no longer in your translation; mark them again")
                continue
            if span is not None:
                links.append(MapLink(aspect_id, span[0], span[1]))
    return links, problems


def submission_refused(untranslatable: bool, unplaced: Sequence[str]) -> list[str]:
    """Why a submission is refused by its map: words marked for an aspect that are no longer in the
    translation (``links_of_map``'s problems). None for a sentence marked untranslatable: it keeps no map."""
    return [] if untranslatable else list(unplaced)


#: The rules a stored aspect map keeps (``MapRefusal.rule``), as a refusal names them.
NOT_OF_THIS_SENTENCE = "a map links the sentence's own aspects"
MAPPED_TWICE = "each aspect is mapped at most once"
OUTSIDE_THE_TEXT = "a span lies inside the translation's text"
CUTS_A_WORD = "a span covers whole words of the translation"


@dataclass(frozen=True)
class MapRefusal:
    """Why one link of a map may not be stored: its place in the map, its aspect (an id or an index, as the
    caller keys aspects), the rule it breaks, and a message naming that rule."""

    position: int
    aspect: Hashable
    rule: str
    message: str

    def __str__(self) -> str:
        return self.message


def map_refusals(
    text: str | None, links: Iterable[tuple[Hashable, int | None, int | None, bool]],
    aspects: Collection[Hashable] | None = None,
) -> list[MapRefusal]:
    """Why a translation's aspect map may not be stored, link by link (empty: it may), for every path that
    writes one: the app's save (``db.translation``) and the work-file import (``corpus.workfile``).

    ``links`` are (aspect, start, end, dropped); ``text`` is the stored (NFC) translation the spans index;
    ``aspects`` the sentence's aspects (None: the caller checks them itself). Each aspect of the sentence is
    mapped at most once; a dropped aspect has no span; a span covers whole canonical tokens, starting where one
    starts and ending where one ends: a span cutting a word (a vowel sign or a nukta left out) would point the
    tagging suggestions and the projected polarity at part of a word. A link with no span that is not dropped
    marks nothing, and is not refused here (a submission asks for every aspect)."""
    refusals: list[MapRefusal] = []
    seen: set[Hashable] = set()
    for position, (aspect, start, end, dropped) in enumerate(links):
        if aspects is not None and aspect not in aspects:
            why = NOT_OF_THIS_SENTENCE, f"aspect {aspect} is not an aspect of this sentence"
        elif aspect in seen:
            why = MAPPED_TWICE, f"aspect {aspect} is mapped twice"
        else:
            seen.add(aspect)
            why = None if dropped or start is None or end is None else _span_refusal(text, aspect, start, end)
        if why is not None:
            rule, detail = why
            refusals.append(MapRefusal(position, aspect, rule, f"{detail}; aspect-map rule: {rule}"))
    return refusals


def _span_refusal(text: str | None, aspect: Hashable, start: int, end: int) -> tuple[str, str] | None:
    """The rule a span breaks and what is wrong with it (None: it keeps them)."""
    if text is None or not 0 <= start < end <= len(text):
        size = "it has no text" if text is None else f"{len(text)} characters"
        return OUTSIDE_THE_TEXT, f"aspect {aspect}'s span {start}:{end} is outside the translation ({size})"
    if covers_whole_tokens(text, start, end):
        return None
    cut = [f"“{text[s:e]}”" for s, e in token_spans(text) if s < end and e > start and (s < start or e > end)]
    where = f"cuts {', '.join(cut)}" if cut else "starts or ends in the space between words"
    return CUTS_A_WORD, f"aspect {aspect}'s span {start}:{end} (“{text[start:end]}”) {where}"
