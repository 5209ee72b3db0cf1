"""Hostile uploads on real databases (issue 31, N3, N5, N8): a work file or an archive holding NaN is refused
with its file, line and field on SQLite and PostgreSQL and writes nothing; a backup that meets a stored NaN,
or is interrupted, leaves no file; a database file is never restored; an old-format zip that unpacks hugely
is refused from its declared sizes, with little memory."""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import sqlite3
import tracemalloc
import zipfile

import pytest
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

import db.backup
from cli.commands import main
from corpus.errors import InputRejected
from db.backup import (
    RestoreRefused,
    backup_to_file,
    holdings,
    make_backup,
    restore_archive,
    restore_upload,
    sqlite_snapshot,
)
from db.engine import make_engine
from db.models import Translation
from db.workfile import import_work_file
from tests.support.databases import copy_of

SENTENCE = {"type": "sentence", "id": "3121", "domain": "restaurant", "split": "train",
            "text": "But the staff was so horrible to us.", "aspects": [{"term": "staff", "from": 8, "to": 13}]}
TRANSLATION = {"type": "translation", "sentence_id": "3121", "phase": "aware", "translator": "asha",
               "text": "लेकिन स्टाफ़ हमारे साथ बहुत बुरा था।", "untranslatable": False, "time_spent_s": 12.5}


def _work(time_spent: str = "12.5") -> bytes:
    line = json.dumps(TRANSLATION, ensure_ascii=False).replace('"time_spent_s": 12.5', f'"time_spent_s": {time_spent}')
    return (json.dumps(SENTENCE) + "\n" + line + "\n").encode()


def _translations(engine) -> int:
    with Session(engine) as session:
        return session.scalar(select(func.count()).select_from(Translation)) or 0


def _url(engine) -> str:
    return engine.url.render_as_string(hide_password=False)


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_a_work_file_with_a_non_finite_time_is_refused_with_file_line_and_field(any_engine, value):
    with pytest.raises(InputRejected) as refused:
        import_work_file(any_engine, _work(value), "w.jsonl")
    (error,) = refused.value.errors
    assert (error.file, error.line, error.sentence_id) == ("w.jsonl", 2, "3121")
    assert "time_spent_s" in error.message
    assert _translations(any_engine) == 0


def test_the_command_line_says_where_a_non_finite_number_is(any_engine, tmp_path, capsys):
    path = tmp_path / "w.jsonl"
    path.write_bytes(_work("NaN"))
    assert main(["--db", _url(any_engine), "import-work", str(path)]) != 0
    err = capsys.readouterr().err
    assert f"{path}:2" in err and "time_spent_s" in err and "Traceback" not in err
    assert _translations(any_engine) == 0


def _source(template, folder):
    """A migrated SQLite database (a copy of ``template``) in ``folder``, holding one translation."""
    engine = make_engine(copy_of(template, folder / "source.db"))
    import_work_file(engine, _work(), "w.jsonl")
    return engine


def _replace_in_table(data: bytes, table: str, old: bytes, new: bytes) -> bytes:
    """The archive with bytes of one table file replaced, the manifest's size and checksum made right."""
    src = zipfile.ZipFile(io.BytesIO(data))
    members = {name: src.read(name) for name in src.namelist()}
    body = members[f"{table}.jsonl"]
    assert old in body
    body = members[f"{table}.jsonl"] = body.replace(old, new)
    manifest = json.loads(members["manifest.json"])
    for entry in manifest["tables"]:
        if entry["name"] == table:
            entry.update(bytes=len(body), sha256=hashlib.sha256(body).hexdigest())
    members["manifest.json"] = json.dumps(manifest).encode()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, content in members.items():
            zf.writestr(name, content)
    return out.getvalue()


@pytest.mark.parametrize("value", [b"NaN", b"Infinity", b"1e999"])
def test_an_archive_holding_a_non_finite_number_is_refused_at_its_line_and_writes_nothing(any_engine, tmp_path,
                                                                                          value, migrated_sqlite):
    source = _source(migrated_sqlite, tmp_path)
    data = _replace_in_table(make_backup(source), "translations", b'"time_spent_s":12.5', b'"time_spent_s":' + value)
    before = holdings(any_engine)
    with pytest.raises(RestoreRefused) as refused:
        restore_archive(any_engine, data, "a.zip")
    assert "a.zip/translations.jsonl:1" in str(refused.value) and "'time_spent_s'" in str(refused.value)
    assert holdings(any_engine) == before


def test_a_backup_meeting_a_stored_nan_says_where_and_leaves_no_file(postgres_engine, tmp_path, capsys):
    """PostgreSQL stores NaN in a float column (an earlier release let a work file put it there)."""
    import_work_file(postgres_engine, _work(), "w.jsonl")
    with postgres_engine.begin() as conn:
        conn.execute(text("UPDATE translations SET time_spent_s = 'NaN'::float"))
        (tid,) = conn.execute(text("SELECT id FROM translations")).one()
    target = tmp_path / "b.zip"
    assert main(["--db", _url(postgres_engine), "backup", str(target)]) == 1
    err = capsys.readouterr().err
    assert f"translations row id={tid}: field 'time_spent_s' is NaN" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_backup_removes_its_partial_file(tmp_path, monkeypatch, migrated_sqlite, tmp_path_factory):
    source = _source(migrated_sqlite, tmp_path_factory.mktemp("source"))
    real = db.backup.archive.write_archive

    def interrupted(out, *args, **kwargs):
        out.write(b"PK\x03\x04 half an archive")
        raise KeyboardInterrupt

    monkeypatch.setattr(db.backup.archive, "write_archive", interrupted)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(KeyboardInterrupt):
        backup_to_file(source, out / "b.zip")
    assert list(out.iterdir()) == []
    monkeypatch.setattr(db.backup.archive, "write_archive", real)
    backup_to_file(source, out / "b.zip")
    assert [p.name for p in out.iterdir()] == ["b.zip"]


def test_a_backup_command_killed_with_sigterm_mid_way_leaves_no_file(tmp_path, monkeypatch, migrated_sqlite):
    source = _source(migrated_sqlite, tmp_path)
    out = tmp_path / "out"
    out.mkdir()

    def killed(stream, *args, **kwargs):
        stream.write(b"PK\x03\x04 half an archive")
        os.kill(os.getpid(), signal.SIGTERM)  # as `kill <pid>` would, while the file is being written
        raise AssertionError("SIGTERM did not stop the backup")

    monkeypatch.setattr(db.backup.archive, "write_archive", killed)
    with pytest.raises(SystemExit):
        main(["--db", _url(source), "backup", str(out / "b.zip")])
    assert list(out.iterdir()) == []
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # the command put the default back


# ------------------------------------------------------------------ database files and old zips


def _hostile_sqlite(template, folder) -> bytes:
    """A real project database file that carries a trigger resetting every password."""
    engine = _source(template, folder)
    with engine.begin() as conn:
        conn.execute(text("CREATE TRIGGER steal AFTER UPDATE ON users BEGIN "
                          "UPDATE users SET password_hash = 'attacker'; END"))
    return sqlite_snapshot(engine)


def test_a_database_file_is_refused_and_nothing_written(any_engine, tmp_path, migrated_sqlite):
    before = holdings(any_engine)
    with pytest.raises(RestoreRefused, match="corpus.sqlite: a database file is not restored"):
        restore_upload(any_engine, _hostile_sqlite(migrated_sqlite, tmp_path), "corpus.sqlite")
    assert holdings(any_engine) == before


def _legacy_zip(work: bytes, sqlite_file: bytes | None = None, extra: dict[str, bytes] | None = None) -> bytes:
    files = {"work.jsonl": work, **({"corpus.sqlite": sqlite_file} if sqlite_file else {})}
    manifest = {"format": "corpus-backup", "format_version": 1,
                "files": {n: {"sha256": hashlib.sha256(b).hexdigest()} for n, b in files.items()}}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        for name, body in {**files, **(extra or {})}.items():
            zf.writestr(name, body)
    return out.getvalue()


def test_an_old_zip_goes_in_through_its_work_file_and_never_opens_its_database_file(tmp_path, migrated_sqlite,
                                                                                   tmp_path_factory):
    target = make_engine(copy_of(migrated_sqlite, tmp_path / "target.db"))
    hostile = _hostile_sqlite(migrated_sqlite, tmp_path_factory.mktemp("source"))
    result = restore_upload(target, _legacy_zip(_work(), hostile), "old.zip")
    assert result.kind == "work" and _translations(target) == 1
    with sqlite3.connect(tmp_path / "target.db") as conn:
        assert conn.execute("SELECT count(*) FROM sqlite_master WHERE type = 'trigger'").fetchone() == (0,)


def test_an_old_zip_that_unpacks_hugely_is_refused_as_a_bomb_with_little_memory():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("manifest.json", json.dumps({"format": "corpus-backup", "format_version": 1}))
        with zf.open("work.jsonl", "w") as member:
            block = b" " * (1 << 20)
            for _ in range(400):  # 400 MB of spaces, well under a megabyte packed
                member.write(block)
    data = out.getvalue()
    assert len(data) < 1_000_000
    tracemalloc.start()
    try:
        with pytest.raises(RestoreRefused, match=r"old\.zip/work\.jsonl: unpacks [\d,]+ times its packed size; "
                                                 r"refused as a zip bomb"):
            restore_upload(make_engine("sqlite://"), data, "old.zip")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 20 * 1024 * 1024


def test_an_old_zip_with_more_members_than_it_can_hold_is_refused_before_its_directory_is_read():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for n in range(500):
            zf.writestr(f"x{n}", b"")
    with pytest.raises(RestoreRefused, match="old.zip: declares 500 entries"):
        restore_upload(make_engine("sqlite://"), out.getvalue(), "old.zip")


def test_an_old_zip_manifest_nested_too_deeply_is_a_located_refusal():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        zf.writestr("manifest.json", '{"format": ' + "[" * 100_000 + "]" * 100_000 + "}")
        zf.writestr("work.jsonl", b"")
    with pytest.raises(RestoreRefused) as refused:
        restore_upload(make_engine("sqlite://"), out.getvalue(), "old.zip")
    assert "old.zip" in str(refused.value)
