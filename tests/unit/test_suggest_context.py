"""Typing with the sentence's preceding words as context: the word bigram model and the ranking it changes."""

from __future__ import annotations

import math
import unicodedata

import pytest

from corpus.transliterate import suggest, usable_context
from corpus.word_context import (
    ContextModel,
    bigram_counts,
    load_context_model,
    sentence_pairs,
    text_words,
)


def test_the_words_before_decide_between_the_pronoun_and_the_postposition():
    assert suggest("main", 5)[0] == "मैं"  # first word of a sentence: मैं
    assert suggest("main", 5, context=("घर",))[0] == "में"  # घर में, "at home"
    assert suggest("main", 5, context=("मैं", "घर"))[0] == "में"
    assert set(suggest("main", 5, context=("घर",))) >= {"मैं", "में"}


@pytest.mark.parametrize(("before", "expected"), [("रहे", "हैं"), ("करते", "हैं"), ("रहा", "है"), ("लोग", "है")])
def test_hai_takes_the_nasal_after_a_plural_verb(before, expected):
    assert suggest("hai", 5, context=(before,))[0] == expected


def test_without_context_the_model_order_is_unchanged():
    assert suggest("hai", 5, context=()) == suggest("hai", 5)
    assert suggest("main", 5, context=("Sony",)) == suggest("main", 5)  # a Roman name: no Hindi word before


def test_a_context_word_is_nfc_normalized():
    decomposed = unicodedata.normalize("NFD", "घर")
    assert suggest("main", 5, context=(decomposed,)) == suggest("main", 5, context=("घर",))


def test_only_the_run_of_devanagari_words_just_before_counts():
    assert usable_context(("मैं", "Sony", "का")) == ("का",)
    assert usable_context(("मैं", "घर", "में", "बैठा")) == ("घर", "में", "बैठा")
    assert usable_context(("घर", "2")) == ()
    assert usable_context(("", "घर")) == ("घर",)
    assert usable_context(("घर।",)) == ()
    assert usable_context("मैं घर") == ("मैं", "घर")  # a string, not a tuple: its words, not its letters


def test_the_projects_own_word_pairs_can_change_the_first_candidate():
    assert suggest("kam", 3, context=("बैटरी",))[:2] == ["काम", "कम"]
    pairs = bigram_counts(["बैटरी कम चलती है", "इसकी बैटरी कम है।", "बैटरी कम", "बैटरी कम और स्क्रीन धुंधली",
                           "बैटरी कम चली"])
    assert pairs["बैटरी"] == {"कम": 5}
    assert suggest("kam", 3, context=("बैटरी",), context_extra=pairs)[0] == "कम"  # what this project's reviews say


def test_context_keeps_the_list_free_of_duplicates_and_within_k():
    for roman, ctx in [("hai", ("रहे",)), ("main", ("घर",)), ("ki", ("राम",)), ("kya", ("यह",))]:
        got = suggest(roman, 3, context=ctx)
        assert len(got) == 3 == len(set(got))
        assert all(unicodedata.is_normalized("NFC", w) for w in got)


def test_devanagari_and_digits_pass_through_with_context():
    assert suggest("मेरा", 5, context=("घर",)) == ["मेरा"]
    assert suggest("2024", 5, context=("घर",)) == ["2024"]


def test_witten_bell_backs_off_from_the_word_to_its_ending_to_the_share():
    words = ContextModel({"करते": {"हैं": 3, "थे": 1}})
    # the word seen: its ending's classes (ते, then े: the same counts here), then the word, each 4/(4+2) on counts
    p_suffix1 = 4 / 6 * 3 / 4 + 2 / 6 * 0.01
    p_suffix2 = 4 / 6 * 3 / 4 + 2 / 6 * p_suffix1
    p_word = 4 / 6 * 3 / 4 + 2 / 6 * p_suffix2
    assert words.logp("हैं", "करते", 0.01) == pytest.approx(math.log(p_word))
    # a verb the text never showed, ending alike: the classes alone
    assert words.logp("हैं", "चलते", 0.01) == pytest.approx(math.log(p_suffix2))
    # nothing in common: the word's share
    assert words.logp("हैं", "राम", 0.01) == pytest.approx(math.log(0.01))
    assert words.logp("हैं", None, 0.01) == pytest.approx(math.log(0.01))


def test_extra_counts_join_the_words_own():
    words = ContextModel({})
    assert words.logp("में", "घर", 0.03, {"घर": {"में": 2}}) == pytest.approx(math.log(2 / 3 + 1 / 3 * 0.03))
    assert words.logp("में", "घर", 0.03, {"घर": {"में": -5}}) == pytest.approx(math.log(0.03))  # junk ignored


def test_pairs_never_cross_a_sentence_end_or_a_roman_word():
    assert sentence_pairs(text_words("खाना अच्छा था। Sony का लैपटॉप")) == [("खाना", "अच्छा"), ("अच्छा", "था"),
                                                                           ("का", "लैपटॉप")]


def test_the_shipped_counts_know_common_hindi_pairs():
    words = load_context_model()
    assert words.after["के"].counts["लिए"] > 100
    assert words.after["सकते"].counts["हैं"] > words.after["सकते"].counts.get("है", 0)
