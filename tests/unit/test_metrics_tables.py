"""``corpus.metrics.tables.tagging_by_unit``: per (domain, split, sentence id, phase) the tokens tagged by two or
more annotators and the share they all agree on, counted over the translations of the input only, with
translations listed in any order (the ids are looked up by a sorted search)."""

from __future__ import annotations

from corpus.agreement import MetricsInput, SentenceInfo, TagSet, TranslationInfo, tag_table
from corpus.metrics.tables import tagging_by_unit


def unit_rows(translations, tag_sets, sentences=None):
    sentences = sentences or [SentenceInfo(7, "s7", "restaurant", "train", "Good food", 1, 1),
                              SentenceInfo(3, "s3", "laptop", "test", "Bad screen", 1, 2)]
    data = MetricsInput(sentences, translations, tag_sets)
    return tagging_by_unit(data, tag_table(data)[0])


def test_tokens_agreed_and_identical_tag_sets_are_counted_per_sentence_and_phase():
    translations = [  # ids out of order, as a filtered or merged input may list them
        TranslationInfo(40, 3, "blind", "tr2", "ख़राब स्क्रीन"),
        TranslationInfo(11, 7, "aware", "tr1", "अच्छा खाना"),
        TranslationInfo(12, 7, "aware", "tr2", "खाना अच्छा"),
        TranslationInfo(30, 3, "aware", "tr1", "स्क्रीन ख़राब"),
    ]
    tag_sets = [
        TagSet(11, "an1", "OB"), TagSet(11, "an2", "OB"),  # identical
        TagSet(12, "an1", "BO"), TagSet(12, "an2", "OO"),  # one of two tokens agreed
        TagSet(40, "an1", "OB"), TagSet(40, "an2", "BO"), TagSet(40, "an3", "OO"),  # none agreed by all three
        TagSet(30, "an1", "BO"),  # one annotator: not counted
        TagSet(99, "an1", "BO"), TagSet(99, "an2", "BO"),  # a translation not in the input
    ]
    rows = unit_rows(translations, tag_sets)
    assert rows == {
        ("laptop", "test", "s3", "blind"): {"tokens": 2, "agreed": 0, "identical_tag_sets": 0,
                                            "tagged_translations": 1, "token_agreement": 0.0},
        ("restaurant", "train", "s7", "aware"): {"tokens": 4, "agreed": 3, "identical_tag_sets": 1,
                                                 "tagged_translations": 2, "token_agreement": 0.75},
    }
    assert list(rows) == [("restaurant", "train", "s7", "aware"), ("laptop", "test", "s3", "blind")]  # tag table order


def test_a_translation_of_a_sentence_outside_the_input_is_left_out():
    translations = [TranslationInfo(11, 7, "aware", "tr1", "अच्छा खाना"), TranslationInfo(50, 8, "aware", "tr1", "x y")]
    tag_sets = [TagSet(11, "an1", "OB"), TagSet(11, "an2", "OO"), TagSet(50, "an1", "BO"), TagSet(50, "an2", "BO")]
    rows = unit_rows(translations, tag_sets)
    assert rows == {("restaurant", "train", "s7", "aware"): {"tokens": 2, "agreed": 1, "identical_tag_sets": 0,
                                                             "tagged_translations": 1, "token_agreement": 0.5}}


def test_nothing_tagged_twice_gives_no_rows():
    assert unit_rows([TranslationInfo(11, 7, "aware", "tr1", "अच्छा")], [TagSet(11, "an1", "B")]) == {}
