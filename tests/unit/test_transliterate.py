"""Roman → Devanagari typing help: Hindi-friendly output from every offered scheme."""

from __future__ import annotations

import unicodedata

import pytest

from corpus.transliterate import DEFAULT_SCHEME, SCHEME_KEYS, SCHEMES, cheat_sheet, scheme_label, to_devanagari


@pytest.mark.parametrize(
    ("roman", "scheme", "hindi"),
    [
        ("kIborD", "itrans", "कीबोर्ड"),  # no virama on the final consonant
        ("blUTUtha", "itrans", "ब्लूटूथ"),
        ("mOniTar", "itrans", "मॉनिटर"),  # one candra-O sign, not ा + ॅ
        ("mA.cniTar", "itrans", "मॉनिटर"),
        ("khAnA bahuta achChA thA.", "itrans", "खाना बहुत अच्छा था।"),
        ("2 pleTa", "itrans", "2 प्लेट"),  # digits stay Western
        ("{Sony} kA laipaTOp", "itrans", "Sony का लैपटॉप"),  # braces keep Roman
        ("paDha.D", "itrans", "पढड़"),  # nukta letter at the end keeps no virama
        ("kIborD", "hk", "कीबोर्ड"),
        ("kiiborD", "optitrans", "कीबोर्ड"),
        ("kiibor.d", "velthuis", "कीबोर्ड"),
        ("kīborḍ", "iast", "कीबोर्ड"),
        ("", "itrans", ""),
    ],
)
def test_to_devanagari(roman, scheme, hindi):
    out = to_devanagari(roman, scheme)
    assert out == hindi
    assert out == unicodedata.normalize("NFC", out)


def test_conjunct_inside_a_word_keeps_its_virama():
    assert to_devanagari("sTAf", "itrans") == "स्टाफ़"


def test_unknown_scheme_is_an_error_naming_the_choices():
    with pytest.raises(ValueError, match="itrans"):
        to_devanagari("a", "klingon")


def test_default_scheme_is_typeable_ascii():
    assert DEFAULT_SCHEME in SCHEME_KEYS and scheme_label(DEFAULT_SCHEME) == "ITRANS"
    assert len(SCHEMES) == len(SCHEME_KEYS)


@pytest.mark.parametrize("scheme", SCHEME_KEYS)
def test_every_scheme_has_a_cheat_sheet_whose_examples_convert(scheme):
    rows = cheat_sheet(scheme)
    assert rows
    for row in rows:
        assert row["gives"]
        example = row["type"].split("  ")[0]
        if " " not in row["gives"] and "/" not in row["gives"]:
            assert to_devanagari(example, scheme) == row["gives"], row
