"""Table 1 statistics on hand-checked inputs."""

import pytest

from corpus.stats import LabelledSentence, english_labelled, table1


def test_table_one_on_hand_checked_sentences():
    sentences = [
        LabelledSentence("laptop", ("O", "B", "I", "O"), 1),
        LabelledSentence("laptop", ("O", "O"), 0),
        LabelledSentence("restaurant", ("B", "O", "B", "O"), 2),
    ]
    t = table1(sentences)
    assert (t["sentences"], t["aspect_terms"], t["marked_sentences"]) == (3, 3, 2)
    assert t["marked_share"] == pytest.approx(2 / 3)
    assert t["aspects_per_sentence"] == pytest.approx(1.0)
    assert t["aspects_per_marked_sentence"] == pytest.approx(1.5)
    assert t["tokens"] == 10
    assert t["tag_share"] == pytest.approx({"B": 0.3, "I": 0.1, "O": 0.6})
    assert t["per_domain"] == {"laptop": {"sentences": 2, "aspect_terms": 1}, "restaurant": {"sentences": 1, "aspect_terms": 2}}


def test_empty_corpus_has_no_ratios():
    t = table1([])
    assert t["sentences"] == 0 and t["marked_share"] is None and t["tag_share"]["B"] is None


def test_english_side_uses_semeval_offsets_and_canonical_tokens():
    s = english_labelled("laptop", "\xa0The battery life is good.", [(5, 17)])
    assert s.tags == ("O", "B", "I", "O", "O", "O")
    assert s.aspect_terms == 1


def test_mid_word_span_covers_the_whole_token():
    s = english_labelled("restaurant", "They enforce a dress code.", [(15, 24)])
    assert s.tags == ("O", "O", "O", "B", "I", "O")
