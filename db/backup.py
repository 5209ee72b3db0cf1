"""Full backups and restores.

A backup is one zip: ``work.jsonl`` (exactly what ``dump-work`` writes: every sentence and the latest
translation and annotation), on SQLite also ``corpus.sqlite`` (a consistent copy made with SQLite's
backup API while the app keeps running: it holds everything, including the revision history and
accounts), and ``manifest.json`` with counts and SHA-256 checksums.

Restoring never overwrites work. The work file is imported all or nothing and skips records already
present (``db.workfile.import_work_file``); a SQLite file replaces the database only when it is empty
(no sentences, translations, annotations or revisions) and is refused otherwise.
"""

from __future__ import annotations

import hashlib
import io
import json
import sqlite3
import tempfile
import zipfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.tokens import TOKENIZER_SIGNATURE
from corpus.workfile import dump_work_file
from db.engine import is_sqlite, reader
from db.models import Annotation, Revision, SourceSentence, Translation
from db.write_gate import write_turn
from db.workfile import WorkImportSummary, import_work_file, load_work

FORMAT = "corpus-backup"
FORMAT_VERSION = 1
WORK_NAME = "work.jsonl"
SQLITE_NAME = "corpus.sqlite"
MANIFEST_NAME = "manifest.json"
SQLITE_HEADER = b"SQLite format 3\x00"
#: Largest upload (and largest unpacked zip member) a restore accepts.
MAX_RESTORE_BYTES = 512 * 1024 * 1024


class RestoreRefused(ValueError):
    """The upload cannot be restored here; nothing was written."""


@dataclass(frozen=True)
class RestoreResult:
    kind: str  # "sqlite" (database file copied in) or "work" (work file imported)
    summary: str
    work: WorkImportSummary | None = None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def counts(engine: Engine) -> dict[str, int]:
    with Session(reader(engine)) as session:
        return {
            name: session.scalar(select(func.count()).select_from(model)) or 0
            for name, model in (("sentences", SourceSentence), ("translations", Translation),
                                ("annotations", Annotation), ("revisions", Revision))
        }


def is_empty(engine: Engine) -> bool:
    """No corpus work at all (accounts and the default project may exist)."""
    return not any(counts(engine).values())


def _sqlite_path(engine: Engine) -> Path:
    database = engine.url.database
    if not database or database == ":memory:":
        raise RestoreRefused("an in-memory SQLite database has no file to back up or restore")
    return Path(database)


def sqlite_snapshot(engine: Engine) -> bytes:
    """A consistent copy of the live SQLite database, made with the backup API (never a file copy,
    which can tear a page being written and misses what is still in the write-ahead log)."""
    source_path = _sqlite_path(engine)
    with tempfile.TemporaryDirectory(prefix="corpus-backup-") as tmp:
        target_path = Path(tmp) / SQLITE_NAME
        source = sqlite3.connect(f"file:{source_path}?mode=ro", uri=True, timeout=30)
        target = sqlite3.connect(target_path)
        try:
            source.backup(target)  # all pages in one step: one read transaction, one consistent state
            target.execute("PRAGMA journal_mode=DELETE")  # a single self-contained file
        finally:
            target.close()
            source.close()
        return target_path.read_bytes()


def make_backup(engine: Engine) -> bytes:
    """The backup zip, as bytes."""
    work = dump_work_file(load_work(engine)).encode("utf-8")
    members = {WORK_NAME: work}
    if is_sqlite(engine):
        members[SQLITE_NAME] = sqlite_snapshot(engine)
    manifest = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "created_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "database": engine.dialect.name,
        "tokenizer": TOKENIZER_SIGNATURE,
        "counts": counts(engine),
        "files": {name: {"bytes": len(data), "sha256": _sha256(data)} for name, data in members.items()},
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(MANIFEST_NAME, json.dumps(manifest, indent=2, sort_keys=True))
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def backup_filename(now: datetime | None = None) -> str:
    now = now or datetime.now()
    return f"corpus-backup-{now:%Y%m%d-%H%M%S}.zip"


# ------------------------------------------------------------------ reading uploads


@dataclass(frozen=True)
class BackupContents:
    work: bytes | None
    sqlite: bytes | None
    manifest: dict


def read_backup(data: bytes, filename: str = "backup.zip") -> BackupContents:
    """Unpack and check a backup zip: known members only, sizes bounded, checksums matching."""
    if len(data) > MAX_RESTORE_BYTES:
        raise RestoreRefused(f"{filename}: {len(data):,} bytes is over the {MAX_RESTORE_BYTES:,}-byte limit")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise RestoreRefused(f"{filename}: not a zip file ({exc})") from None
    with zf:
        infos = {info.filename: info for info in zf.infolist()}
        if MANIFEST_NAME not in infos:
            raise RestoreRefused(f"{filename}: no {MANIFEST_NAME}; this is not a backup made by this tool")
        for info in infos.values():
            if info.file_size > MAX_RESTORE_BYTES:
                raise RestoreRefused(f"{filename}: {info.filename} unpacks to {info.file_size:,} bytes, over the limit")
        try:
            manifest = json.loads(zf.read(MANIFEST_NAME))
        except (ValueError, UnicodeDecodeError) as exc:
            raise RestoreRefused(f"{filename}: {MANIFEST_NAME} is not valid JSON ({exc})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise RestoreRefused(f"{filename}: {MANIFEST_NAME} does not describe a {FORMAT}")
        if manifest.get("format_version") != FORMAT_VERSION:
            raise RestoreRefused(f"{filename}: backup format version {manifest.get('format_version')!r} is not supported")
        files = manifest.get("files") or {}
        unexpected = set(infos) - {MANIFEST_NAME, WORK_NAME, SQLITE_NAME}
        if unexpected:
            raise RestoreRefused(f"{filename}: unexpected member(s) {', '.join(sorted(unexpected))}")
        contents: dict[str, bytes | None] = {WORK_NAME: None, SQLITE_NAME: None}
        for name in contents:
            if name not in infos:
                continue
            try:
                member = zf.read(name)
            except (zipfile.BadZipFile, OSError) as exc:
                raise RestoreRefused(f"{filename}: {name} cannot be read ({exc})") from None
            expected = (files.get(name) or {}).get("sha256")
            if expected != _sha256(member):
                raise RestoreRefused(f"{filename}: {name} does not match its checksum; the backup is damaged")
            contents[name] = member
    if contents[WORK_NAME] is None:
        raise RestoreRefused(f"{filename}: the backup has no {WORK_NAME}")
    return BackupContents(contents[WORK_NAME], contents[SQLITE_NAME], manifest)


def _check_sqlite_file(path: Path, filename: str) -> None:
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            status = conn.execute("PRAGMA integrity_check").fetchone()[0]
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise RestoreRefused(f"{filename}: not a usable SQLite database ({exc})") from None
    if status != "ok":
        raise RestoreRefused(f"{filename}: the SQLite file is damaged (integrity check: {status})")
    missing = {"alembic_version", "source_sentences", "translations", "annotations", "revisions"} - tables
    if missing:
        raise RestoreRefused(f"{filename}: not a corpus database (missing tables: {', '.join(sorted(missing))})")


# ------------------------------------------------------------------ restoring


def restore_work(engine: Engine, data: bytes, filename: str, actor_id: int | None = None) -> RestoreResult:
    """Import a work file all or nothing (``InputRejected`` carries the located errors)."""
    if len(data) > MAX_RESTORE_BYTES:
        raise RestoreRefused(f"{filename}: {len(data):,} bytes is over the {MAX_RESTORE_BYTES:,}-byte limit")
    summary = import_work_file(engine, data, filename, actor_id=actor_id)
    return RestoreResult("work", str(summary), summary)


def restore_sqlite_file(engine: Engine, data: bytes, filename: str, actor_id: int | None = None) -> RestoreResult:
    """Use a backed-up SQLite file directly. Only into an empty database: on SQLite the file's
    content replaces it (history and accounts included); on PostgreSQL its work file is imported."""
    if not data.startswith(SQLITE_HEADER):
        raise RestoreRefused(f"{filename}: not an SQLite database file")
    if len(data) > MAX_RESTORE_BYTES:
        raise RestoreRefused(f"{filename}: {len(data):,} bytes is over the {MAX_RESTORE_BYTES:,}-byte limit")
    if not is_empty(engine):
        found = ", ".join(f"{n} {name}" for name, n in counts(engine).items() if n)
        raise RestoreRefused(
            f"{filename}: a database file can only be restored into an empty project, and this one holds {found}. "
            "Restore it into a new, empty database, or upload the work file instead (it adds what is missing and "
            "never overwrites)."
        )
    with tempfile.TemporaryDirectory(prefix="corpus-restore-") as tmp:
        upload = Path(tmp) / SQLITE_NAME
        upload.write_bytes(data)
        _check_sqlite_file(upload, filename)
        if not is_sqlite(engine):
            return _import_work_of_sqlite_file(engine, upload, filename, actor_id)
        from db.schema import upgrade

        target_path = _sqlite_path(engine)
        with write_turn(engine):
            source = sqlite3.connect(f"file:{upload}?mode=ro", uri=True)
            target = sqlite3.connect(target_path, timeout=30)
            try:
                if target.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    target.execute("PRAGMA journal_mode=WAL")
                source.backup(target)
                target.execute("PRAGMA journal_mode=WAL")
            finally:
                target.close()
                source.close()
        engine.dispose()  # pooled connections must not keep anything cached from the replaced file
        upgrade(engine)  # a backup from an older release gets the newer schema
    return RestoreResult("sqlite", f"database restored from {filename}: " +
                         ", ".join(f"{n} {name}" for name, n in counts(engine).items()))


def _import_work_of_sqlite_file(engine: Engine, path: Path, filename: str, actor_id: int | None) -> RestoreResult:
    from db.engine import make_engine
    from db.schema import upgrade

    source = make_engine(f"sqlite:///{path}")
    try:
        upgrade(source)
        work = dump_work_file(load_work(source)).encode("utf-8")
    finally:
        source.dispose()
    return restore_work(engine, work, f"{filename} ({WORK_NAME})", actor_id)


def restore_upload(
    engine: Engine, data: bytes, filename: str, actor_id: int | None = None, use_sqlite_file: bool = True
) -> RestoreResult:
    """Restore whatever was uploaded: a backup zip, a SQLite file, or a work file (JSONL).

    A backup zip goes in as its SQLite file when that is possible and wanted (SQLite target, empty
    database), else as its work file.
    """
    if data.startswith(b"PK\x03\x04") or filename.lower().endswith(".zip"):
        contents = read_backup(data, filename)
        if use_sqlite_file and contents.sqlite is not None and is_sqlite(engine) and is_empty(engine):
            return restore_sqlite_file(engine, contents.sqlite, f"{filename}/{SQLITE_NAME}", actor_id)
        return restore_work(engine, contents.work, f"{filename}/{WORK_NAME}", actor_id)
    if data.startswith(SQLITE_HEADER):
        return restore_sqlite_file(engine, data, filename, actor_id)
    return restore_work(engine, data, filename, actor_id)
