"""Projection suggestions on hand-checked Hindi: each rule (aware maps exact and inflection-tolerant, glossary,
loanword transliteration, the CRF's fill) and what none of them may find."""

from __future__ import annotations

import pytest

from corpus.glossary import GlossaryEntry
from corpus.projection import (
    AWARE,
    CRF,
    GLOSSARY,
    TRANSLITERATION,
    SourceAspect,
    aware_renderings,
    fold,
    project,
    stem,
)
from corpus.tokens import tokenize

A = SourceAspect

# A transliterator for the tests that are not about the real model: the first candidates it would give.
FAKE_TRANSLIT = {"keyboard": ["कीबोर्ड"], "staff": ["स्टाफ", "स्टाफ़"], "battery": ["बैटरी"], "life": ["लाइफ"],
                 "screen": ["स्क्रीन"], "food": ["फूड"], "price": ["प्राइस"], "service": ["सर्विस"]}


def fake(word: str) -> list[str]:
    return FAKE_TRANSLIT.get(word.casefold(), [])


def spans(found):
    return [(p.span, p.source) for p in found]


@pytest.mark.parametrize("text, aspects, expected", [
    # the aware translator's exact words, one token
    ("लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", [A("staff", ("स्टाफ़",))], [((1, 2), AWARE)]),
    # a multi-token aspect
    ("मिसो सूप बेस्वाद था और मछली अच्छी नहीं पकी थी।", [A("miso soup", ("मिसो सूप",)), A("fish", ("मछली",))],
     [((0, 2), AWARE), ((5, 6), AWARE)]),
    # the English term twice: both Hindi occurrences
    ("खाना अच्छा था पर खाना ठंडा था।", [A("food", ("खाना",)), A("food", ("खाना",))],
     [((0, 1), AWARE), ((4, 5), AWARE)]),
    # two aware translators rendered it differently; the blind one used the second rendering
    ("सेवा धीमी थी।", [A("service", ("सर्विस", "सेवा"))], [((0, 1), AWARE)]),
    # the blind translator dropped the aspect (a synonym the map does not know): nothing
    ("लेकिन कर्मचारी हमारे साथ बहुत बुरे थे।", [A("staff", ("स्टाफ़",))], []),
    # a word containing the rendering is not the rendering
    ("स्टाफ़रूम साफ़ था।", [A("staff", ("स्टाफ़",))], []),
])
def test_aware_renderings_found_in_the_blind_tokens(text, aspects, expected):
    assert spans(project(tokenize(text), aspects)) == expected


@pytest.mark.parametrize("text, rendering, expected_span", [
    ("पर स्टाफ हमारे साथ बेहद बुरा था।", "स्टाफ़", (1, 2)),               # nukta dropped
    ("इसकी बैटरियाँ जल्दी खत्म होती हैं।", "बैटरी", (1, 2)),               # feminine plural ending
    ("इसकी बैटरियां जल्दी खत्म होती हैं।", "बैटरी", (1, 2)),               # the plural with anusvara
    ("सीटों पर दाग थे।", "सीटें", (0, 1)),                                 # plural direct -> oblique
    ("ताज़ी सब्ज़ियाँ मिलीं।", "ताज़ा सब्ज़ी", (0, 2)),                       # gender and number on both words
    ("मॉनिटर के दांत जैसे किनारे", "मॉनीटर", (0, 1)),                       # long/short vowel spelled otherwise
])
def test_inflected_and_respelled_forms_are_found_with_lower_confidence(text, rendering, expected_span):
    found = project(tokenize(text), [A("x", (rendering,))])
    assert [(p.span, p.source, p.exact) for p in found] == [(expected_span, AWARE, False)]
    assert found[0].confidence < 0.95


def test_an_exact_match_wins_over_a_folded_one_of_another_rendering():
    found = project(tokenize("स्टाफ़ और स्टाफ"), [A("staff", ("स्टाफ",))])
    assert [(p.span, p.exact, p.confidence) for p in found] == [((2, 3), True, 0.95)]


def test_more_hindi_occurrences_than_english_ones_keeps_the_first_with_less_confidence():
    # "we had to eat the food": खाना is the noun, then the verb
    found = project(tokenize("हमें खाना खाना पड़ा।"), [A("food", ("खाना",))])
    assert [(p.span, p.confidence) for p in found] == [((1, 2), 0.475)]


def test_glossary_is_used_when_no_aware_translator_mapped_the_aspect():
    glossary = [GlossaryEntry("hard drives", "हार्ड ड्राइव")]
    found = project(tokenize("इसकी हार्ड ड्राइव धीमी है।"), [A("hard drive")], glossary=glossary)
    assert [(p.span, p.source, p.confidence) for p in found] == [((1, 3), GLOSSARY, 0.9)]


def test_aware_maps_come_before_the_glossary():
    glossary = [GlossaryEntry("staff", "स्टाफ़")]
    found = project(tokenize("कर्मचारी और स्टाफ़"), [A("staff", ("कर्मचारी",))], glossary=glossary)
    assert spans(found) == [((0, 1), AWARE)]


def test_a_loanword_aspect_is_found_by_its_transliteration():
    from corpus.transliterate import suggest

    found = project(tokenize("इस लैपटॉप का कीबोर्ड बहुत आरामदायक है।"), [A("keyboard")], transliterate=suggest)
    assert [(p.span, p.source, p.exact) for p in found] == [((3, 4), TRANSLITERATION, True)]


@pytest.mark.parametrize("text, term, expected_span", [
    ("बैटरी लाइफ़ शानदार है।", "battery life", (0, 2)),    # each word transliterated, nukta folded
    ("स्क्रीनें चमकदार हैं।", "screens", (0, 1)),           # the singular's transliteration, Hindi plural
    ("Windows धीमा है।", "Windows", (0, 1)),               # a name kept in Roman script (guideline 1)
])
def test_transliteration_rule(text, term, expected_span):
    found = project(tokenize(text), [A(term)], transliterate=fake)
    assert [(p.span, p.source) for p in found] == [(expected_span, TRANSLITERATION)]


def test_crf_fills_only_where_no_rule_put_a_span():
    tokens = tokenize("स्टाफ़ अच्छा था और पिज़्ज़ा भी।")
    found = project(tokens, [A("staff", ("स्टाफ़",))], crf=[(0, 2, 0.6), (4, 5, 0.7)])
    assert [(p.span, p.source, p.confidence) for p in found] == [((0, 1), AWARE, 0.95), ((4, 5), CRF, 0.7)]


def test_a_source_switched_off_is_never_used():
    tokens = tokenize("इसका कीबोर्ड अच्छा है।")
    glossary = [GlossaryEntry("keyboard", "कीबोर्ड")]
    assert spans(project(tokens, [A("keyboard")], glossary=glossary, transliterate=fake,
                         sources=(AWARE, TRANSLITERATION))) == [((1, 2), TRANSLITERATION)]
    assert project(tokens, [A("keyboard", ("कीबोर्ड",))], glossary=glossary, transliterate=fake,
                   crf=[(1, 2, 0.9)], sources=()) == []


def test_spans_already_suggested_by_the_items_own_map_are_left_alone():
    tokens = tokenize("मिसो सूप और सूप")
    found = project(tokens, [A("soup", ("सूप",))], taken=[(0, 2)])
    assert spans(found) == [((3, 4), AWARE)]


def test_fold_and_stem():
    assert fold("खण्ड") == fold("खंड")
    assert fold("माँ") == fold("मां")
    assert fold("ज़रूरी") == fold("जरूरी")
    assert stem("बैटरियाँ") == stem("बैटरी") == stem("बैटरियों")
    assert stem("अच्छा") == stem("अच्छे") == stem("अच्छी")
    assert stem("था") == fold("था")  # a stem keeps two characters


def test_aware_renderings_are_the_texts_of_the_mapped_spans():
    text = "मिसो सूप में स्वाद नहीं था और मछली पहले जैसी नहीं थी।"
    assert aware_renderings(text, [(0, 8), None, (30, 34)]) == ("मिसो सूप", "मछली")


@pytest.mark.parametrize("text, term", [
    ("खाने की कीमत ठीक थी।", "key"),          # key → की, the postposition
    ("सब कुछ धीमा था।", "usb"),               # usb → सब
])
def test_a_transliteration_that_spells_a_function_word_is_no_suggestion(text, term):
    from corpus.transliterate import suggest

    assert project(tokenize(text), [A(term)], transliterate=suggest) == []


def test_a_term_twice_in_english_uses_the_renderings_of_both_occurrences():
    # "we waited long for the food, but the food was worth it": खाने, then खाना
    aspects = [A("food", ("खाने",)), A("food", ("खाना",))]
    found = project(tokenize("खाने के लिए बहुत इंतज़ार किया पर खाना अच्छा था।"), aspects)
    assert [(p.span, p.exact, p.confidence) for p in found] == [((0, 1), True, 0.95), ((7, 8), True, 0.95)]


def test_an_exact_occurrence_and_an_inflected_one_of_a_term_twice_in_english():
    found = project(tokenize("कुर्सी टूटी थी और कुर्सियाँ गंदी थीं।"), [A("chair", ("कुर्सी",)), A("chair", ("कुर्सी",))])
    assert [(p.span, p.exact) for p in found] == [((0, 1), True), ((4, 5), False)]


def test_a_longer_term_takes_its_words_before_a_shorter_one_looks():
    aspects = [A("camera", ("कैमरा",)), A("camera app", ("कैमरा ऐप",))]
    found = project(tokenize("कैमरा अच्छा है और कैमरा ऐप भी तेज़ है।"), aspects)
    assert [(p.span, p.term, p.confidence) for p in found] == [((0, 1), "camera", 0.95), ((4, 6), "camera app", 0.95)]
