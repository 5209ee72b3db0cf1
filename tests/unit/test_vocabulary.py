"""Statuses, roles, phases and gold sources are named once, in corpus/vocabulary.py."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

from corpus.vocabulary import RECORD_STATUSES, GoldSource, Phase, Role, Status, check_in

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("corpus", "db", "pages", "ui", "cli", "bench")


def status_literals(source: str) -> list[int]:
    """Lines holding a string literal that is exactly a status (a status inside a longer text is prose)."""
    statuses = {str(s) for s in Status}
    return [tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(source).readline)
            if tok.type == tokenize.STRING and tok.string[:1] in "\"'" and tok.string[1:-1] in statuses]


def test_no_status_is_spelled_out_outside_the_vocabulary_and_the_migrations():
    found = []
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "migrations" in path.parts or path.name == "vocabulary.py":
                continue
            found += [f"{path.relative_to(ROOT)}:{line}" for line in status_literals(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_literal_scan_finds_a_status_but_not_prose():
    assert status_literals('x = "submitted"\ny = "not submitted yet"\nz = f"{a}"\n') == [1]


def test_members_are_the_stored_strings():
    assert Status.SUBMITTED == "submitted" and f"{Status.DRAFT}" == "draft"
    assert {Status.ASSIGNED: 1}["assigned"] == 1
    assert [str(r) for r in Role] == ["translator", "annotator", "lead", "admin"]
    assert [str(p) for p in Phase] == ["aware", "blind"]
    assert GoldSource.WITHDRAWN == "withdrawn"


def test_check_constraints_are_built_from_the_enums():
    assert check_in("status", RECORD_STATUSES) == "status IN ('draft', 'submitted')"
    assert check_in("phase", Phase) == "phase IN ('aware', 'blind')"
