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


HINDI = [
    "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।",
    "स्\u200dक्रीन चमकदार है।",
    "मैं मिसो सूप के लिए Brooklyn गया।",
    "खाना,खाना  खाना\u00a0(खाना)!!",  # repeated tokens, no space before punctuation, a no-break space
    "  iPhone 13 की बैटरी 4,000mAh है ... ठीक?  ",
    "",
]


@pytest.mark.parametrize("text", HINDI)
def test_hindi_token_offsets_found_from_the_tokens_are_the_tokenizers(text):
    from corpus.export.records import _token_offsets
    from corpus.tokens import normalize, token_spans, tokenize

    norm = normalize(text)
    tokens = tokenize(norm)
    for limit in range(len(tokens) + 1):
        assert _token_offsets(norm, tokens, limit) == token_spans(norm, limit)


def test_a_record_made_without_its_constructor_is_the_one_its_constructor_makes():
    """``build_sentence`` makes its record and Hindi aspects without the dataclasses' ``__init__``: every field
    must be set, in field order, as the constructor (and ``__post_init__``) would set it."""
    import dataclasses

    from corpus.export.records import Alignment, HindiAspect

    record = build_sentence(
        uid="r/dev/7", sentence_id="7", domain="restaurant", split="dev", en_text="The food was good.",
        en_aspects=[EnglishAspect("food", 4, 8, "positive", 0)], hi_text="खाना अच्छा था।",
        frozen_tokens=["खाना", "अच्छा", "था", "।"], tags=["B", "O", "O", "O"], phase="blind", translator="asha",
        alignments=[Alignment(0, 0, 4)], translation_id=3, agreement={"kappa": 1.0}, guidelines_version="v2",
    )
    assert record.hi_aspects and all(type(a) is HindiAspect for a in record.hi_aspects)
    for made in (record, *record.hi_aspects):
        constructed = dataclasses.replace(made)  # through __init__ and __post_init__
        assert made == constructed and list(vars(made).items()) == list(vars(constructed).items())
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(made, dataclasses.fields(made)[0].name, None)
    assert [hash(a) for a in record.hi_aspects] == [hash(dataclasses.replace(a)) for a in record.hi_aspects]
    assert record.source_split == "dev" and record.hi_aspects[0].polarity == "positive"
