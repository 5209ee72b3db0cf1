"""Phonetic Roman → Devanagari suggestions: hand-checked words as Hindi speakers type them."""

from __future__ import annotations

import time
import unicodedata

import pytest

from corpus.transliterate import suggest, to_devanagari


@pytest.mark.parametrize(
    ("roman", "hindi"),
    [
        ("khana", "खाना"),
        ("achha", "अच्छा"),
        ("bahut", "बहुत"),
        ("hai", "है"),
        ("mera", "मेरा"),
        ("tha", "था"),
        ("keyboard", "कीबोर्ड"),  # an English loanword, as Hindi writes it
        ("nahi", "नहीं"),  # the anusvara nobody types
        ("accha", "अच्छा"),
        ("Mera", "मेरा"),  # capitals are read as lower case
    ],
)
def test_common_words_come_first(roman, hindi):
    assert suggest(roman)[0] == hindi


def test_the_browser_sentence_needs_no_pick():
    """The editor's browser test types this and expects it without choosing a candidate."""
    assert " ".join(suggest(w)[0] for w in "mera keyboard bahut achha hai".split()) == "मेरा कीबोर्ड बहुत अच्छा है"


@pytest.mark.parametrize(
    ("roman", "accepted"),
    [
        ("hindi", {"हिंदी", "हिन्दी"}),  # n before a consonant: anusvara or half n
        ("zyada", {"ज़्यादा", "ज्यादा"}),  # nukta letter (or the plain spelling many write)
        ("jyada", {"ज़्यादा", "ज्यादा"}),  # z / j typed either way
        ("phone", {"फ़ोन", "फोन"}),
        ("fon", {"फ़ोन", "फोन"}),  # f / ph
        ("pani", {"पानी"}),  # dropped long vowel marks: a for aa, i for ii
        ("paani", {"पानी"}),
        ("vakt", {"वक़्त", "वक्त"}),
        ("waqt", {"वक़्त", "वक्त"}),  # w / v, q for क़
        ("sadak", {"सड़क"}),  # ड़ typed as d
        ("accha", {"अच्छा"}),  # doubled consonant
    ],
)
def test_loose_spellings_find_the_word_among_the_top_five(roman, accepted):
    assert accepted & set(suggest(roman, 5)), suggest(roman, 5)


def test_a_name_gets_a_sensible_spelling():
    assert "सोनी" in suggest("sony", 5)


def test_candidates_are_distinct_nfc_devanagari_and_at_most_k():
    for roman in ("khana", "sony", "kitab", "pyaar", "dilli"):
        out = suggest(roman, 5)
        assert 1 <= len(out) <= 5
        assert len(set(out)) == len(out)
        for word in out:
            assert word == unicodedata.normalize("NFC", word)
            assert all("\u0900" <= ch <= "\u097f" for ch in word), word


def test_k_limits_the_list():
    assert len(suggest("khana", 1)) == 1
    assert suggest("khana", 0) == []


def test_the_same_input_gives_the_same_list():
    assert suggest("samachar", 5) == suggest("samachar", 5)


def test_empty_input_has_no_candidates():
    assert suggest("") == []
    assert suggest("   ") == []


def test_digits_stay_as_typed():
    assert suggest("2024") == ["2024"]


def test_devanagari_passes_through_unchanged_and_nfc():
    decomposed = "क\u093c"  # क + nukta, the NFC form is क़ (one code point)
    assert suggest(decomposed) == [unicodedata.normalize("NFC", decomposed)]
    assert suggest("नमस्ते") == ["नमस्ते"]


def test_very_long_input_returns_quickly_and_bounded():
    start = time.perf_counter()
    out = suggest("bahut" * 100, 5)
    assert time.perf_counter() - start < 2.0
    assert 1 <= len(out) <= 5


def test_prefer_ranks_the_given_forms_first_in_order():
    out = suggest("hindi", 5, prefer=["हिन्दी", "हिंदी"])
    assert out[:2] == ["हिन्दी", "हिंदी"]
    assert len(out) == len(set(out)) <= 5


def test_lexicon_extra_lifts_a_project_word():
    plain = suggest("sarvis", 5)
    boosted = suggest("sarvis", 5, lexicon_extra={"सरविस": 0.01})
    assert boosted[0] == "सरविस", (plain, boosted)


def test_itrans_stays_available():
    assert to_devanagari("khAnA", "itrans") == "खाना"
