"""The command line starts without the heavy libraries: its top import and `--help` import neither them nor
SQLAlchemy, and `import-semeval` and `stats` on a database at head import no numerical library and not
Alembic (the schema check is a read; `stats` of a corpus with no final translation reads no gold). What every
command shares (the engine with its write rules, the schema check) imports neither SQLAlchemy's ORM nor the
models: `init` of a database at head shows it; nor do `import-semeval` and `stats`, which read and write the
Core tables (``db.tables``). What is imported is checked, never how long it takes
(bench/bench_cli_startup.py prints the times). Each case is a fresh interpreter, as `python -m corpus` is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "semeval"

#: Libraries (and modules of ours) that a command imports only when its work needs them.
NUMERICAL = ("numpy", "pandas", "scipy", "statsmodels", "rouge_score", "sklearn", "sklearn_crfsuite", "pycrfsuite",
             "seqeval")
HEAVY = (*NUMERICAL, "alembic", "indic_transliteration", "streamlit", "altair", "corpus.baseline")
#: ``import-semeval`` does not tokenize: ``corpus.tokens`` compiles its patterns (``regex``) on first use.
NOT_FOR_IMPORT = (*HEAVY, "regex")
#: SQLAlchemy's ORM and our mapped classes (about two fifths of a command's start-up): for commands that map rows.
ORM = ("sqlalchemy.orm", "db.models")

_PROBE = """
import contextlib, io, json, sys
sys.path.insert(0, {root!r})
import cli, cli.commands
cli.commands.build_parser()
argv = {argv!r}
if argv is not None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
        try:
            code = cli.commands.main(argv)
        except SystemExit as exc:  # --help
            code = exc.code
    if code not in (0, None):
        raise SystemExit(f"exit {{code}}: {{err.getvalue()}}")
names = {names!r}
print(json.dumps(sorted(m for m in sys.modules if m in names or m.split(".")[0] in names)))
"""


def imported(argv: list[str] | None, names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` (packages or modules) a fresh interpreter holds after importing the command line,
    building its parser and (``argv``) running one command."""
    done = subprocess.run([sys.executable, "-c", _PROBE.format(root=str(ROOT), argv=argv, names=names)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_top_import_and_the_parser_import_nothing_heavy_nor_sqlalchemy():
    assert imported(None, (*HEAVY, "sqlalchemy")) == []


@pytest.mark.parametrize("argv", [["metrics", "--help"], ["--help"], ["stats", "--help"], ["baseline", "--help"]])
def test_help_imports_nothing_heavy_nor_sqlalchemy(argv):
    names = (*HEAVY, "sqlalchemy")
    if argv[0] == "baseline":  # its option defaults are corpus.baseline's, read when its help is asked for
        names = tuple(n for n in names if n != "corpus.baseline")
    assert imported(argv, names) == []


def test_the_probe_sees_what_a_command_imports():
    """(The probe itself: the baseline's help reads its defaults from corpus.baseline.)"""
    assert imported(["baseline", "--help"], ("corpus.baseline",)) == ["corpus.baseline"]


def test_import_semeval_on_a_database_at_head_imports_no_numerical_library_nor_alembic_nor_regex_nor_the_orm(
        sqlite_url):
    from cli import main

    assert main(["--db", sqlite_url, "init"]) == 0  # migrated here, so the command below finds it at head
    argv = ["--db", sqlite_url, "import-semeval", str(FIXTURES / "quirks_laptop.xml"), "--domain", "laptop",
            "--split", "train"]
    assert imported(argv, (*NOT_FOR_IMPORT, *ORM)) == []


def test_stats_of_a_corpus_without_translations_imports_no_numerical_library_nor_alembic_nor_the_orm(sqlite_url):
    from cli import main

    assert main(["--db", sqlite_url, "init"]) == 0
    assert main(["--db", sqlite_url, "import-semeval", str(FIXTURES / "quirks_laptop.xml"), "--domain", "laptop",
                 "--split", "train"]) == 0
    assert imported(["--db", sqlite_url, "stats", "--json"], (*HEAVY, *ORM)) == []


def test_the_engine_its_write_rules_and_the_schema_check_import_neither_the_orm_nor_the_models(sqlite_url):
    """`init` of a database at head is the start every command shares and nothing else: the engine (with the
    write rules' listener) and the schema check."""
    from cli import main

    assert main(["--db", sqlite_url, "init"]) == 0
    assert imported(["--db", sqlite_url, "init"], (*ORM, "alembic")) == []


def test_the_probe_sees_the_orm_when_a_command_maps_rows(sqlite_url, tmp_path):
    """(The probe itself: `dump-work` reads the work through a session of the mapped tables.)"""
    from cli import main

    assert main(["--db", sqlite_url, "init"]) == 0
    assert main(["--db", sqlite_url, "import-semeval", str(FIXTURES / "quirks_laptop.xml"), "--domain", "laptop",
                 "--split", "train"]) == 0
    assert imported(["--db", sqlite_url, "dump-work", str(tmp_path / "work.json")], ORM) == sorted(ORM)
