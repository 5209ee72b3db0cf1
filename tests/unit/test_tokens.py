"""The canonical tokenizer (docs/contracts.md): table-driven over Devanagari, Roman, mixed and punctuation."""

import re

import pytest

from corpus.tokens import TOKENIZER_SIGNATURE, is_word, normalize, tokenize, tokenize_with_offsets, words

NUKTA_PRECOMPOSED = "\u095b"  # ज़ as one code point
NUKTA_DECOMPOSED = "\u091c\u093c"  # ज + ़

CASES = [
    ("matras stay inside the word", "खाना", ["खाना"]),
    ("virama joins a conjunct", "स्टाफ़ अच्छा", ["स्टाफ़", "अच्छा"]),
    ("comma is its own token", "स्टाफ़, लेकिन", ["स्टाफ़", ",", "लेकिन"]),
    ("apostrophe splits Roman words", "Joe's", ["Joe", "'", "s"]),
    ("danda is its own token", "खाना अच्छा था।", ["खाना", "अच्छा", "था", "।"]),
    ("double danda", "ठीक है॥", ["ठीक", "है", "॥"]),
    ("nukta precomposed becomes NFC", f"{NUKTA_PRECOMPOSED}रूर", [f"{NUKTA_DECOMPOSED}रूर"]),
    ("nukta decomposed stays", f"{NUKTA_DECOMPOSED}रूर", [f"{NUKTA_DECOMPOSED}रूर"]),
    ("ZWJ stays inside the word", "क्\u200dष", ["क्\u200dष"]),
    ("ZWNJ stays inside the word", "क्\u200cष", ["क्\u200cष"]),
    ("Devanagari digits", "२०२१ में", ["२०२१", "में"]),
    ("mixed scripts", "Sony का laptop बढ़िया है", ["Sony", "का", "laptop", "बढ़िया", "है"]),
    ("hyphen splits a transliteration", "की-बोर्ड", ["की", "-", "बोर्ड"]),
    ("leading NBSP is space", "\xa0The cord", ["The", "cord"]),
    ("punctuation run splits", "wow!!!", ["wow", "!", "!", "!"]),
    ("quotes and parentheses", '("ok")', ["(", '"', "ok", '"', ")"]),
    ("symbol and emoji", "₹500 👍", ["₹", "500", "👍"]),
    ("empty text", "", []),
    ("only spaces", "  \t\n ", []),
    ("html is just characters", "<b>", ["<", "b", ">"]),
]


@pytest.mark.parametrize("name,text,expected", CASES, ids=[c[0] for c in CASES])
def test_canonical_tokens(name, text, expected):
    assert tokenize(text) == expected


def test_python_word_regex_would_split_devanagari_but_ours_does_not():
    assert re.findall(r"\w+", "खाना") == ["ख", "न"]
    assert tokenize("खाना") == ["खाना"]


@pytest.mark.parametrize("text", ["\xa0लेकिन स्टाफ़, Joe's", f"{NUKTA_PRECOMPOSED}रा सा।", "a  b"])
def test_offsets_point_into_the_normalized_text(text):
    normalized = normalize(text)
    for token in tokenize_with_offsets(text):
        assert normalized[token.start:token.end] == token.text


def test_words_drop_punctuation_and_casefold():
    assert words("Staff, STAFF। 5 stars!") == ["staff", "staff", "5", "stars"]


@pytest.mark.parametrize("token,expected", [("खाना", True), ("।", False), (",", False), ("२", True), ("\u093e", False)])
def test_is_word(token, expected):
    assert is_word(token) is expected


def test_signature_names_tokenizer_and_version():
    assert TOKENIZER_SIGNATURE == "hi-canon/1.0"
