"""Behaviour the mutation survivors (docs/mutation.md) showed no test pinned: which sentences the coverage
figure compares and counts, and in what order it lists them; what decides the aspects a translation kept;
grouped ROUGE-L's refusal of pairs out of order or out of their group; the counts beside a Fleiss' kappa over
no translation. Each test names the mutants it kills (``mutmut show corpus.<module>.x_<function>__mutmut_<n>``),
each planted by hand and seen to fail its test."""

from __future__ import annotations

import numpy as np
import pytest

from corpus.agreement import COVERAGE_DEFINITION, MetricsInput, SentenceInfo, TagSet, TranslationInfo, aspects_kept, coverage
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


def _sentence(pk: int) -> SentenceInfo:
    return SentenceInfo(pk, f"s{pk}", "restaurant", "train", f"Sentence {pk}.", 2, ordinal=pk)


def test_coverage_compares_sentences_both_phases_tell_and_counts_only_strictly_fewer_in_blind():
    # agreement.coverage 73, 76: a translation of a sentence not in the input neither crashes nor counts for
    # another; 100: a sentence whose aware translations kept nothing is compared; 109: as many in blind is not
    # fewer; 136, 137: the percent is of the compared sentences; 114-127, 141, 142: the report's keys
    sentences = [_sentence(pk) for pk in (1, 2, 3, 4, 5, 6)]
    kept = {  # translation pk -> aspects kept; 10 + sentence: aware, 20 + sentence: blind
        11: 2, 21: 1,  # fewer in blind
        12: 1, 22: 1,  # as many
        13: 1, 23: None,  # the blind translation tells nothing: not compared
        14: 1,  # no blind translation: not compared
        15: 1, 25: 0,  # fewer in blind
        16: 0, 26: 0,  # nothing kept in either phase: compared, not fewer
        99: 5,  # an aware translation of a sentence left out of the input (pk 9, past the last one)
    }
    translations = [TranslationInfo(pk, pk % 10 if pk != 99 else 9, "aware" if pk < 20 or pk == 99 else "blind",
                                    "asha", "क ख") for pk in kept]
    result = coverage(MetricsInput(sentences, translations), kept)
    assert (result["compared"], result["fewer_in_blind"], result["percent"]) == (4, 2, 50.0)
    assert result["definition"] == COVERAGE_DEFINITION
    assert result["sentences"] == [
        {"sentence_id": "s1", "domain": "restaurant", "split": "train", "source_aspects": 2, "aware_kept": 2,
         "blind_kept": 1, "text": "Sentence 1."},
        {"sentence_id": "s5", "domain": "restaurant", "split": "train", "source_aspects": 2, "aware_kept": 1,
         "blind_kept": 0, "text": "Sentence 5."},
    ]


def test_coverage_of_translations_whose_sentences_are_all_filtered_out_compares_nothing():
    # agreement.coverage 20: ``if data.translations and sentences`` -> ``or`` looked the translations up in
    # no sentence at all (an IndexError)
    translations = [TranslationInfo(10, 1, "aware", "asha", "क ख"), TranslationInfo(20, 1, "blind", "ravi", "क")]
    result = coverage(MetricsInput([], translations), {10: 1, 20: 0})
    assert (result["compared"], result["fewer_in_blind"], result["percent"], result["sentences"]) == (0, 0, None, [])


def test_the_leads_adjudicated_tags_decide_the_aspects_a_translation_kept():
    # agreement.aspects_kept 42-44: the adjudication replaces the annotators' most, and names no translation
    # outside the input
    sentence = SentenceInfo(1, "r1", "restaurant", "train", "The staff and the food.", 2)
    translations = [TranslationInfo(10, 1, "aware", "asha", "स्टाफ़ और खाना", False, None, 2),
                    TranslationInfo(11, 1, "blind", "ravi", "स्टाफ़ और खाना")]
    tags = [TagSet(10, "meera", "BOB"), TagSet(11, "meera", "BOB"), TagSet(11, "tara", "BOO")]
    data = MetricsInput([sentence], translations, tags, adjudicated={11: "BOO", 77: "BOB"})
    assert aspects_kept(data) == {10: 2, 11: 1}


def test_an_untranslatable_translation_keeps_no_aspect_even_with_a_text_and_a_map():
    # agreement.aspects_kept 47: the untranslatable column dropped left only the missing text to tell
    sentence = SentenceInfo(1, "r1", "restaurant", "train", "The staff was rude.", 1)
    translations = [TranslationInfo(10, 1, "aware", "asha", "स्टाफ़ रूखा था", True, None, 1)]
    data = MetricsInput([sentence], translations, [TagSet(10, "meera", "BOO")])
    assert aspects_kept(data) == {10: 0}


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


def test_grouped_rouge_scores_a_pair_whose_right_text_comes_first_in_its_group():
    # rouge.grouped_pair_f 101, 102: ``b.min() < 0`` -> ``<= 0`` / ``< 1`` refused a right text at a chunk's start
    f, _ = grouped_pair_f(TEXTS, GROUPS, np.array([1, 3]), np.array([0, 2]))
    assert f.tolist() == pytest.approx([2 * 3 / 7, 2 * 2 / 5])


UNSORTED = "^grouped_pair_f: texts must be sorted by group and pairs by their left text$"


def test_grouped_rouge_refuses_pairs_not_sorted_by_their_left_text():
    # rouge.grouped_pair_f 25: ``left[1:] < left[:-1]`` -> ``left[1:] < left[:+1]`` compares every pair with
    # the first only, so [0, 2, 1] passed and the pair (1, 0) fell outside the chunk it was looked for in;
    # 28: the message
    with pytest.raises(ValueError, match=UNSORTED):
        grouped_pair_f(TEXTS, GROUPS, np.array([0, 2, 1]), np.array([1, 3, 0]))


def test_grouped_rouge_refuses_texts_not_sorted_by_group():
    # rouge.grouped_pair_f 20: ``groups[1:] < groups[:-1]`` -> ``groups[:+1]`` let [1, 0, 1, 0] through
    with pytest.raises(ValueError, match=UNSORTED):
        grouped_pair_f(TEXTS, np.array([1, 2, 1, 2]), np.array([0, 1]), np.array([2, 3]))


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
