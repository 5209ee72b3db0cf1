"""An archive restore reports its progress (rows written of the rows the manifest declares): to a caller's
callback, to the ``import_progress`` block the Backup page opens, and as a bar on the command line's stderr,
drawn only on a terminal."""

from __future__ import annotations

import io
import sys

import pytest

import db.backup
from cli.commands import main
from corpus.archive import ArchiveReader
from db.backup import make_backup, restore_archive, schema_chain
from db.engine import make_engine
from db.workfile import import_progress
from tests.support.databases import copy_of


@pytest.fixture
def archive(demo_sqlite, tmp_path, monkeypatch) -> bytes:
    """The demo project's archive; restores report every 40 rows (not 2,000), so a small one shows steps."""
    monkeypatch.setattr(db.backup, "BATCH_ROWS", 40)
    source = make_engine(copy_of(demo_sqlite, tmp_path / "source.db"))
    try:
        return make_backup(source)
    finally:
        source.dispose()


def declared_rows(data: bytes) -> int:
    with ArchiveReader(data, "a.zip", schema_chain()) as reader:
        return sum(reader.manifest.counts().values())


def test_a_restore_reports_rows_written_from_none_to_all_the_manifest_declares(archive, any_engine):
    reports: list[tuple[str, int, int]] = []
    restore_archive(any_engine, archive, "demo.zip", progress=lambda *r: reports.append(r))
    total = declared_rows(archive)
    assert total > 200
    assert {stage for stage, _, _ in reports} == {"restoring"}
    assert {t for _, _, t in reports} == {total}
    done = [d for _, d, _ in reports]
    assert done[0] == 0 and done[-1] == total and done == sorted(done)
    assert len(set(done)) > 5  # steps along the way, not only the two ends


def test_the_backup_pages_progress_block_hears_an_archive_restore(archive, engine):
    seen: list[tuple[str, int, int]] = []
    with import_progress(lambda *r: seen.append(r)):
        restore_archive(engine, archive, "demo.zip")
    assert seen[0][:2] == ("restoring", 0) and seen[-1][1] == seen[-1][2] > 0


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_command_line_restore_draws_a_bar_on_a_terminal_and_none_into_a_pipe(archive, tmp_path, monkeypatch,
                                                                                   capsys):
    path = tmp_path / "demo.zip"
    path.write_bytes(archive)
    assert main(["--db", f"sqlite:///{tmp_path / 'piped.db'}", "restore", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "archive" in out and "restored" in out
    assert "\r" not in err

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["--db", f"sqlite:///{tmp_path / 'terminal.db'}", "restore", str(path)]) == 0
    drawn = terminal.getvalue()
    assert drawn.startswith("\rrestoring  [") and drawn.rstrip("\n").endswith("100%")
    assert drawn.count("\r") >= 2 and drawn.endswith("\n")

    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    assert main(["--db", f"sqlite:///{tmp_path / 'quiet.db'}", "restore", "--no-progress", str(path)]) == 0
    assert quiet.getvalue() == ""
