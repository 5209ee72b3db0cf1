"""ROUGE-L over canonical words: hand-checked Devanagari pairs, and identical to rouge-score with our tokenizer."""

from __future__ import annotations

import random

import numpy as np
import pytest

import corpus.rouge
from corpus.rouge import (
    CanonicalWords,
    batch_f,
    batch_lcs,
    batch_lcs_flat,
    f_from_lcs,
    grouped_pair_f,
    lcs_length,
    rouge_l_f,
    rouge_l_f_text,
    word_counts,
    word_id_arrays,
)
from corpus.tokens import words

PHA_PRECOMPOSED = "\u095e"  # फ़ as one code point (NFC decomposes it)
PHA_DECOMPOSED = "\u092b\u093c"  # फ + nukta


@pytest.fixture(scope="module")
def rouge_scorer():
    """rouge-score's scorer module, imported by the tests that compare with it rather than at collection: with NLTK
    and SciPy it took about 1.8 CPU-s in every pytest worker, most of which run none of these tests."""
    from rouge_score import rouge_scorer

    return rouge_scorer


@pytest.mark.parametrize(
    ("target", "prediction", "expected"),
    [
        ("लेकिन स्टाफ़ बहुत बुरा था।", "लेकिन स्टाफ़ बहुत बुरा था।", 1.0),
        (f"स्टा{PHA_PRECOMPOSED} अच्छा था", f"स्टा{PHA_DECOMPOSED} अच्छा था", 1.0),
        ("स्टाफ़, अच्छा था।", "स्टाफ़ अच्छा था", 1.0),
        ("लेकिन स्टाफ़ बहुत बुरा था", "स्टाफ़ बुरा था", 0.75),  # LCS 3: P = 3/3, R = 3/5
        ("खाना अच्छा था", "अच्छा था खाना", 2 / 3),  # LCS "अच्छा था"
        ("Sony का कीबोर्ड", "sony कीबोर्ड", 0.8),  # case-folded Roman; P = 1, R = 2/3
        ("स्टाफ़ बुरा था", "स्टाफ़ बहुत बुरा था।", 6 / 7),  # the danda is no word: P = 3/4, R = 1
        ("खाना अच्छा था", "सेवा धीमी थी", 0.0),
        ("।", "खाना अच्छा था", 0.0),
        ("", "", 0.0),
    ],
    ids=["identical", "nukta-two-spellings", "punctuation-glued", "subsequence", "reordered", "roman-case",
         "danda", "disjoint", "punctuation-only", "empty"],
)
def test_rouge_l_on_devanagari_pairs_matches_hand_computed_value(target, prediction, expected):
    assert rouge_l_f_text(target, prediction) == pytest.approx(expected, abs=1e-12)


def test_nukta_spellings_are_the_same_word_after_nfc():
    assert words(f"स्टा{PHA_PRECOMPOSED}") == words(f"स्टा{PHA_DECOMPOSED}")


def test_rouge_score_default_tokenizer_drops_devanagari_but_ours_does_not(rouge_scorer):
    text = "लेकिन स्टाफ़ बहुत बुरा था।"
    default = rouge_scorer.RougeScorer(["rougeL"]).score(text, text)["rougeL"].fmeasure
    ours = rouge_scorer.RougeScorer(["rougeL"], tokenizer=CanonicalWords()).score(text, text)["rougeL"].fmeasure
    assert default == 0.0
    assert ours == 1.0 == rouge_l_f_text(text, text)


VOCAB = "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था खाना अच्छा है और सेवा धीमी थी कीबोर्ड बैटरी Sony sony".split() + [
    # nukta both ways: precomposed फ़ ज़ (U+095E, U+095B) and the decomposed letters + U+093C
    "स्टा\u095e", "\u095bरूर", "ज\u093cरूर", "सा\u095bिश", "\u095eोन",
]
GLUE = ["", "", "", ",", "।", "!", "'s"]


def _random_text(rng: random.Random, longest: int) -> str:
    return " ".join(rng.choice(VOCAB) + rng.choice(GLUE) for _ in range(rng.randint(0, longest)))


def test_values_are_identical_to_rouge_score_with_a_correct_tokenizer_on_random_pairs(rouge_scorer):
    rng = random.Random(7)
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=CanonicalWords())
    texts = [_random_text(rng, rng.choice((3, 12, 30, 80, 140))) for _ in range(400)]
    pairs = [(rng.randrange(len(texts)), rng.randrange(len(texts))) for _ in range(1500)]
    reference = [scorer.score(texts[a], texts[b])["rougeL"].fmeasure for a, b in pairs]

    one_by_one = [rouge_l_f_text(texts[a], texts[b]) for a, b in pairs]
    flat, lengths = word_id_arrays(texts)
    starts = np.r_[0, np.cumsum(lengths)]
    lists = [flat[starts[i]:starts[i + 1]].tolist() for i in range(len(texts))]
    left, right = np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])
    batched = batch_f(batch_lcs(lists, left, right), lengths[left], lengths[right]).tolist()

    assert one_by_one == reference
    assert batched == reference


def _lcs_table(a, b) -> int:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = table[i - 1][j - 1] + 1 if a[i - 1] == b[j - 1] else max(table[i - 1][j], table[i][j - 1])
    return table[-1][-1]


@pytest.mark.parametrize("lookup", ["dense tables", "binary search"])
@pytest.mark.parametrize("length", [0, 1, 63, 64, 65, 130])
def test_bit_parallel_lcs_equals_the_dynamic_programme_around_word_size(length, lookup, monkeypatch):
    if lookup == "binary search":
        monkeypatch.setattr(corpus.rouge, "DENSE_TABLE_LIMIT", -1)
    rng = random.Random(length)
    lists = [[rng.randrange(5) for _ in range(length)] for _ in range(6)] + [[rng.randrange(5) for _ in range(70)]]
    left = np.array([i for i in range(len(lists)) for _ in range(len(lists))])
    right = np.array([j for _ in range(len(lists)) for j in range(len(lists))])
    expected = [_lcs_table(lists[a], lists[b]) for a, b in zip(left, right)]
    assert batch_lcs(lists, left, right).tolist() == expected
    assert [lcs_length(lists[a], lists[b]) for a, b in zip(left, right)] == expected


def test_fast_word_lists_equal_the_canonical_words_of_each_text():
    rng = random.Random(3)
    odd = ["\u00a0", "\u2003", "\u3000", "\t", "\n", "\x1e", "\u200c", "\u200d", "\x00", "—", "।", "'", "\u093c"]
    texts = []
    for _ in range(300):
        parts = [rng.choice(VOCAB + odd + ["Joe's", "2nd", "क़", "क\u093c", "ÄBC"]) for _ in range(rng.randint(0, 12))]
        texts.append("".join(p + rng.choice(["", " ", "  ", "\u00a0"]) for p in parts))
    texts += [None, "", "   "]
    expected = [words(t or "") for t in texts]
    flat, lengths = word_id_arrays(texts)
    assert lengths.tolist() == [len(w) for w in expected]
    clean = [t for t in texts if t is None or "\x00" not in t]
    flat, lengths = word_id_arrays(clean)
    assert lengths.tolist() == [len(words(t or "")) for t in clean]
    expected_flat = [w for t in clean for w in words(t or "")]
    pairs = set(zip(flat.tolist(), expected_flat))
    assert len(pairs) == len(set(flat.tolist())) == len(set(expected_flat))  # same word <=> same id


def test_rouge_l_f_of_hindi_word_lists_takes_the_first_as_target():
    group = [words("स्टाफ़ बुरा था"), words("स्टाफ़ बहुत बुरा था।"), words("खाना अच्छा था")]
    assert rouge_l_f(group[0], group[1]) == pytest.approx(6 / 7)
    assert rouge_l_f(group[1], group[2]) == pytest.approx(2 / 7)


def test_f_of_empty_texts_is_zero_not_an_error():
    assert f_from_lcs(0, 0, 5) == 0.0
    assert batch_f(np.array([0, 0]), np.array([0, 3]), np.array([4, 0])).tolist() == [0.0, 0.0]


def test_pairs_within_given_groups_score_the_same_as_without_and_pairs_across_groups_are_refused():
    rng = random.Random(11)
    lists = [[rng.randrange(8) for _ in range(rng.randint(0, 40))] for _ in range(60)]
    groups = np.arange(60) // 4
    left = np.array([g * 4 + i for g in range(15) for i in range(4) for j in range(4) if i < j])
    right = np.array([g * 4 + j for g in range(15) for i in range(4) for j in range(4) if i < j])
    lengths = np.array([len(x) for x in lists])
    flat = np.array([w for x in lists for w in x], dtype=np.int64)
    expected = [_lcs_table(lists[a], lists[b]) for a, b in zip(left, right)]
    assert batch_lcs_flat(flat, lengths, left, right, groups=groups).tolist() == expected
    assert batch_lcs_flat(flat, lengths, left, right).tolist() == expected
    with pytest.raises(ValueError, match="groups"):
        batch_lcs_flat(flat, lengths, np.array([0]), np.array([4]), groups=groups)


def test_scoring_in_chunks_of_whole_groups_gives_rouge_scores_values(monkeypatch, rouge_scorer):
    monkeypatch.setattr(corpus.rouge, "TEXT_CHUNK", 7)  # many chunks, cut only between groups
    rng = random.Random(5)
    sizes = [rng.randint(1, 5) for _ in range(40)]
    groups = np.repeat(np.arange(len(sizes)), sizes)
    texts = [_random_text(rng, rng.choice((0, 4, 20, 90))) for _ in range(len(groups))]
    texts[3] = None
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    pairs = [(s + i, s + j) for s, k in zip(starts.tolist(), sizes) for i in range(k) for j in range(i + 1, k)]
    left, right = np.array([a for a, _ in pairs]), np.array([b for _, b in pairs])
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=CanonicalWords())
    f, lengths = grouped_pair_f(texts, groups, left, right)
    assert f.tolist() == [scorer.score(texts[a] or "", texts[b] or "")["rougeL"].fmeasure for a, b in pairs]
    assert lengths.tolist() == [len(words(t or "")) for t in texts] == word_counts(texts).tolist()


def test_chunked_scoring_refuses_unsorted_groups_and_pairs_across_groups():
    texts = ["खाना अच्छा था", "खाना था", "सेवा धीमी थी"]
    with pytest.raises(ValueError, match="sorted"):
        grouped_pair_f(texts, np.array([1, 0, 0]), np.array([1]), np.array([2]))
    with pytest.raises(ValueError, match="group"):
        grouped_pair_f(texts, np.array([0, 0, 1]), np.array([1]), np.array([2]))
