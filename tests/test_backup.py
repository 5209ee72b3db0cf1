"""Backup → restore into an empty project → dump gives the same bytes; damaged or misplaced restores are refused."""

from __future__ import annotations

import io
import json
import sqlite3
import zipfile

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from corpus.errors import InputRejected
from corpus.load import save_translation_text
from corpus.workfile import dump_work_file
from db.backup import (
    MANIFEST_NAME,
    SQLITE_NAME,
    WORK_NAME,
    RestoreRefused,
    make_backup,
    read_backup,
    restore_sqlite_file,
    restore_upload,
    restore_work,
)
from db.demo import DEMO, load_demo
from db.engine import make_engine
from db.models import Revision, TaggingItem, Translation, User
from db.schema import upgrade
from db.workfile import load_work

DEMO_WORK = DEMO / "demo_work.jsonl"


def _dump(engine) -> str:
    return dump_work_file(load_work(engine))


def _fresh_sqlite(tmp_path, name="restored.db"):
    engine = make_engine(f"sqlite:///{tmp_path / name}")
    upgrade(engine)
    return engine


def _revisions(engine) -> int:
    with Session(engine) as session:
        return session.scalar(select(func.count()).select_from(Revision))


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The demo project, plus later edits so history holds more than the latest versions.
    (An untagged translation: a tagged one is submitted, and its tokens are frozen.)"""
    engine = _fresh_sqlite(tmp_path_factory.mktemp("project"), "source.db")
    load_demo(engine)
    with Session(engine) as session:
        tagged = select(TaggingItem.translation_id)
        row = session.scalars(select(Translation).where(Translation.id.not_in(tagged), Translation.text.is_not(None))
                              .order_by(Translation.id)).first()
        ids = (row.translator_id, row.sentence_id, row.phase, row.version)
    user, sid, phase, version = ids
    for n in range(3):
        _, version = save_translation_text(engine, user, sid, phase, f"संशोधित अनुवाद {n}", version)
    yield engine
    engine.dispose()


def test_backup_holds_the_work_file_the_sqlite_file_and_a_manifest(project):
    data = make_backup(project)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert sorted(zf.namelist()) == sorted([MANIFEST_NAME, WORK_NAME, SQLITE_NAME])
        manifest = json.loads(zf.read(MANIFEST_NAME))
        assert zf.read(WORK_NAME).decode("utf-8") == _dump(project)
        assert zf.read(SQLITE_NAME).startswith(b"SQLite format 3\x00")
    assert manifest["database"] == "sqlite"
    assert manifest["counts"]["revisions"] == _revisions(project)


def test_work_file_restore_into_an_empty_database_dumps_identical_bytes(project, tmp_path):
    before = _dump(project)
    contents = read_backup(make_backup(project))
    target = _fresh_sqlite(tmp_path)
    result = restore_work(target, contents.work, "backup.zip/work.jsonl")
    assert result.kind == "work"
    assert _dump(target).encode() == before.encode()


def test_sqlite_file_restore_brings_back_everything_including_history_and_accounts(project, tmp_path):
    before = _dump(project)
    data = make_backup(project)
    target = _fresh_sqlite(tmp_path)
    result = restore_upload(target, data, "backup.zip")
    assert result.kind == "sqlite"
    assert _dump(target) == before
    assert _revisions(target) == _revisions(project)
    with Session(project) as a, Session(target) as b:
        hashes = lambda s: dict(s.execute(select(User.username, User.password_hash)).all())  # noqa: E731
        assert hashes(a) == hashes(b)
    with sqlite3.connect(target.url.database) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    # the restored database keeps working with the app's engine
    with Session(target) as session:
        row = session.scalars(select(Translation).where(Translation.text.like("संशोधित%"))).one()
        args = (row.translator_id, row.sentence_id, row.phase, row.version)
    save_translation_text(target, args[0], args[1], args[2], "पुनर्स्थापना के बाद", args[3])


def test_backup_restores_into_an_empty_database_of_either_kind(project, any_engine):
    before = _dump(project)
    result = restore_upload(any_engine, make_backup(project), "backup.zip")
    assert _dump(any_engine) == before
    assert result.kind == ("sqlite" if any_engine.dialect.name == "sqlite" else "work")


def test_sqlite_file_alone_restores_into_postgresql_through_its_work_file(project, any_engine):
    contents = read_backup(make_backup(project))
    result = restore_sqlite_file(any_engine, contents.sqlite, "corpus.sqlite")
    assert _dump(any_engine) == _dump(project)
    assert result.kind == ("sqlite" if any_engine.dialect.name == "sqlite" else "work")


def test_sqlite_file_into_a_non_empty_database_is_refused_and_changes_nothing(project, tmp_path):
    other = _fresh_sqlite(tmp_path, "other.db")
    restore_work(other, _unedited_demo_work(project), "demo.jsonl")
    save_translation_text(other, *_first_task(other), "केवल यहाँ", _first_version(other))
    before, revisions = _dump(other), _revisions(other)
    contents = read_backup(make_backup(project))
    with pytest.raises(RestoreRefused, match="only be restored into an empty project"):
        restore_sqlite_file(other, contents.sqlite, "corpus.sqlite")
    assert _dump(other) == before and _revisions(other) == revisions


def test_backup_zip_into_a_non_empty_database_adds_only_what_is_missing(project, tmp_path):
    contents = read_backup(make_backup(project))
    partial = b"".join(line for line in contents.work.splitlines(keepends=True) if b'"restaurant"' in line)
    other = _fresh_sqlite(tmp_path, "other.db")
    restore_work(other, partial, "part.jsonl")
    result = restore_upload(other, make_backup(project), "backup.zip")
    assert result.kind == "work"
    assert result.work.unchanged > 0 and result.work.sentences > 0
    assert _dump(other) == _dump(project)


def test_conflicting_work_file_is_refused_all_or_nothing(project, tmp_path):
    other = _fresh_sqlite(tmp_path, "other.db")
    restore_work(other, _unedited_demo_work(project), "demo.jsonl")
    before = _dump(other)
    with pytest.raises(InputRejected) as caught:
        restore_upload(other, make_backup(project), "backup.zip")  # project's edited translation differs
    assert any("not overwritten" in e.message and e.line for e in caught.value.errors)
    assert _dump(other) == before


def _unedited_demo_work(project) -> bytes:
    """The project's work file as it was before the fixture's edits."""
    work = read_backup(make_backup(project)).work.decode("utf-8")
    lines = [json.loads(line) for line in work.splitlines()]
    original = {(o["sentence_id"], o["phase"], o["translator"]): o for o in
                map(json.loads, DEMO_WORK.read_text(encoding="utf-8").splitlines()) if o["type"] == "translation"}
    out = []
    for obj in lines:
        if obj["type"] == "translation" and obj["text"] and obj["text"].startswith("संशोधित"):
            obj = original.get((obj["sentence_id"], obj["phase"], obj["translator"]))
            if obj is None:
                continue
        out.append(json.dumps(obj, ensure_ascii=False))
    return ("\n".join(out) + "\n").encode("utf-8")


def _first_task(engine):
    with Session(engine) as session:
        row = session.scalars(select(Translation).order_by(Translation.id)).first()
        return row.translator_id, row.sentence_id, row.phase


def _first_version(engine):
    with Session(engine) as session:
        return session.scalars(select(Translation.version).order_by(Translation.id)).first()


def _rezip(data: bytes, change) -> bytes:  # noqa: ANN001
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        for name in src.namelist():
            result = change(name, src.read(name))
            if result is not None:
                zf.writestr(name, result)
    return out.getvalue()


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda d: d[: len(d) // 2], "not a zip file"),
        (lambda d: b"PK\x03\x04 not really", "not a zip file"),
        (lambda d: _rezip(d, lambda n, b: None if n == MANIFEST_NAME else b), "no manifest.json"),
        (lambda d: _rezip(d, lambda n, b: b + b"\n" if n == WORK_NAME else b), "does not match its checksum"),
        (lambda d: _rezip(d, lambda n, b: b"{" if n == MANIFEST_NAME else b), "not valid JSON"),
    ],
    ids=["truncated", "fake-zip", "no-manifest", "tampered-work", "bad-manifest"],
)
def test_damaged_backups_are_refused_and_change_nothing(project, tmp_path, damage, message):
    target = _fresh_sqlite(tmp_path)
    with pytest.raises(RestoreRefused, match=message):
        restore_upload(target, damage(make_backup(project)), "backup.zip")
    assert _dump(target) == ""


def test_a_file_that_only_looks_like_sqlite_is_refused(tmp_path):
    target = _fresh_sqlite(tmp_path)
    with pytest.raises(RestoreRefused, match="not a usable SQLite database|damaged"):
        restore_upload(target, b"SQLite format 3\x00" + b"\x00" * 200, "fake.sqlite")
    assert _dump(target) == ""
