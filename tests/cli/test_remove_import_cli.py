"""`import-semeval --allow-duplicates` and `remove-import` on the command line (docs/cli.md): a train file
imported as test is refused with the first ids, exit 1; the split is removed, or refused with what has
work, each as one line and the documented exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli.commands import main

FIXTURE = str(Path(__file__).parents[1] / "fixtures" / "semeval" / "restaurants_small.xml")


@pytest.fixture
def url(tmp_path):
    db = f"sqlite:///{tmp_path / 'corpus.db'}"
    assert main(["--db", db, "init"]) == 0
    assert main(["--db", db, "import-semeval", FIXTURE, "--domain", "restaurant", "--split", "train"]) == 0
    return db


def test_the_train_file_imported_as_test_is_refused_with_the_first_ids(url, capsys):
    capsys.readouterr()
    assert main(["--db", url, "import-semeval", FIXTURE, "--domain", "restaurant", "--split", "test"]) == 1
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == ""
    assert lines[0].endswith("restaurants_small.xml:3 sentence 3121: its text is already in restaurant/train "
                             "as sentence 3121")
    assert "4 sentence(s) of this file repeat texts already stored in another split of restaurant" in lines[4]
    assert "--allow-duplicates" in lines[4]
    assert lines[-1] == "nothing was written (5 error(s))"
    assert "Traceback" not in err


def test_allow_duplicates_imports_them_flagged(url, capsys):
    capsys.readouterr()
    assert main(["--db", url, "import-semeval", FIXTURE, "--domain", "restaurant", "--split", "test",
                 "--allow-duplicates", "--json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert (report["sentences"], report["flagged"]) == (4, 4)
    assert "4 sentences flagged for review" in err


def test_remove_import_dry_run_says_what_goes_and_removes_nothing(url, capsys):
    capsys.readouterr()
    assert main(["--db", url, "remove-import", "--domain", "restaurant", "--split", "train", "--dry-run"]) == 0
    assert capsys.readouterr().out == ("would remove 4 sentences, 5 aspect terms and 4 aspect categories of "
                                       "restaurant/train\n")
    assert main(["--db", url, "remove-import", "--domain", "restaurant", "--split", "train", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {
        "domain": "restaurant", "split": "train", "sentences": 4, "aspect_terms": 5, "categories": 4,
        "dry_run": False}
    assert main(["--db", url, "remove-import", "--domain", "restaurant", "--split", "train"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == "restaurant/train: no sentences: nothing to remove; nothing was removed\n"
    assert main(["--db", url, "import-semeval", FIXTURE, "--domain", "restaurant", "--split", "test"]) == 0


def test_remove_import_with_work_is_one_line_and_exit_1(tmp_path, capsys):
    db = f"sqlite:///{tmp_path / 'demo.db'}"
    assert main(["--db", db, "init", "--demo"]) == 0
    capsys.readouterr()
    for extra in ([], ["--dry-run"]):
        assert main(["--db", db, "remove-import", "--domain", "laptop", "--split", "train", *extra]) == 1
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1
        assert err.startswith("laptop/train: 6 of its 6 sentences have work on them (a translation, an "
                              "assignment or a final choice; first: ")
    assert main(["--db", db, "stats", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["english"]["sentences"] > 0


def test_remove_import_names_its_options_in_help(capsys):
    with pytest.raises(SystemExit) as done:
        main(["remove-import", "--help"])
    assert done.value.code == 0
    out = capsys.readouterr().out
    assert "--domain" in out and "--split" in out and "--dry-run" in out and "--json" in out


def test_remove_import_on_a_missing_database_file_creates_nothing(tmp_path, capsys):
    missing = tmp_path / "typo" / "corpus.db"
    assert main(["--db", f"sqlite:///{missing}", "remove-import", "--domain", "laptop", "--split", "test"]) == 1
    err = capsys.readouterr().err
    assert err == (f"--db: no database at {missing}; `remove-import` only removes, so it never creates one "
                   "(`python -m corpus init` creates a database)\n")
    assert not missing.parent.exists()
