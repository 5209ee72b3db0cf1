"""What a stored aspect map may hold (corpus.aspect_map.map_refusals): the sentence's own aspects, each once,
spans inside the translation covering whole canonical tokens. The one rule the translation save and the
work-file parse both call; here the rule itself and the parse's located error."""

from __future__ import annotations

import json

import pytest

from corpus.aspect_map import CUTS_A_WORD, MAPPED_TWICE, NOT_OF_THIS_SENTENCE, OUTSIDE_THE_TEXT, map_refusals
from corpus.tokens import normalize, token_spans
from corpus.workfile import parse_work_file
from tests.support.independence_records import SENTENCE

HINDI = "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।"  # NFC: फ़ is फ + nukta, so स्टाफ़ is 6 code points, 6:12
STAFF = (HINDI.index("स्टाफ़"), HINDI.index("स्टाफ़") + len("स्टाफ़"))


def rules(links, aspects=(0, 1), text=HINDI) -> list[tuple[int, str]]:
    return [(r.position, r.rule) for r in map_refusals(text, links, aspects)]


@pytest.mark.parametrize(("name", "start", "end"), [
    ("one word", *STAFF),
    ("several words", 0, STAFF[1]),
    ("the first word", 0, len("लेकिन")),
    ("a word and the danda after it", HINDI.index("था"), len(HINDI)),
    ("the danda alone", len(HINDI) - 1, len(HINDI)),
])
def test_a_span_over_whole_words_is_kept(name, start, end):
    assert rules([(0, start, end, False)]) == []


@pytest.mark.parametrize(("name", "start", "end"), [
    ("the nukta left out", STAFF[0], STAFF[1] - 1),
    ("a vowel sign and a letter left out", 0, len("लेक")),
    ("starting inside a word", 1, len("लेकिन")),
    ("starting on the space before a word", STAFF[0] - 1, STAFF[1]),
    ("ending on the space after a word", STAFF[0], STAFF[1] + 1),
])
def test_a_span_that_cuts_a_word_or_stops_on_a_space_is_refused(name, start, end):
    assert rules([(0, start, end, False)]) == [(0, CUTS_A_WORD)]


@pytest.mark.parametrize(("start", "end"), [(0, len(HINDI) + 1), (len(HINDI), len(HINDI) + 4), (5, 5), (6, 3),
                                            (-1, 5)])
def test_a_span_naming_characters_the_translation_does_not_have_is_refused(start, end):
    assert rules([(0, start, end, False)]) == [(0, OUTSIDE_THE_TEXT)]


def test_a_translation_without_text_has_no_span_to_map_but_may_drop_aspects():
    assert rules([(0, 0, 5, False)], text=None) == [(0, OUTSIDE_THE_TEXT)]
    assert rules([(0, None, None, True)], text=None) == []


def test_each_aspect_is_mapped_once_and_only_the_sentences_own():
    links = [(0, *STAFF, False), (0, None, None, True), (7, 0, 5, False), (1, 0, 5, False)]
    assert rules(links) == [(1, MAPPED_TWICE), (2, NOT_OF_THIS_SENTENCE)]
    assert rules(links, aspects=None) == [(1, MAPPED_TWICE)]  # aspects checked by the caller


def test_a_dropped_aspect_and_an_unmarked_one_are_not_refused():
    assert rules([(0, None, None, True), (1, None, None, False)]) == []


def test_a_refusal_names_the_aspect_the_words_it_cuts_and_the_rule():
    [refusal] = map_refusals(HINDI, [(0, STAFF[0], STAFF[1] - 1, False)], (0,))
    assert refusal.aspect == 0
    assert str(refusal) == (f"aspect 0's span 6:11 (“{HINDI[6:11]}”) cuts “स्टाफ़”; "
                            f"aspect-map rule: {CUTS_A_WORD}")


def _work_file(*aspect_map) -> bytes:
    lines = [SENTENCE, {"type": "translation", "sentence_id": "3121", "phase": "aware", "translator": "asha",
                        "text": HINDI, "untranslatable": False, "aspect_map": list(aspect_map)}]
    return "".join(json.dumps(o, ensure_ascii=False) + "\n" for o in lines).encode()


@pytest.mark.parametrize(("entry", "rule"), [
    ({"aspect": 0, "from": STAFF[0], "to": STAFF[1] - 1}, CUTS_A_WORD),
    ({"aspect": 0, "from": len(HINDI), "to": len(HINDI) + 3}, OUTSIDE_THE_TEXT),
])
def test_the_work_file_parse_refuses_the_map_with_its_file_line_sentence_and_rule(entry, rule):
    work, errors = parse_work_file(_work_file(entry), "w.jsonl")
    assert work.translations == []
    assert [(e.file, e.line, e.sentence_id) for e in errors] == [("w.jsonl", 2, "3121")]
    assert str(errors[0]).startswith(f"w.jsonl:2 sentence 3121: aspect_map: aspect 0's span {entry['from']}:")
    assert errors[0].message.endswith(f"aspect-map rule: {rule}")


def test_the_work_file_parse_refuses_an_aspect_mapped_twice_and_counts_the_other_refusals():
    _, errors = parse_work_file(_work_file({"aspect": 0, "from": 0, "to": 5}, {"aspect": 0, "dropped": True},
                                           {"aspect": 1, "from": 0, "to": 3}), "w.jsonl")
    assert errors[0].message == (f"aspect_map: aspect 0 is mapped twice; aspect-map rule: {MAPPED_TWICE} "
                                 "(and 1 more)")


def test_the_work_file_parse_keeps_a_map_over_whole_words():
    work, errors = parse_work_file(_work_file({"aspect": 0, "from": STAFF[0], "to": STAFF[1]}), "w.jsonl")
    assert errors == [] and [(k.start, k.end) for k in work.translations[0].aspect_map] == [STAFF]


TEXTS = [
    HINDI,
    "क्\u200dष और क्\u200cष",  # ZWJ, ZWNJ inside words
    "२०२४ में 5G, Wi-Fi ठीक!!",  # digits, Latin, punctuation runs
    "पनीर\u00a0टिक्का  ठंडा\u2028था",  # no-break space, two spaces, line separator
    "\u093c क़ 😀👍 ।।",  # a mark after nothing, emoji, dandas
]


@pytest.mark.parametrize("text", TEXTS)
def test_every_span_is_kept_exactly_when_it_starts_and_ends_on_canonical_token_bounds(text):
    text = normalize(text)
    spans = token_spans(text)
    starts, ends = {s for s, _ in spans}, {e for _, e in spans}
    for start in range(len(text)):
        for end in range(start + 1, len(text) + 1):
            kept = map_refusals(text, [(0, start, end, False)]) == []
            assert kept == (start in starts and end in ends), (text, start, end)
