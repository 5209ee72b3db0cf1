"""Every public function of corpus/, db/ and ui/ is called by the product, or ARCHITECTURE.md says why only tests
call it (its table "Public functions used only by tests, and why they stay")."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.unused_public import ROOT, unused_public

SECTION = "### Public functions used only by tests, and why they stay"


def justified(text: str) -> set[str]:
    """The dotted names in the first column of the section's table."""
    section = text.split(SECTION, 1)[1].split("\n#", 1)[0]
    names: set[str] = set()
    for line in section.splitlines():
        if line.startswith("| `"):
            first = line.split("|")[1]
            names.update(n for n in re.findall(r"`([A-Za-z_][\w.]*)`", first) if n.split(".")[0] in ("corpus", "db", "ui"))
    return names


def test_a_function_only_tests_call_is_justified_in_the_architecture():
    found = unused_public()
    listed = justified((ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8"))
    unexplained = {name: tests or ["called by nothing: remove it"] for name, tests in found.items() if name not in listed}
    assert unexplained == {}, "remove these, or say in ARCHITECTURE.md why they stay"
    assert sorted(listed - set(found)) == [], "the product calls these now (or they are gone): drop them from the table"


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return tmp_path


def test_the_scan_finds_what_only_tests_or_nothing_calls(tmp_path):
    root = _tree(tmp_path, {
        "corpus/rules.py": "def used():\n    return 1\n\n\ndef for_tests():\n    return helper()\n\n\n"
                           "def helper():\n    return 2\n\n\ndef _private():\n    pass\n\n\ndef dead():\n"
                           '    """dead() mentions itself."""\n',
        "pages/p.py": "from corpus.rules import used\n\nused()\n",
        "tests/unit/test_rules.py": "from corpus.rules import for_tests\n",
    })
    assert unused_public(root) == {
        "corpus.rules.dead": [],
        "corpus.rules.for_tests": ["tests/unit/test_rules.py"],
        "corpus.rules.helper": [],  # called only from inside a function nothing in the product calls
    }


def test_the_table_is_read_from_its_first_column(tmp_path):
    text = (f"{SECTION}\n\n| function | why |\n|---|---|\n| `corpus.a.f`, `db.b.g` | because `ui.c.h` |\n"
            "| `downgrade` in `db/migrations/x.py` | Alembic |\n\n## Next\n| `corpus.z.z` | no |\n")
    assert justified(text) == {"corpus.a.f", "db.b.g"}
