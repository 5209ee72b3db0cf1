"""Control characters inside a translation (issue 28): a save puts the text on one line, a work file that
holds a line break or a tab in a translation is refused with the file, line, sentence and field."""

from __future__ import annotations

import json
import unicodedata

import pytest

from corpus.text_controls import line_break_in, one_line_text
from corpus.workfile import parse_work_file


@pytest.mark.parametrize(
    ("raw", "stored"),
    [
        ("पनीर ठंडा था।", "पनीर ठंडा था।"),
        ("पनीर\r\nठंडा", "पनीर ठंडा"),  # CR LF is one break: one space
        ("पनीर\rठंडा\nथा", "पनीर ठंडा था"),
        ("a\tb\x0bc\x0cd\x1ce\x1df\x1eg\x85h\u2028i\u2029j", "a b c d e f g h i j"),
        ("a\x00b\x07c\x1bd\x1fe\x7ff\x80g\x9fh", "abcdefgh"),
        ("a\n\nb", "a  b"),  # spaces are not collapsed
        ("स्\u200dटा\u200cफ़ \u200fx", "स्\u200dटा\u200cफ़ \u200fx"),  # ZWJ, ZWNJ and bidi marks are not controls
        ("\u00a0x\u00a0", "\u00a0x\u00a0"),
    ],
    ids=["plain", "crlf", "cr-and-lf", "every-break", "other-controls", "no-collapse", "joiners-kept", "nbsp-kept"],
)
def test_a_saved_translation_has_spaces_for_breaks_and_no_control(raw, stored):
    assert one_line_text(raw) == stored
    assert one_line_text(stored) == stored
    assert not any(unicodedata.category(c) in ("Cc", "Zl", "Zp") for c in stored)


def test_every_character_str_splitlines_breaks_on_becomes_a_space():
    breaks = [chr(c) for c in range(0x3000) if len(f"a{chr(c)}b".splitlines()) == 2]
    assert len(breaks) == 10
    for char in breaks:
        assert one_line_text(f"a{char}b") == "a b", hex(ord(char))
        assert (line_break_in(f"a{char}b") is None) == (char in "\u2028\u2029"), hex(ord(char))


def test_line_break_in_names_the_character_and_its_position():
    assert line_break_in("पनीर ठंडा") is None
    assert line_break_in("पनीर\x00") is None  # check_string's to refuse
    assert line_break_in("ab\rcd\n") == "U+000D (carriage return) at position 2"
    assert line_break_in("ab\tcd") == "U+0009 (tab) at position 2"


def _work_file(*translations: str) -> bytes:
    lines = [{"type": "sentence", "id": "s1", "domain": "restaurant", "split": "train", "text": "Good food."}]
    lines += [{"type": "translation", "sentence_id": "s1", "phase": "blind", "translator": f"t{i}", "text": text,
               "untranslatable": False} for i, text in enumerate(translations)]
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode()


def test_a_work_file_translation_with_a_line_break_is_refused_with_file_line_sentence_and_field():
    _, errors = parse_work_file(_work_file("अच्छा खाना", "अच्छा\r\nखाना", "अच्छा\tखाना", "अच्छा\nखाना",
                                           "अच्छा\u2028खाना"), "work.jsonl")
    assert [(e.file, e.line, e.sentence_id) for e in errors] == [
        ("work.jsonl", 3, "s1"), ("work.jsonl", 4, "s1"), ("work.jsonl", 5, "s1")]
    assert "field 'text' contains U+000D (carriage return) at position 5" in errors[0].message
    assert "U+0009 (tab) at position 5" in errors[1].message
    assert "U+000A (line feed) at position 5" in errors[2].message
    assert str(errors[0]).startswith("work.jsonl:3 sentence s1: field 'text'")


def test_a_work_file_of_one_line_translations_is_read():
    work, errors = parse_work_file(_work_file("अच्छा खाना"), "work.jsonl")
    assert errors == [] and [t.text for t in work.translations] == ["अच्छा खाना"]


def test_a_translation_stored_with_line_breaks_dumps_into_a_work_file_its_import_accepts():
    """Saves made translations one line only lately: older rows may hold CR LF; the dump writes each break as
    one space (length kept, so the aspect map still points at the same words) and the import takes it."""
    import json

    from corpus.records import AspectLink, SentenceKey, TranslationRecord
    from corpus.text_controls import breaks_as_spaces
    from corpus.workfile import parse_work_file, translation_object

    assert breaks_as_spaces("खाना\r\nअच्छा\tथा") == "खाना  अच्छा था"
    key = SentenceKey("restaurant", "train", "3121")
    old = TranslationRecord(key, "aware", "asha", "लेकिन\r\nस्टाफ़ बुरा था।",
                            aspect_map=(AspectLink(0, 7, 13),))
    sentence = {"type": "sentence", "id": "3121", "domain": "restaurant", "split": "train",
                "text": "But the staff was bad.", "aspects": [{"term": "staff", "from": 8, "to": 13}]}
    line = json.dumps(translation_object(old), ensure_ascii=False)
    work, errors = parse_work_file((json.dumps(sentence) + "\n" + line + "\n").encode(), "w.jsonl")
    assert errors == []
    stored = work.translations[0]
    assert stored.text == "लेकिन  स्टाफ़ बुरा था।"
    assert stored.text[7:13] == "स्टाफ़"
