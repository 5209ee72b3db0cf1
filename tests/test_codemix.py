"""Code-mixing: per-token language tags and the CMI (Gambäck & Das 2014), values computed by hand."""

from __future__ import annotations

import pytest

from corpus.codemix import cmi, corpus_cmi, corpus_cmi_of_texts, tag_text, tag_tokens, token_language


@pytest.mark.parametrize(("token", "tag"), [
    ("लैपटॉप", "lang2"), ("स्टाफ़", "lang2"), ("laptop", "lang1"), ("Café", "lang1"),
    (",", "other"), ("।", "other"), ("2", "other"), ("१२३", "other"), ("₹", "other"), ("%", "other"),
])
def test_token_language_by_script(token, tag):
    assert token_language(token) == tag


def test_known_named_entities_are_ne_and_the_rest_by_script():
    tagged = tag_text("मेरा Sony का laptop, 2nd Street पर।", ["sony", "2nd Street"])
    assert tagged == [("मेरा", "lang2"), ("Sony", "ne"), ("का", "lang2"), ("laptop", "lang1"), (",", "other"),
                      ("2nd", "ne"), ("Street", "ne"), ("पर", "lang2"), ("।", "other")]


def test_entity_spans_from_the_caller_mark_words_but_not_punctuation():
    assert tag_tokens(["Joe", "'", "s", "पिज़्ज़ा"], ne_spans=[(0, 3)]) == ["ne", "other", "ne", "lang2"]


def test_a_single_token_entity_does_not_match_inside_a_longer_word():
    assert tag_tokens(["Sonya", "ने"], ["Sony"]) == ["lang1", "lang2"]


@pytest.mark.parametrize(("text", "entities", "expected"), [
    # मेरा lang2, laptop lang1, अच्छा lang2, है lang2, । other: n=5, u=1, max=3 -> 100 (1 - 3/4)
    ("मेरा laptop अच्छा है।", (), 25.0),
    ("खाना अच्छा था।", (), 0.0),
    # Sony ne, का lang2, phone lang1: n=3, u=1, max=1 -> 100 (1 - 1/2)
    ("Sony का phone", ("Sony",), 50.0),
    # without the entity: lang1 = 2, lang2 = 1: 100 (1 - 2/3)
    ("Sony का phone", (), 100 / 3),
    ("!!", (), 0.0),
    ("", (), 0.0),
    # all English words: monolingual
    ("battery life is great", (), 0.0),
])
def test_cmi_of_one_sentence(text, entities, expected):
    tags = [tag for _, tag in tag_text(text, entities)]
    assert cmi(tags) == pytest.approx(expected)


def test_cmi_rejects_unknown_tags():
    with pytest.raises(ValueError, match="unknown language tag"):
        cmi(["lang1", "fw"])


def test_corpus_cmi_over_all_and_code_mixed_sentences():
    result = corpus_cmi_of_texts(["मेरा laptop अच्छा है।", "खाना अच्छा था।", "Sony का phone"], ["Sony"])
    assert result.sentences == 3
    assert result.code_mixed == 2
    assert result.cmi_all == pytest.approx((25 + 0 + 50) / 3)
    assert result.cmi_mixed == pytest.approx((25 + 50) / 2)
    assert result.code_mixed_pct == pytest.approx(200 / 3)
    # lang2: मेरा अच्छा है + खाना अच्छा था + का = 7; other: two dandas
    assert result.tag_counts == {"lang1": 2, "lang2": 7, "ne": 1, "other": 2}


def test_corpus_cmi_of_nothing_is_zero():
    result = corpus_cmi([])
    assert (result.sentences, result.cmi_all, result.cmi_mixed) == (0, 0.0, 0.0)
    assert set(result.to_dict()) == {"sentences", "code_mixed", "code_mixed_pct", "cmi_all", "cmi_mixed",
                                     "tag_counts", "signature"}


def test_keep_roman_glossary_terms_become_named_entities():
    from corpus.codemix import keep_roman_entities, sentence_lid
    from corpus.glossary import GlossaryEntry

    glossary = [GlossaryEntry("Sony", "Sony", "keep-roman"), GlossaryEntry("keyboard", "कीबोर्ड", "transliterate")]
    entities = keep_roman_entities(glossary)
    assert entities == ["Sony"]
    assert sentence_lid(["Sony", "का", "keyboard"], entities) == ["ne", "lang2", "lang1"]
