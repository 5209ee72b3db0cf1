"""Glossary consistency warnings (gentle) and suggestions."""

from __future__ import annotations

import pytest

from corpus.glossary import GlossaryEntry, check_translation, loose_key, mentions, suggestions, validate_entry

KEYBOARD = GlossaryEntry("keyboard", "कीबोर्ड")
SOY = GlossaryEntry("soy sauce", "सोया सॉस")
SONY = GlossaryEntry("Sony", "Sony", "keep-roman")
ENTRIES = [KEYBOARD, SOY, SONY]


@pytest.mark.parametrize(
    ("translation", "kinds"),
    [
        ("कीबोर्ड अच्छा है", []),
        ("कीबोर्डों में धूल है", []),  # Hindi inflection on the team's spelling is fine
        ("keyboard अच्छा है", ["roman"]),
        ("Keyboards अच्छे हैं", ["roman"]),
        ("किबोर्ड अच्छा है", ["spelling"]),
        ("कीबौर्ड अच्छा है", ["spelling"]),
        ("सोया सोस अच्छी थी", ["spelling"]),
        ("सोया सॉस अच्छी थी", []),
        ("", []),
        ("   ", []),
    ],
)
def test_transliterated_terms(translation, kinds):
    assert [w.kind for w in check_translation(translation, ENTRIES)] == kinds


def test_keep_roman_names_only_when_the_source_names_them():
    source = "My Sony keyboard broke."
    assert [w.kind for w in check_translation("मेरा सोनी कीबोर्ड टूट गया", ENTRIES, source)] == ["not-roman"]
    assert check_translation("मेरा Sony कीबोर्ड टूट गया", ENTRIES, source) == []
    assert check_translation("मेरा कीबोर्ड टूट गया", ENTRIES, "My keyboard broke.") == []


def test_warning_messages_name_the_team_spelling():
    [w] = check_translation("keyboard", ENTRIES)
    assert "कीबोर्ड" in w.message and "rule 2" in w.message


def test_unrelated_words_do_not_warn():
    assert check_translation("किताब अच्छी है और कीमत ठीक है", ENTRIES) == []


def test_suggestions_in_sentence_order_whole_words_any_case():
    assert suggestions("Soy sauce and a SONY keyboard", ENTRIES) == [SOY, SONY, KEYBOARD]
    assert suggestions("keyboardist", ENTRIES) == []


def test_mentions_and_loose_key():
    assert mentions("two Keyboards here", "keyboard") == ["Keyboards"]
    assert loose_key("कीबोर्ड") == loose_key("किबोर्ड")
    assert loose_key("मॉनिटर") == loose_key("मोनिटर")


def test_validate_entry():
    assert validate_entry("  soy   sauce ", "सोया  सॉस", "transliterate") == SOY
    assert validate_entry("Sony", "", "keep-roman") == SONY
    with pytest.raises(ValueError, match="Devanagari"):
        validate_entry("keyboard", "keyboard", "transliterate")
    with pytest.raises(ValueError, match="rule"):
        validate_entry("keyboard", "कीबोर्ड", "translate")
    with pytest.raises(ValueError, match="empty"):
        validate_entry(" ", "कीबोर्ड", "transliterate")
