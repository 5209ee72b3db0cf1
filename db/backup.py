"""Backups and restores.

A backup is a full-fidelity project archive (``corpus.archive``): every table of ``db.models`` but the
login sessions, row by row with the same primary keys (accounts with roles and password hashes,
settings, glossary, sentences and aspects, assignments in every state, every revision, every gold
decision and final choice with its history, audit events), plus the alembic schema revision. It is read
in one consistent snapshot and gives the same bytes from SQLite and PostgreSQL, so backup → restore into
an empty database → backup is byte-identical.

An archive restores only into an empty database (a fresh ``init``: at most the default project), or,
when asked to replace, over everything: one transaction deletes every row and inserts the archive's, so
a failure changes nothing. The zip's names, declared sizes and manifest are checked before the
transaction; every row (against the schema) and every file's checksum as it is read inside it, so a bad
row anywhere rolls everything back. Restoring logs everyone out (login sessions are not archived).

Older uploads still restore: a work file (JSONL) is imported all or nothing and never overwrites
(``db.workfile.import_work_file``); a backup zip of the earlier format goes in through its SQLite file
(SQLite, empty project) or its work file; a bare SQLite file only into an empty project.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import re
import sqlite3
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from sqlalchemy import JSON, Boolean, DateTime, Engine, Float, Integer, String, Table, func, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from corpus import archive
from corpus.archive import ArchiveReader, ArchiveRefused, ColumnSpec, Limits, Manifest, TableSpec
from corpus.workfile import dump_work_file
from db.engine import is_sqlite, reader
from db.models import Annotation, Base, Revision, SourceSentence, Translation
from db.write_gate import write_turn
from db.workfile import ProgressCallback, WorkImportSummary, import_work_file, load_work, progress_for

#: The backup zips of the earlier release (a work file and, on SQLite, a database file).
LEGACY_FORMAT = "corpus-backup"
LEGACY_FORMAT_VERSION = 1
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
    kind: str  # "archive" (project archive restored), "sqlite" (database file copied in) or "work" (work file imported)
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


def backup_filename(now: datetime | None = None) -> str:
    now = now or datetime.now()
    return f"corpus-backup-{now:%Y%m%d-%H%M%S}.zip"


# ------------------------------------------------------------------ reading uploads


@dataclass(frozen=True)
class LegacyBackup:
    work: bytes | None
    sqlite: bytes | None
    manifest: dict


def read_legacy_backup(data: bytes, filename: str = "backup.zip") -> LegacyBackup:
    """Unpack and check a backup zip of the earlier format: known members only, sizes bounded, checksums matching."""
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
        if not isinstance(manifest, dict) or manifest.get("format") != LEGACY_FORMAT:
            raise RestoreRefused(f"{filename}: {MANIFEST_NAME} does not describe a {LEGACY_FORMAT}")
        if manifest.get("format_version") != LEGACY_FORMAT_VERSION:
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
    return LegacyBackup(contents[WORK_NAME], contents[SQLITE_NAME], manifest)


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


# ------------------------------------------------------------------ the project archive

#: Not archived: login sessions and single-use login codes belong to a browser, not to the project (a
#: restore logs everyone out); the suggestion model is derived from gold and retrained after a restore.
NOT_ARCHIVED = frozenset({"login_sessions", "login_codes", "suggestion_models"})
BATCH_ROWS = 2000


def _kind(column) -> str:  # noqa: ANN001
    kinds = ((JSON, "json"), (Boolean, "bool"), (DateTime, "datetime"), (Float, "float"), (Integer, "int"),
             (String, "text"))
    for sql_type, kind in kinds:
        if isinstance(column.type, sql_type):
            return kind
    raise TypeError(f"{column.table.name}.{column.name}: no archive kind for {column.type!r}")


def _spec(table: Table) -> TableSpec:
    return TableSpec(
        table.name,
        tuple(ColumnSpec(c.name, _kind(c), bool(c.nullable)) for c in table.columns),
        tuple(c.name for c in table.primary_key.columns),
    )


def archived_tables() -> list[Table]:
    """The archived tables in foreign-key order (a table after every table it refers to)."""
    return [t for t in Base.metadata.sorted_tables if t.name not in NOT_ARCHIVED]


def table_specs() -> dict[str, TableSpec]:
    return {t.name: _spec(t) for t in archived_tables()}


@functools.cache
def schema_chain() -> tuple[str, ...]:
    """The alembic revisions of db/migrations, oldest first: the schemas whose archives this release reads;
    the last one is the schema it writes."""
    from alembic.script import ScriptDirectory

    from db.schema import alembic_config

    scripts = ScriptDirectory.from_config(alembic_config("sqlite://"))
    (head,) = scripts.get_heads()
    return tuple(reversed([s.revision for s in scripts.walk_revisions("base", head)]))


def current_schema() -> str:
    return schema_chain()[-1]


def _schema_revision(conn: Connection) -> str | None:
    return conn.execute(text("SELECT version_num FROM alembic_version")).scalar()


def _snapshot(engine: Engine) -> Connection:
    """A connection whose reads all see one moment: SQLite's deferred read transaction in WAL mode, a
    repeatable-read transaction on PostgreSQL. The app keeps saving meanwhile."""
    if is_sqlite(engine):
        return reader(engine).connect()
    return engine.connect().execution_options(isolation_level="REPEATABLE READ")


def _table_rows(conn: Connection, table: Table):  # noqa: ANN202
    stmt = select(table).order_by(*table.primary_key.columns)
    for row in conn.execution_options(yield_per=BATCH_ROWS).execute(stmt):
        yield row._mapping


def write_backup(engine: Engine, out: IO[bytes]) -> Manifest:
    """Write the project archive of ``engine`` to a seekable binary stream."""
    with _snapshot(engine) as conn, conn.begin():
        revision = _schema_revision(conn)
        if revision != current_schema():
            raise RestoreRefused(f"the database is at schema {revision!r}, this release writes "
                                 f"{current_schema()}; run `python -m corpus init` first")
        tables = archived_tables()
        return archive.write_archive(out, revision, ((_spec(t), _table_rows(conn, t)) for t in tables))


def backup_to_file(engine: Engine, target: Path) -> Manifest:
    """Write the archive beside ``target`` as ``.<name>.partial`` and rename it when complete; any failure
    (a row that cannot be archived, a full disk, an interrupt) removes the partial file."""
    temporary = target.with_name(f".{target.name}.partial")
    try:
        with temporary.open("wb") as out:
            manifest = write_backup(engine, out)
        temporary.replace(target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return manifest


def make_backup(engine: Engine) -> bytes:
    """The project archive, as bytes."""
    buffer = io.BytesIO()
    write_backup(engine, buffer)
    return buffer.getvalue()


def holdings(conn_or_engine: Connection | Engine) -> dict[str, int]:
    """Rows per table, every table of the schema (login sessions included)."""
    def count(conn: Connection) -> dict[str, int]:
        return {t.name: conn.execute(select(func.count()).select_from(t)).scalar() or 0
                for t in Base.metadata.sorted_tables}
    if isinstance(conn_or_engine, Connection):
        return count(conn_or_engine)
    with reader(conn_or_engine).connect() as conn:
        return count(conn)


def holds_nothing(rows: dict[str, int]) -> bool:
    """Empty as a fresh ``init`` leaves it: nothing but the default project."""
    return all(n == 0 for name, n in rows.items() if name != "projects") and rows.get("projects", 0) <= 1


def _describe(rows: dict[str, int]) -> str:
    shown = [f"{n:,} {name.replace('_', ' ')}" for name, n in rows.items() if n and name != "projects"]
    return ", ".join(shown) or "only the default project"


def _refuse_unless_empty(rows: dict[str, int], filename: str) -> None:
    if not holds_nothing(rows):
        raise RestoreRefused(f"{filename}: an archive restores only into an empty database, and this one holds "
                             f"{_describe(rows)}. Restore into a new database (`python -m corpus init`), or "
                             "replace everything here (`restore --replace`, or the page's replace option).")


def _lock_everything(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        names = ", ".join(t.name for t in Base.metadata.sorted_tables)
        conn.execute(text(f"LOCK TABLE {names} IN ACCESS EXCLUSIVE MODE"))


def _delete_everything(conn: Connection) -> None:
    """Every row of every table, children first. PostgreSQL truncates all at once: deleting row by row would
    run a foreign-key check per parent row over the children's dead rows (minutes at paper scale)."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("TRUNCATE " + ", ".join(f'"{t.name}"' for t in Base.metadata.sorted_tables)))
        return
    for table in reversed(Base.metadata.sorted_tables):
        conn.execute(table.delete())


def _insert_table(conn: Connection, reader_: ArchiveReader, table: Table, spec: TableSpec,
                  entry: archive.TableEntry, advance: Callable[[int], None]) -> None:
    """The table's rows, ``advance(n)`` after every ``n`` written."""
    if conn.dialect.name == "postgresql":
        _copy_table(conn, reader_, table, spec, entry, advance)
        return
    batch: list[dict[str, Any]] = []
    first = 1

    def flush(last: int) -> None:
        try:
            conn.execute(table.insert(), batch)
        except SQLAlchemyError as exc:
            raise RestoreRefused(f"{reader_.where}/{entry.file}:{first}-{last}: cannot be stored "
                                 f"({_reason(exc)}); nothing was restored") from None
        advance(len(batch))
        batch.clear()

    last = 0
    for last, row in reader_.rows(spec, entry):
        if not batch:
            first = last
        batch.append(row)
        if len(batch) >= BATCH_ROWS:
            flush(last)
    if batch:
        flush(last)


def _reason(exc: Exception) -> str:
    return str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]


def _copy_table(conn: Connection, reader_: ArchiveReader, table: Table, spec: TableSpec,
                entry: archive.TableEntry, advance: Callable[[int], None]) -> None:
    """PostgreSQL: COPY the rows in, in the restore's transaction (several times faster than INSERTs)."""
    import psycopg

    names = [c.name for c in spec.columns]
    as_json = {c.name for c in spec.columns if c.kind == "json"}
    columns = ", ".join(f'"{n}"' for n in names)
    driver = conn.connection.driver_connection
    line = count = 0
    try:
        with driver.cursor() as cursor, cursor.copy(f'COPY "{table.name}" ({columns}) FROM STDIN') as copy:
            for count, (line, row) in enumerate(reader_.rows(spec, entry), start=1):
                copy.write_row([json.dumps(row[n], ensure_ascii=False)
                                if n in as_json and row[n] is not None else row[n] for n in names])
                if count % BATCH_ROWS == 0:
                    advance(BATCH_ROWS)
        advance(count % BATCH_ROWS)
    except psycopg.Error as exc:
        # COPY counts lines as the archive does: its "line N" is the file's line
        at = re.search(r"\bline (\d+)", getattr(exc.diag, "context", None) or "")
        where = f"{reader_.where}/{entry.file}" + (f":{at.group(1)}" if at else "")
        detail = f": {exc.diag.message_detail}" if exc.diag.message_detail else ""
        raise RestoreRefused(f"{where}: cannot be stored ({_reason(exc)}{detail}); nothing was restored") from None


def _reset_sequences(conn: Connection) -> None:
    """New rows after a restore must not collide with restored keys (PostgreSQL keeps counters apart)."""
    if conn.dialect.name != "postgresql":
        return
    for table in Base.metadata.sorted_tables:
        if [c.name for c in table.primary_key.columns] == ["id"]:
            conn.execute(text(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                              f"COALESCE(MAX(id), 0) + 1, false) FROM {table.name}"))


def restore_archive(
    engine: Engine, source: str | Path | IO[bytes] | bytes, filename: str, replace: bool = False,
    limits: Limits = Limits(), progress: ProgressCallback | None = None,
) -> RestoreResult:
    """Restore a project archive: into an empty database, or over everything when ``replace``; all or nothing.

    The zip's names, sizes and manifest are checked before the transaction; each row is checked as it is read
    and each file's checksum at its end, inside the transaction, so a bad row anywhere rolls everything back
    (one pass over the archive: a separate checking pass doubled the restore time). ``progress`` (else the
    ``db.workfile.import_progress`` block's callback) hears ("restoring", rows written, rows declared)."""
    report = progress_for(progress)
    if isinstance(source, Path):
        source = str(source)
    specs = table_specs()
    try:
        with ArchiveReader(source, filename, schema_chain(), limits) as reader_:
            archive.check_tables(reader_.manifest, specs, filename)
            with engine.connect() as conn:
                revision = _schema_revision(conn)
            if revision != current_schema():
                raise RestoreRefused(f"the database is at schema {revision!r}; run `python -m corpus init` first")
            if not replace:
                _refuse_unless_empty(holdings(engine), filename)
            entries = {e.name: e for e in reader_.manifest.tables}
            total = sum(entry.rows for entry in entries.values())
            written = [0]

            def advance(rows: int) -> None:
                written[0] += rows
                report("restoring", min(written[0], total), total)

            report("restoring", 0, total)
            with write_turn(engine), engine.begin() as conn:
                _lock_everything(conn)
                if not replace:
                    _refuse_unless_empty(holdings(conn), filename)
                _delete_everything(conn)
                for table in archived_tables():
                    if table.name in entries:
                        _insert_table(conn, reader_, table, specs[table.name], entries[table.name], advance)
                _reset_sequences(conn)
                report("restoring", total, total)
            counted = reader_.manifest.counts()
    except ArchiveRefused as exc:
        raise RestoreRefused(str(exc)) from None
    if is_sqlite(engine):
        engine.dispose()  # no pooled connection keeps a cached view of the replaced rows
    shown = ", ".join(f"{counted.get(name, 0):,} {label}" for name, label in (
        ("users", "accounts"), ("source_sentences", "sentences"), ("translations", "translations"),
        ("annotations", "annotations"), ("revisions", "revisions")))
    return RestoreResult("archive", f"archive {filename} restored ({'replacing everything' if replace else 'into an empty database'}): {shown}")


def is_archive(data: bytes) -> bool:
    """A zip whose manifest names the archive format (else, a legacy backup zip)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            info = zf.getinfo(MANIFEST_NAME)
            if info.file_size > Limits().manifest_bytes:
                return True  # let the archive reader refuse it with its reason
            return json.loads(zf.read(info)).get("format") != LEGACY_FORMAT
    except (KeyError, ValueError, AttributeError, zipfile.BadZipFile, OSError, EOFError):
        return True


def restore_upload(
    engine: Engine, data: bytes, filename: str, actor_id: int | None = None, use_sqlite_file: bool = True,
    replace: bool = False,
) -> RestoreResult:
    """Restore whatever was uploaded: a project archive, a legacy backup zip, a SQLite file, or a work file."""
    if data.startswith(b"PK\x03\x04") or filename.lower().endswith(".zip"):
        if is_archive(data):
            return restore_archive(engine, data, filename, replace=replace)
        contents = read_legacy_backup(data, filename)
        if use_sqlite_file and contents.sqlite is not None and is_sqlite(engine) and is_empty(engine):
            return restore_sqlite_file(engine, contents.sqlite, f"{filename}/{SQLITE_NAME}", actor_id)
        return restore_work(engine, contents.work, f"{filename}/{WORK_NAME}", actor_id)
    if data.startswith(SQLITE_HEADER):
        return restore_sqlite_file(engine, data, filename, actor_id)
    return restore_work(engine, data, filename, actor_id)
