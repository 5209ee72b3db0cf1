"""Guidelines: a version line is required, and the blind phase never gets the aware-only parts."""

from __future__ import annotations

import os
import re

import pytest

from corpus import guidelines
from corpus.guidelines import guidelines_version, load_guidelines

AWARE_BLOCK = "<!-- aware-only -->\n## Highlighted terms\n\nMap every aspect term.\n<!-- /aware-only -->\n"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setattr(guidelines, "GUIDELINES_DIR", tmp_path)

    def write(name: str, text: str) -> None:
        (tmp_path / f"{name}.md").write_text(text, encoding="utf-8")

    return write


def test_version_and_body_are_read(folder):
    folder("rules", "version: 2.1-beta\n\n\n# Rules\n\nWrite Hindi.\n")
    assert load_guidelines("rules") == ("2.1-beta", "# Rules\n\nWrite Hindi.\n")
    assert guidelines_version("rules") == "2.1-beta"


@pytest.mark.parametrize(
    "text",
    ["# Rules\nversion: 1.0\n", "Version: 1.0\n# Rules\n", "version:\n# Rules\n", "version:\n1.0\n# Rules\n",
     "version: 1.0"],
    ids=["not-first", "capitalised", "empty", "on-the-next-line", "no-newline"],
)
def test_a_version_line_is_required(folder, text):
    folder("rules", text)
    with pytest.raises(ValueError, match=r"rules\.md:1: guidelines must start with a 'version: X' line"):
        load_guidelines("rules")


def test_a_version_too_long_to_store_is_refused(folder):
    folder("rules", "version: " + "9" * 41 + "\n# Rules\n")
    with pytest.raises(ValueError, match=r"rules\.md:1: .*at most 40"):
        load_guidelines("rules")


def test_blind_phase_leaves_out_aware_only_parts(folder):
    folder("rules", "version: 1\n# Rules\n\nBe faithful.\n\n" + AWARE_BLOCK + "\nKeep names in Roman.\n")
    _, blind = load_guidelines("rules", phase="blind")
    assert blind == "# Rules\n\nBe faithful.\n\n\nKeep names in Roman.\n"
    for phase in ("aware", None):
        _, body = load_guidelines("rules", phase=phase)
        assert "Map every aspect term." in body and "Keep names in Roman." in body
        assert "aware-only" not in body  # the markers themselves are never shown


def test_an_edited_file_is_read_again(folder):
    folder("rules", "version: 1\nOld.\n")
    assert load_guidelines("rules")[0] == "1"
    path = guidelines.GUIDELINES_DIR / "rules.md"
    stat = path.stat()
    folder("rules", "version: 2\nNew.\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert load_guidelines("rules") == ("2", "New.\n")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("Intro.\n<!-- aware-only -->\nMap every aspect term.\n", r"rules\.md:3: aware-only block is never closed"),
        ("Intro.\n<!-- /aware-only -->\n", r"rules\.md:3: '<!-- /aware-only -->' without an opening"),
        ("<!-- aware-only -->\nA\n<!-- aware-only -->\nB\n<!-- /aware-only -->\n<!-- /aware-only -->\n",
         r"rules\.md:4: aware-only block inside the one opened on line 2"),
    ],
    ids=["unclosed", "stray-close", "nested"],
)
def test_unbalanced_aware_only_markers_are_refused_rather_than_leaked(folder, body, message):
    folder("rules", "version: 1\n" + body)
    with pytest.raises(ValueError, match=message):
        load_guidelines("rules", phase="blind")


def test_the_projects_blind_translation_guidelines_never_mention_aspects():
    version, blind = load_guidelines("translation", phase="blind")
    _, aware = load_guidelines("translation", phase="aware")
    assert version == guidelines_version("translation")
    assert not re.search(r"aspect|highlight", blind, re.IGNORECASE)
    assert re.search(r"aspect|highlight", aware, re.IGNORECASE)  # so the block really was removed
