"""Behaviour the second list of mutation survivors (docs/mutation.md) showed no test pinned: the coverage
list's sentence order, a translation without text keeping no aspect, grouped ROUGE-L's refusal of pairs out
of order or out of range, and the counts beside a Fleiss' kappa over no translation. Each test names the
mutants it kills (``mutmut show <name>``); each was planted by hand and seen to fail its test."""

from __future__ import annotations

import numpy as np
import pytest

from corpus.agreement import MetricsInput, SentenceInfo, TranslationInfo, aspects_kept, coverage
from corpus.kappa import fleiss_over_translations
from corpus.rouge import grouped_pair_f


def test_coverage_lists_sentences_by_domain_split_and_ordinal_not_by_database_key():
    # agreement.coverage 8, 10: ``sorted(sentences, key=_sentence_order)`` without its key sorts by pk
    sentences = [
        SentenceInfo(1, "r9", "restaurant", "train", "The staff was rude.", 1, ordinal=0),
        SentenceInfo(2, "a1", "restaurant", "train", "The soup was cold.", 1, ordinal=1),  # ordinal before id
        SentenceInfo(3, "l1", "laptop", "train", "The screen is dim.", 1, ordinal=5),  # domain first
        SentenceInfo(4, "r2", "restaurant", "test", "The tea was weak.", 1, ordinal=9),  # then split
    ]
    translations = [t for s in sentences for t in (TranslationInfo(10 + s.pk, s.pk, "aware", "asha", "क ख"),
                                                   TranslationInfo(20 + s.pk, s.pk, "blind", "ravi", "क ख"))]
    kept = {10 + s.pk: 1 for s in sentences} | {20 + s.pk: 0 for s in sentences}
    result = coverage(MetricsInput(sentences, translations), kept)
    assert [row["sentence_id"] for row in result["sentences"]] == ["l1", "r2", "r9", "a1"]
    assert (result["compared"], result["fewer_in_blind"]) == (4, 4)


def test_a_translation_without_text_keeps_no_aspect_even_when_not_marked_untranslatable():
    # agreement.aspects_kept 27: the text column read as the untranslatable one never finds a missing text
    sentence = SentenceInfo(1, "r1", "restaurant", "train", "The staff was rude.", 1)
    translations = [TranslationInfo(10, 1, "aware", "asha", None, False, None, 1),  # no text, a map of one
                    TranslationInfo(11, 1, "aware", "ravi", "स्टाफ़ रूखा था", False, None, 1)]
    assert aspects_kept(MetricsInput([sentence], translations)) == {10: 0, 11: 1}


TEXTS = ["खाना अच्छा था", "खाना बहुत अच्छा था", "स्टाफ़ रूखा था", "स्टाफ़ रूखा"]
GROUPS = np.array([0, 0, 1, 1])


def test_grouped_rouge_scores_pairs_sorted_by_their_left_text():
    f, lengths = grouped_pair_f(TEXTS, GROUPS, np.array([0, 2]), np.array([1, 3]))
    assert f.tolist() == pytest.approx([2 * 3 / 7, 2 * 2 / 5]) and lengths.tolist() == [3, 4, 3, 2]


def test_grouped_rouge_refuses_pairs_not_sorted_by_their_left_text():
    # rouge.grouped_pair_f 25: ``left[1:] < left[:-1]`` -> ``left[1:] < left[:+1]`` compares every pair with
    # the first only, so [0, 2, 1] passed and the pair (1, 0) fell outside the chunk it was looked for in
    with pytest.raises(ValueError, match="pairs by their left text"):
        grouped_pair_f(TEXTS, GROUPS, np.array([0, 2, 1]), np.array([1, 3, 0]))


@pytest.mark.parametrize("right", [4, 7, -1])
def test_grouped_rouge_refuses_a_pair_whose_right_text_is_not_in_its_group(right):
    # rouge.grouped_pair_f 109: the refusal says what is wrong (the tests checked its type only)
    with pytest.raises(ValueError, match="^grouped_pair_f: a pair joins two groups$"):
        grouped_pair_f(TEXTS, GROUPS, np.array([0]), np.array([right]))


def test_fleiss_over_no_translation_reports_zero_translations_and_zero_left_out_not_none():
    # kappa.fleiss_over_translations 16-19, 33-36: the counts beside the undefined kappa over nothing
    result = fleiss_over_translations([], 2)
    assert result.result.kappa is None and result.result.items == 0
    assert (result.translations, result.excluded_fewer, result.excluded_more, result.excluded_length) == (0, 0, 0, 0)
    assert result.as_dict()["excluded"] == {"fewer_annotators": 0, "more_annotators": 0, "token_count_mismatch": 0}
