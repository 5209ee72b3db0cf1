"""Code-mixing: per-token language tags and the CMI (Gambäck & Das 2014), values computed by hand."""

from __future__ import annotations

import pytest

from corpus.codemix import cmi, corpus_cmi, tag_tokens, token_language
from corpus.tokens import tokenize


def tag_text(text, named_entities=()):
    """(token, tag) pairs of a Hindi text, as the dashboard tags it: canonical tokens, then ``tag_tokens``."""
    tokens = tokenize(text)
    return list(zip(tokens, tag_tokens(tokens, list(named_entities))))


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
    texts = ["मेरा laptop अच्छा है।", "खाना अच्छा था।", "Sony का phone"]
    result = corpus_cmi(tag_tokens(tokenize(t), ["Sony"]) for t in texts)
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


# --- Named entities: one rule for the dashboard and the export ---------------------------------------

@pytest.mark.parametrize(("source", "names"), [
    ("I went to Brooklyn for the miso soup.", ["Brooklyn"]),
    ("Brooklyn is great.", ["Brooklyn"]),  # a name that opens the sentence
    ("The staff was great.", []),  # a common word that opens the sentence
    ("Great pizza. Joe's is the best.", ["Joe"]),  # a name that opens the second sentence
    ("Pizza here beats any pizza in town.", []),  # the source writes it in lower case too
    ("I love it and I will be back.", []),
    ("Don't miss the Sony store.", ["Sony"]),  # "Don" of "Don't" is no name
    ('"Sony" rocks.', ["Sony"]),
    ("BEST laptop from HP, NOT cheap.", ["HP"]),  # capitals for emphasis are no name; an acronym is
])
def test_names_of_the_english_source(source, names):
    from corpus.codemix import source_proper_nouns
    from corpus.tokens import tokenize

    assert source_proper_nouns(tokenize(source)) == names


@pytest.mark.parametrize(("translation", "source", "keep_roman", "expected"), [
    # मुझे lang2, Brooklyn ne, का lang2, पिज़्ज़ा lang2, पसंद lang2, है lang2, । other: n 7, u 2, max 5 -> 0
    # (Brooklyn as lang1 would give 100 × (1 − 5/6) = 16.7)
    ("मुझे Brooklyn का पिज़्ज़ा पसंद है।", "I love Brooklyn pizza.", (), 0.0),
    # Brooklyn ne, बढ़िया lang2, है lang2, । other: n 4, u 2, max 2 -> 0 (as lang1: 100 × (1 − 2/3) = 33.3)
    ("Brooklyn बढ़िया है।", "Brooklyn is great.", (), 0.0),
    # Sony ne, का lang2, laptop lang1, अच्छा lang2, है lang2, । other: n 6, u 2, max 3 -> 100 × (1 − 3/4)
    ("Sony का laptop अच्छा है।", "Sony makes a good laptop.", (), 25.0),
    # The lang1 (a common word opening the source), खाना अच्छा lang2, था lang2: n 4, u 0, max 3 -> 25
    ("The खाना अच्छा था", "The food was good", (), 25.0),
    # a keep-Roman glossary term the source does not capitalise: sony ne -> n 3, u 1, max 1 -> 50
    ("sony का phone", "my sony phone", ("Sony",), 50.0),
])
def test_cmi_of_a_translation_with_the_names_of_its_source(translation, source, keep_roman, expected):
    from corpus.codemix import sentence_tags

    assert cmi(sentence_tags(translation, source, keep_roman)) == pytest.approx(expected)


def test_dashboard_and_export_tag_a_sentence_alike():
    from corpus.codemix import named_entities, sentence_tags
    from corpus.export.records import build_sentence
    from corpus.tokens import tokenize

    source, hindi = "I love Brooklyn pizza from Sony's café.", "मुझे Sony के café का Brooklyn पिज़्ज़ा पसंद है।"
    tokens = tokenize(hindi)
    record = build_sentence(
        uid="r/train/1/aware", sentence_id="1", domain="restaurant", split="train", en_text=source, en_aspects=(),
        hi_text=hindi, frozen_tokens=tokens, tags=["O"] * len(tokens), phase="aware", translator="asha",
        proper_nouns=["café"],
    )
    dashboard = sentence_tags(hindi, source, ["café"])
    assert list(record.lid) == dashboard
    assert dashboard[:6] == ["lang2", "ne", "lang2", "ne", "lang2", "ne"]
    assert named_entities(source, ["café"]) == ["café", "Brooklyn", "Sony"]
    assert cmi(record.lid) == cmi(dashboard) == 0.0
