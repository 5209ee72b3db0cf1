"""Transliteration-tolerant ROUGE-L: spelling variants match, different words do not, raw is untouched."""

from __future__ import annotations

import pytest

from fractions import Fraction

from corpus.agreement import MetricsInput, SentenceInfo, TranslationInfo, rouge_agreement, rouge_summary
from corpus.phonetic import (
    PairChange,
    corpus_rouge_summary,
    matched_variants,
    normalized_pair_f,
    normalized_rouge_l,
    normalized_words,
    phonetic_key,
    rank_changes,
    signature,
    spelling_tolerant_report,
    variant_partners,
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
    # two Devanagari words: a different consonant, aspiration or long vowel is another word
    ("खाना", "गाना"),
    ("खाना", "काना"),
    ("खाना", "खोना"),
    ("चलना", "जलना"),
    ("बोलना", "भूलना"),
    ("जाना", "जीना"),
    ("मिलना", "मालना"),
    ("पढ़ना", "पड़ना"),
    ("कम", "काम"),
])
def test_different_words_do_not_match(a, b):
    assert not words_match(a, b)
    assert not words_match(b, a)


@pytest.mark.parametrize(("a", "b"), [
    ("सर्विस", "सरविस"),        # halant or written schwa
    ("मेगापिक्सल", "मेगापिक्सेल"),  # schwa or e in a borrowed word
    ("लैपटॉप", "लेपटॉप"),        # ऐ or ए
    ("कीबोर्ड", "किबोर्ड"),        # vowel length of i
])
def test_devanagari_spelling_variants_match_by_short_vowel_edits(a, b):
    assert words_match(a, b) and words_match(b, a)


def test_a_different_devanagari_word_keeps_the_raw_score():
    a, b = "खाना अच्छा था", "गाना अच्छा था"
    assert normalized_rouge_l(a, b) == pytest.approx(rouge_l_f_text(a, b)) == pytest.approx(2 / 3)
    assert variant_partners(["खाना", "गाना", "काना", "खोना"]) == {}


def test_hyphenated_parts_are_one_word_only_when_glued():
    assert normalized_words("मेरा की-बोर्ड, wi-fi-router और धीरे - धीरे") == [
        "मेरा", "कीबोर्ड", "wifirouter", "और", "धीरे", "धीरे"]


def test_hyphen_spelling_scores_full_normalized_but_not_raw():
    a, b = "मेरा की-बोर्ड अच्छा है", "मेरा कीबोर्ड अच्छा है"
    # raw: 5 words vs 4, LCS 3 -> P 3/4, R 3/5 -> F 2/3
    assert rouge_l_f_text(a, b) == pytest.approx(2 / 3)
    assert normalized_rouge_l(a, b) == pytest.approx(1.0)


def test_nukta_and_script_variants_raise_the_normalized_score():
    a, b = "बैटरी लाइफ़ और keyboard अच्छे हैं", "बैटरी लाइफ और कीबोर्ड अच्छे हैं"
    assert rouge_l_f_text(a, b) == pytest.approx(4 / 6)
    assert normalized_rouge_l(a, b) == pytest.approx(1.0)


def test_real_disagreement_keeps_its_score():
    a, b = "खाना अच्छा था", "खाना बुरा था"
    assert normalized_rouge_l(a, b) == pytest.approx(rouge_l_f_text(a, b)) == pytest.approx(2 / 3)


def test_normalized_score_is_symmetric_and_never_below_raw():
    a, b = "स्क्रीन का रिज़ॉल्यूशन बढ़िया है", "screen का resolution बढ़िया है"
    assert normalized_rouge_l(a, b) == pytest.approx(normalized_rouge_l(b, a))
    assert normalized_rouge_l(a, b) >= rouge_l_f_text(a, b)


def test_empty_texts_score_zero():
    assert normalized_rouge_l("", "") == 0.0
    assert normalized_rouge_l("।", "कुछ") == 0.0


def test_largest_changes_lists_pairs_most_moved_by_spelling_first():
    pairs = [
        ("s1", "खाना अच्छा था", "खाना बुरा था"),
        ("s2", "मेरा की-बोर्ड अच्छा है", "मेरा कीबोर्ड अच्छा है"),
        ("s3", "बैटरी लाइफ़ अच्छी है", "बैटरी लाइफ अच्छी है"),
    ]
    changes = rank_changes(PairChange(k, a, b, rouge_l_f_text(a, b), normalized_rouge_l(a, b)) for k, a, b in pairs)
    assert [c.key for c in changes] == ["s2", "s3"]
    assert changes[0].delta == pytest.approx(1 - 2 / 3)
    assert changes[1].delta == pytest.approx(1 - 3 / 4)


def test_matched_variants_show_why_a_score_moved():
    assert matched_variants("बैटरी लाइफ़ अच्छी", "बैटरी लाइफ अच्छी") == [("लाइफ़", "लाइफ")]


def test_signature_names_tokenizer_key_and_threshold():
    sig = signature(0.2)
    assert "hi-canon/1.0" in sig and "phonetic-key/1.0" in sig and "threshold=0.2" in sig


# --- Corpus level ---------------------------------------------------------------------------------

# Hand-checked: sentence "But the staff was so horrible" (6 source words).
# aware: asha "स्टाफ़ बुरा था" (3 words), bilal "स्टाफ बहुत बुरा था।" (4), chitra "खाना अच्छा था" (3)
#   raw:        asha-bilal LCS 2 -> F 2*(2/3)(2/4)/(2/3+2/4) = 4/7; asha-chitra 1/3; bilal-chitra 2/7
#   normalized: asha-bilal LCS 3 (स्टाफ़ = स्टाफ) -> F 2*(1)(3/4)/(7/4) = 6/7; the others unchanged
#   unit mean raw (4/7 + 1/3 + 2/7)/3 = 25/63, normalized (6/7 + 1/3 + 2/7)/3 = 31/63; weight 6 + 10/3
# blind: asha and bilal "खाना अच्छा था" (identical): F 1 both ways; weight 6 + 3
AWARE_W, BLIND_W = 6 + Fraction(10, 3), Fraction(9)
RAW_AWARE, NORMALIZED_AWARE = Fraction(25, 63), Fraction(31, 63)


def _overall(aware: Fraction) -> float:
    return float((aware * AWARE_W + 1 * BLIND_W) / (AWARE_W + BLIND_W))


def _spelling_input() -> MetricsInput:
    texts = [("aware", "asha", "स्टाफ़ बुरा था"), ("aware", "bilal", "स्टाफ बहुत बुरा था।"),
             ("aware", "chitra", "खाना अच्छा था"), ("blind", "asha", "खाना अच्छा था"), ("blind", "bilal", "खाना अच्छा था")]
    return MetricsInput(
        [SentenceInfo(1, "r1", "restaurant", "train", "But the staff was so horrible", 1, 1)],
        [TranslationInfo(pk, 1, phase, who, text) for pk, (phase, who, text) in enumerate(texts, 1)],
    )


def test_corpus_summary_weights_unit_means_like_the_official_figure():
    summary = corpus_rouge_summary([0, 0, 0, 1], [6 / 7, 1 / 3, 2 / 7, 1.0], ["aware", "blind"],
                                   [float(AWARE_W), float(BLIND_W)])
    assert summary["aware"] == pytest.approx(31 / 63)
    assert summary["blind"] == pytest.approx(1.0)
    assert summary["overall"] == pytest.approx(_overall(Fraction(31, 63)))
    assert summary["unweighted"]["overall"] == pytest.approx((31 / 63 + 1) / 2)
    assert summary["units"] == {"aware": 1, "blind": 1}
    assert summary["pairs"] == 4


def test_corpus_summary_of_nothing_is_none():
    summary = corpus_rouge_summary([], [], [], [])
    assert summary["aware"] is None and summary["overall"] is None and summary["pairs"] == 0


def test_corpus_summary_of_raw_pairs_is_the_official_rouge_l():
    result = rouge_agreement(_spelling_input())
    official = rouge_summary(result)
    ours = corpus_rouge_summary(result.pair_unit.tolist(), result.pair_f.tolist(), result.unit_phase,
                                result.unit_weight.tolist())
    for phase in ("aware", "blind", "overall"):
        assert ours[phase] == pytest.approx(official[phase])
    assert ours["aware"] == pytest.approx(float(RAW_AWARE))


def test_pair_scores_equal_normalized_rouge_l_and_reuse_raw_only_without_variants():
    texts = ["खाना अच्छा था", "खाना बुरा था", "लाइफ़ लाइफ", "लाइफ लाइफ़", "मेरा की-बोर्ड", "मेरा की बोर्ड"]
    a, b, unit = [0, 2, 4], [1, 3, 5], [0, 1, 2]
    raw = [rouge_l_f_text(texts[i], texts[j]) for i, j in zip(a, b)]
    scores = normalized_pair_f(texts, a, b, unit, raw)
    assert scores == pytest.approx([normalized_rouge_l(texts[i], texts[j]) for i, j in zip(a, b)])
    # लाइफ़ लाइफ / लाइफ लाइफ़: raw LCS 1 -> 1/2, but every word matches crosswise -> 1.
    # मेरा की-बोर्ड / मेरा की बोर्ड: raw 1; normalized [मेरा, कीबोर्ड] vs [मेरा, की, बोर्ड]: LCS 1 -> 2(1/2)(1/3)/(5/6) = 2/5.
    assert scores == pytest.approx([2 / 3, 1.0, 2 / 5])
    # A pair with no spelling variant keeps the raw figure it is given, exactly.
    assert normalized_pair_f(texts, [0], [1], [0], [0.125]) == [0.125]
    assert normalized_pair_f(texts, [0], [1], [0]) == pytest.approx([2 / 3])


WORDS = ["कीबोर्ड", "की-बोर्ड", "keyboard", "लाइफ़", "लाइफ", "सकता", "सकती", "अच्छा", "अच्छे", "battery", "बैटरी",
         "बटर", "processor", "प्रोसेसर", "प्रोफेसर", "मेनू", "मेन्यू", "कीमत", "किस्मत", "है", "हो", "था"]


def test_variant_partners_are_exactly_the_matching_word_pairs():
    partners = variant_partners(WORDS)
    for x in WORDS:
        for y in WORDS:
            if x != y:
                assert (y in partners.get(x, set())) == (words_match(x, y) or words_match(y, x)), (x, y)
    assert partners["लाइफ़"] == {"लाइफ"}
    assert "सकती" not in partners.get("सकता", set())


def test_report_shows_raw_beside_normalized_over_the_same_pairs():
    report = spelling_tolerant_report(rouge_agreement(_spelling_input()))
    assert report["raw"]["aware"] == pytest.approx(float(RAW_AWARE))
    assert report["normalized"]["aware"] == pytest.approx(float(NORMALIZED_AWARE))
    assert report["raw"]["blind"] == report["normalized"]["blind"] == pytest.approx(1.0)
    assert report["raw"]["overall"] == pytest.approx(_overall(RAW_AWARE))
    assert report["normalized"]["overall"] == pytest.approx(_overall(NORMALIZED_AWARE))
    assert report["pairs"] == 4 and report["changed_pairs"] == 1
    [row] = report["changes"]
    assert (row["sentence_id"], row["phase"], row["translator_a"], row["translator_b"]) == ("r1", "aware", "asha", "bilal")
    assert row["raw_f"] == pytest.approx(4 / 7) and row["normalized_f"] == pytest.approx(6 / 7)
    assert row["change"] == pytest.approx(2 / 7)
    assert row["text_a"] == "स्टाफ़ बुरा था" and row["variants"] == "स्टाफ़ = स्टाफ"
    assert "phonetic-key/1.0" in report["signature"]


def test_report_ranks_changes_largest_first_and_keeps_the_limit():
    data = _spelling_input()
    data.translations[3] = data.translations[3]._replace(text="मेरा की-बोर्ड अच्छा है")
    data.translations[4] = data.translations[4]._replace(text="मेरा कीबोर्ड अच्छा है")
    report = spelling_tolerant_report(rouge_agreement(data), limit=1)
    assert report["changed_pairs"] == 2
    [row] = report["changes"]  # blind moves 2/3 -> 1 (1/3), aware 4/7 -> 6/7 (2/7)
    assert row["phase"] == "blind" and row["change"] == pytest.approx(1 / 3)


def _dp_lcs(a, b, equal) -> int:
    """The textbook LCS table, as the reference for the bit-parallel one."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b, 1):
            cur.append(prev[j - 1] + 1 if equal(x, y) else max(prev[j], cur[j - 1]))
        prev = cur
    return prev[-1]


def test_the_phonetic_lcs_is_the_official_bit_parallel_one_under_any_match_table():
    """corpus.phonetic counts its LCS with corpus.rouge's algorithm; a predicate that is not transitive
    (words one letter apart match) must give the textbook table's length."""
    import random

    from corpus.phonetic import lcs_length

    rng = random.Random(5)
    near = lambda x, y: abs(ord(x) - ord(y)) <= 1  # a~b, b~c, but not a~c
    for _ in range(400):
        a = [rng.choice("abcdef") for _ in range(rng.randint(0, 12))]
        b = [rng.choice("abcdef") for _ in range(rng.randint(0, 12))]
        for equal in (near, str.__eq__):
            assert lcs_length(a, b, equal) == _dp_lcs(a, b, equal), (a, b)
