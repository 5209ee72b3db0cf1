"""Statuses, phases, roles, gold sources and revision actions are named once, in corpus/vocabulary.py; a phase's
behaviour is read from its spec, not from its name."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from corpus.records import PHASES as RECORD_PHASES
from corpus.records import ROLES as RECORD_ROLES
from corpus.vocabulary import (
    PHASE_SPECS,
    PHASES,
    RECORD_STATUSES,
    SAVE_ACTIONS,
    WORK_ORDER,
    GoldSource,
    Phase,
    RevisionAction,
    Role,
    Status,
    aspect_phases,
    check_in,
    other_phases,
    phase_spec,
)

ROOT = Path(__file__).resolve().parents[2]
PRODUCT = ("corpus", "db", "pages", "ui", "cli", "bench")

#: Each vocabulary the scan covers, and whether its words may also be a record's field name. "translator",
#: "annotator" (roles), "agreed", "accepted" (gold sources) and "save", "import" (actions) name fields and
#: JSON keys too; a literal in a field's place (a dict display's key, a subscript, ``.get``/``.pop``'s key) is
#: a field name there. Statuses and phases have no such double life: every literal is one.
VOCABULARIES: tuple[tuple[type, bool], ...] = (
    (Status, False), (Phase, False), (Role, True), (GoldSource, True), (RevisionAction, True),
)
#: A line may say why a literal that spells a vocabulary word is something else (a username, a filter name).
PRAGMA = "# not-vocabulary:"


def _is_field_name(node: ast.Constant, parent: ast.AST | None) -> bool:
    if isinstance(parent, ast.Dict):
        return any(key is node for key in parent.keys)
    if isinstance(parent, ast.Subscript):
        return parent.slice is node
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute):
        return parent.func.attr in ("get", "pop", "setdefault") and bool(parent.args) and parent.args[0] is node
    return False


def vocabulary_literals(source: str, vocabularies=VOCABULARIES) -> list[tuple[int, str, str]]:
    """(line, vocabulary, word) of each string literal that is exactly a word of a vocabulary (a word inside a
    longer text is prose; an f-string's text is prose)."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    lines = source.splitlines()
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)):
            continue
        parent = parents.get(node)
        if isinstance(parent, ast.JoinedStr) or PRAGMA in lines[node.lineno - 1]:
            continue
        for vocabulary, fields in vocabularies:
            if node.value in {str(member) for member in vocabulary}:
                if not (fields and _is_field_name(node, parent)):
                    found.append((node.lineno, vocabulary.__name__, node.value))
    return sorted(found)


def _product_files():
    for folder in PRODUCT:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "migrations" in path.parts or path.name == "vocabulary.py":
                continue  # a migration keeps the literals of its day; the vocabulary defines them
            yield path.relative_to(ROOT).as_posix(), path


def test_no_vocabulary_word_is_spelled_out_outside_the_vocabulary_and_the_migrations():
    found = [f"{name}:{line}: {vocabulary} {word!r}"
             for name, path in _product_files()
             for line, vocabulary, word in vocabulary_literals(path.read_text(encoding="utf-8"))]
    assert found == []


@pytest.mark.parametrize(("source", "found"), [
    ('x = "submitted"\ny = "not submitted yet"\nz = f"{a}submitted"\n', [(1, "Status", "submitted")]),
    ('if phase == "aware":\n    pass\n', [(1, "Phase", "aware")]),
    ('rouge["units"]["blind"]\n', [(1, "Phase", "blind")]),  # a phase is a phase even as a key
    ('require_role("lead")\n', [(1, "Role", "lead")]),
    ('row = {"translator": name}\nrow["annotator"]\nrow.get("translator")\n', []),  # field names
    ('roles = ("translator", "annotator")\n', [(1, "Role", "annotator"), (1, "Role", "translator")]),
    ('Decision(item, "accepted", tags)\n', [(1, "GoldSource", "accepted")]),
    ('record_revision(s, "annotation", 1, 1, None, "reopen", {})\n', [(1, "RevisionAction", "reopen")]),
    ('users = [("lead", ())]  # not-vocabulary: a username\n', []),
])
def test_the_literal_scan_finds_a_planted_literal_but_not_prose_or_a_field_name(source, found):
    assert vocabulary_literals(source) == found


def test_the_scan_fails_on_a_literal_planted_in_a_product_file():
    path = ROOT / "corpus" / "final_choice.py"
    source = path.read_text(encoding="utf-8")
    assert vocabulary_literals(source) == []
    planted = source.replace("for p in PHASES}, policy)", 'for p in ("aware", "blind")}, policy)')
    assert planted != source
    assert [(v, w) for _, v, w in vocabulary_literals(planted)] == [("Phase", "aware"), ("Phase", "blind")]


def test_members_are_the_stored_strings():
    assert Status.SUBMITTED == "submitted" and f"{Status.DRAFT}" == "draft"
    assert {Status.ASSIGNED: 1}["assigned"] == 1
    assert [str(r) for r in Role] == ["translator", "annotator", "lead", "admin"]
    assert [str(p) for p in Phase] == ["aware", "blind"]
    assert GoldSource.WITHDRAWN == "withdrawn"
    assert [str(a) for a in SAVE_ACTIONS] == ["autosave", "save", "submit"]
    assert {str(a) for a in RevisionAction} == {
        "autosave", "save", "submit", "import", "reopen", "auto", "withdraw", "adjudicate", "confirm", "override",
        "untranslatable"}


def test_records_take_phases_and_roles_from_the_enums_as_plain_strings():
    assert RECORD_PHASES == ("aware", "blind") and RECORD_ROLES == ("translator", "annotator", "lead", "admin")
    assert {type(v) for v in (*RECORD_PHASES, *RECORD_ROLES)} == {str}


def test_check_constraints_are_built_from_the_enums():
    assert check_in("status", RECORD_STATUSES) == "status IN ('draft', 'submitted')"
    assert check_in("phase", Phase) == "phase IN ('aware', 'blind')"


def test_every_phase_has_a_spec_and_the_specs_describe_the_method():
    assert set(PHASE_SPECS) == set(Phase) and PHASES == (Phase.AWARE, Phase.BLIND)
    assert WORK_ORDER == (Phase.BLIND, Phase.AWARE)  # blind first: a translator who saw the aspects is not blind
    assert phase_spec("aware").shows_source_aspects and not phase_spec(Phase.BLIND).shows_source_aspects
    assert phase_spec(Phase.AWARE).opens_after == Phase.BLIND and phase_spec(Phase.BLIND).opens_after is None
    assert aspect_phases() == (Phase.AWARE,) and aspect_phases(shown=False) == (Phase.BLIND,)
    assert other_phases(Phase.BLIND) == (Phase.AWARE,)
    assert [phase_spec(p).label for p in PHASES] == ["aspect-aware", "aspect-blind"]


def test_an_unknown_phase_has_no_spec():
    with pytest.raises(ValueError, match="'both'"):
        phase_spec("both")
