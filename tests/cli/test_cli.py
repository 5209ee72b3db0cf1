"""`python -m corpus`: exit codes, `WHERE: message` errors, and the interface commands. The commands run in
this process (a new interpreter costs about a second of CPU each); test_export_cli.py runs the module entry
point itself."""

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from types import SimpleNamespace

from cli import main
from tests.support.databases import copy_of

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures" / "semeval"


def run(db, *args):
    """What `python -m corpus --db DB ARGS` returns and prints."""
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["--db", str(db), *args])
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def test_import_prints_counts_and_reimport_adds_nothing(sqlite_url):
    assert run(sqlite_url, "init").returncode == 0
    first = run(sqlite_url, "import-semeval", str(FIXTURES / "quirks_laptop.xml"), "--domain", "laptop", "--split", "train")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "imported 8 sentences, 8 aspect terms"
    again = run(sqlite_url, "import-semeval", str(FIXTURES / "quirks_laptop.xml"), "--domain", "laptop", "--split", "train")
    assert again.stdout.strip() == "imported 0 sentences, 0 aspect terms"


def test_offset_mismatch_exits_nonzero_with_where_and_sentence_ids(sqlite_url):
    result = run(sqlite_url, "import-semeval", str(FIXTURES / "offset_mismatch.xml"), "--domain", "laptop", "--split", "test")
    assert result.returncode != 0
    lines = result.stderr.splitlines()
    assert lines[0].startswith(f"{FIXTURES / 'offset_mismatch.xml'}:6 sentence 201: offset mismatch")
    assert "sentence 202" in lines[1]
    stats = json.loads(run(sqlite_url, "stats", "--json").stdout)
    assert stats["english"]["sentences"] == 0  # not even the file's valid sentence 203


def test_missing_file_is_a_located_error(sqlite_url):
    result = run(sqlite_url, "import-work", "/nonexistent/work.jsonl")
    assert result.returncode != 0
    assert result.stderr.startswith("/nonexistent/work.jsonl: cannot read file")


def test_dump_import_dump_byte_identical_through_the_cli(tmp_path):
    a, b = f"sqlite:///{tmp_path / 'a.db'}", f"sqlite:///{tmp_path / 'b.db'}"
    assert run(a, "init", "--demo").returncode == 0
    assert run(a, "dump-work", str(tmp_path / "one.jsonl")).returncode == 0
    result = run(b, "import-work", str(tmp_path / "one.jsonl"))
    assert result.returncode == 0, result.stderr
    assert run(b, "dump-work", str(tmp_path / "two.jsonl")).returncode == 0
    assert (tmp_path / "one.jsonl").read_bytes() == (tmp_path / "two.jsonl").read_bytes()


def test_stats_json_reports_table_one(demo_sqlite, tmp_path):
    db = copy_of(demo_sqlite, tmp_path / "a.db")  # the demo project, as `init --demo` loads it (tested above)
    stats = json.loads(run(db, "stats", "--json").stdout)
    english = stats["english"]
    assert english["sentences"] == 13
    assert english["aspect_terms"] == 17
    assert english["marked_sentences"] == 11
    assert english["per_domain"] == {"laptop": {"sentences": 6, "aspect_terms": 8},
                                     "restaurant": {"sentences": 7, "aspect_terms": 9}}
