"""A record's English side is ``english_side``'s (tokens with offsets and ``corpus.bio.char_spans_to_tags``),
however the record derives it (token texts only, remembered per source sentence)."""

from __future__ import annotations

import pytest

from corpus.export.records import EnglishAspect, _english_record, build_sentence, english_side

CASES = [
    ("But the staff was so horrible to us.", [("staff", 8, 13)]),
    ("No aspect here, Brooklyn.", []),
    ("The cafe\u0301 was great.", [("cafe\u0301", 4, 9)]),  # NFC merges two characters: offsets shift
    ("Great\tfood\nand  service!", [("food", 6, 10), ("service", 16, 23)]),  # breaks become spaces
    ("The battery-life is short.", [("battery", 4, 11)]),  # touches part of a run: the whole token
    ("Fish and chips were cold.", [("Fish and chips", 0, 14), ("chips", 9, 14)]),  # overlapping aspects
    ("Lovely decor.", [(" ", 6, 7)]),  # a span over a space touches no token
    ("", []),
]


@pytest.mark.parametrize("text, aspects", CASES)
def test_a_records_english_tokens_tags_and_aspects_are_english_sides(text, aspects):
    en = [EnglishAspect(term, start, end, "positive", i) for i, (term, start, end) in enumerate(aspects)]
    norm, expected_aspects, tokens, tags = english_side(text, en)
    _english_record.cache_clear()  # derived here, not remembered from another test
    record = build_sentence(
        uid="r/train/1", sentence_id="1", domain="restaurant", split="train", en_text=text, en_aspects=en,
        hi_text="अच्छा", frozen_tokens=["अच्छा"], tags=["O"], phase="aware", translator="asha",
    )
    assert record.en_text == norm
    assert record.en_aspects == expected_aspects
    assert record.en_tokens == tuple(t.text for t in tokens)
    assert record.en_tags == tuple(tags)
