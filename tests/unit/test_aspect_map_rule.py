"""The aspect map's rule (corpus.aspect_map): the editor's token runs become character spans of the
translation, words no longer there are named, and such a map refuses a submit unless the sentence is
marked untranslatable. The same rule the page asks and save_translation applies (db.translation)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from corpus.aspect_map import MapLink, links_of_map, submission_refused
from corpus.tokens import tokenize_with_offsets

TEXT = "पनीर टिक्का ठंडा था लेकिन होस्टेस मुस्कुराई।"
ASPECTS = [(1, "paneer tikka"), (2, "hostess")]


@dataclass(frozen=True)
class Marked:
    tokens: tuple[int, int] | None = None
    dropped: bool = False
    reason: str | None = None


def test_token_runs_become_character_spans_in_the_order_of_the_aspects():
    tokens = tokenize_with_offsets(TEXT)
    links, problems = links_of_map(tokens, ASPECTS, {2: Marked((5, 6)), 1: Marked((0, 2))})
    assert problems == []
    assert links == [MapLink(1, 0, TEXT.index(" ठंडा")), MapLink(2, TEXT.index("होस्टेस"),
                                                                   TEXT.index("होस्टेस") + len("होस्टेस"))]
    assert [TEXT[k.start:k.end] for k in links] == ["पनीर टिक्का", "होस्टेस"]


def test_a_dropped_aspect_keeps_its_reason_and_an_unmarked_one_is_left_out():
    links, problems = links_of_map(tokenize_with_offsets(TEXT), ASPECTS, {1: Marked(dropped=True, reason="idiom")})
    assert links == [MapLink(1, None, None, True, "idiom")] and problems == []


def test_words_no_longer_in_the_translation_are_named_and_left_out():
    tokens = tokenize_with_offsets("पनीर ठंडा")
    links, problems = links_of_map(tokens, ASPECTS, {1: Marked((0, 1)), 2: Marked((5, 6))})
    assert links == [MapLink(1, 0, len("पनीर"))]
    assert problems == ["the words marked for “hostess” are no longer in your translation; mark them again"]


def test_an_aspect_not_of_this_task_is_ignored():
    links, problems = links_of_map(tokenize_with_offsets(TEXT), ASPECTS[:1], {2: Marked((5, 6))})
    assert links == [] and problems == []


@pytest.mark.parametrize(("untranslatable", "unplaced", "refused"), [
    (False, [], []),
    (False, ["the words marked for “x” are gone"], ["the words marked for “x” are gone"]),
    (True, ["the words marked for “x” are gone"], []),  # an untranslatable sentence keeps no map
])
def test_a_map_with_words_gone_refuses_a_submit_unless_untranslatable(untranslatable, unplaced, refused):
    assert submission_refused(untranslatable, unplaced) == refused
