"""Transliteration-tolerant ROUGE-L: spelling variants match, different words do not, raw is untouched."""

from __future__ import annotations

import pytest

from corpus.phonetic import (
    largest_changes,
    matched_variants,
    normalized_rouge_l,
    normalized_words,
    phonetic_key,
    raw_rouge_l,
    signature,
    words_match,
)
from corpus.rouge import rouge_l_f_text


@pytest.mark.parametrize(("a", "b"), [
    ("कीबोर्ड", "की-बोर्ड"),
    ("लाइफ़", "लाइफ"),
    ("सॉफ़्टवेयर", "सॉफ्टवेयर"),
    ("वाईफ़ाई", "वाई-फाई"),
    ("पिज़्ज़ा", "पिज्जा"),
])
def test_devanagari_spellings_share_a_key(a, b):
    assert phonetic_key(a) == phonetic_key(b)


@pytest.mark.parametrize(("a", "b"), [
    ("keyboard", "कीबोर्ड"),
    ("processor", "प्रोसेसर"),
    ("megapixel", "मेगापिक्सल"),
    ("bluetooth", "ब्लूटूथ"),
    ("monitor", "मॉनिटर"),
    ("battery", "बैटरी"),
    ("charger", "चार्जर"),
    ("मेनू", "मेन्यू"),
    ("कॅमरा", "कैमरा"),
    ("Keyboard", "keyboard"),
])
def test_spelling_variants_match(a, b):
    assert words_match(a, b)
    assert words_match(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("सकता", "सकती"),      # gender inflection is a real difference
    ("अच्छा", "अच्छे"),
    ("है", "हो"),
    ("में", "मैं"),
    ("कीमत", "किस्मत"),
    ("battery", "बटर"),
    ("processor", "प्रोफेसर"),
    ("keyboard", "कीमत"),
    ("सेवा", "सर्विस"),
    ("बहुत", "बाहर"),
])
def test_different_words_do_not_match(a, b):
    assert not words_match(a, b)


def test_hyphenated_parts_are_one_word_only_when_glued():
    assert normalized_words("मेरा की-बोर्ड, wi-fi-router और धीरे - धीरे") == [
        "मेरा", "कीबोर्ड", "wifirouter", "और", "धीरे", "धीरे"]


def test_hyphen_spelling_scores_full_normalized_but_not_raw():
    a, b = "मेरा की-बोर्ड अच्छा है", "मेरा कीबोर्ड अच्छा है"
    # raw: 5 words vs 4, LCS 3 -> P 3/4, R 3/5 -> F 2/3
    assert raw_rouge_l(a, b) == pytest.approx(2 / 3)
    assert normalized_rouge_l(a, b) == pytest.approx(1.0)


def test_nukta_and_script_variants_raise_the_normalized_score():
    a, b = "बैटरी लाइफ़ और keyboard अच्छे हैं", "बैटरी लाइफ और कीबोर्ड अच्छे हैं"
    assert raw_rouge_l(a, b) == pytest.approx(4 / 6)
    assert normalized_rouge_l(a, b) == pytest.approx(1.0)


def test_real_disagreement_keeps_its_score():
    a, b = "खाना अच्छा था", "खाना बुरा था"
    assert normalized_rouge_l(a, b) == pytest.approx(raw_rouge_l(a, b)) == pytest.approx(2 / 3)


def test_raw_figure_is_the_official_rouge_l():
    pairs = [("लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", "पर स्टाफ हमारे साथ बहुत खराब था"), ("", "कुछ"), ("a b", "a b")]
    for a, b in pairs:
        assert raw_rouge_l(a, b) == rouge_l_f_text(a, b)


def test_normalized_score_is_symmetric_and_never_below_raw():
    a, b = "स्क्रीन का रिज़ॉल्यूशन बढ़िया है", "screen का resolution बढ़िया है"
    assert normalized_rouge_l(a, b) == pytest.approx(normalized_rouge_l(b, a))
    assert normalized_rouge_l(a, b) >= raw_rouge_l(a, b)


def test_empty_texts_score_zero():
    assert normalized_rouge_l("", "") == 0.0
    assert normalized_rouge_l("।", "कुछ") == 0.0


def test_largest_changes_lists_pairs_most_moved_by_spelling_first():
    pairs = [
        ("s1", "खाना अच्छा था", "खाना बुरा था"),
        ("s2", "मेरा की-बोर्ड अच्छा है", "मेरा कीबोर्ड अच्छा है"),
        ("s3", "बैटरी लाइफ़ अच्छी है", "बैटरी लाइफ अच्छी है"),
    ]
    changes = largest_changes(pairs)
    assert [c.key for c in changes] == ["s2", "s3"]
    assert changes[0].delta == pytest.approx(1 - 2 / 3)
    assert changes[1].delta == pytest.approx(1 - 3 / 4)


def test_matched_variants_show_why_a_score_moved():
    assert matched_variants("बैटरी लाइफ़ अच्छी", "बैटरी लाइफ अच्छी") == [("लाइफ़", "लाइफ")]


def test_signature_names_tokenizer_key_and_threshold():
    sig = signature(0.2)
    assert "hi-canon/1.0" in sig and "phonetic-key/1.0" in sig and "threshold=0.2" in sig
