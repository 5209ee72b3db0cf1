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

Older uploads still restore, always as rows through a checking reader: a work file (JSONL) is imported
all or nothing and never overwrites (``db.workfile.import_work_file``); a backup zip of the earlier format
goes in through its work file, under the archive reader's bomb rules. A database file is never copied
in, bare or inside such a zip: it would bring its triggers, views, alembic revision and stored suggestion
model along (``DATABASE_FILE_REFUSED``). Every restore checks its writer (an admin, session live) inside
its own transaction, before anything is written.
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
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from sqlalchemy import JSON, Boolean, DateTime, Engine, Float, Integer, String, Table, func, select, text
from sqlalchemy.engine import Connection
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from corpus import archive, json_input
from corpus.archive import ArchiveReader, ArchiveRefused, ColumnSpec, Limits, Manifest, TableSpec
from corpus.vocabulary import Role
from db.access import check_writer
from db.engine import is_sqlite, reader
from db.models import Annotation, Base, Revision, SourceSentence, Translation
from db.write_gate import write_turn
from db.workfile import ProgressCallback, WorkImportSummary, import_work_file, progress_for

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
    kind: str  # "archive" (project archive restored) or "work" (work file imported)
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


#: A legacy backup zip holds its manifest, its work file and, from SQLite, a database file (never read now).
LEGACY_MEMBERS = frozenset({MANIFEST_NAME, WORK_NAME, SQLITE_NAME})
#: Unpacked / packed size above which a legacy member is taken for a zip bomb (the archive reader's rule).
LEGACY_RATIO = Limits().ratio


def read_legacy_backup(data: bytes, filename: str = "backup.zip") -> LegacyBackup:
    """Unpack and check a backup zip of the earlier format: its work file only (the database file it may
    also hold is never opened), with the archive reader's bomb rules: at most the three known members,
    declared sizes and their total within MAX_RESTORE_BYTES, no member unpacking over LEGACY_RATIO times
    its packed size, at most the declared bytes read, and the work file's checksum matching."""
    if len(data) > MAX_RESTORE_BYTES:
        raise RestoreRefused(f"{filename}: {len(data):,} bytes is over the {MAX_RESTORE_BYTES:,}-byte limit")
    try:
        archive.check_zip_directory(io.BytesIO(data), filename, Limits(members=len(LEGACY_MEMBERS)))
        zf = zipfile.ZipFile(io.BytesIO(data))
    except ArchiveRefused as exc:
        raise RestoreRefused(str(exc)) from None
    except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
        raise RestoreRefused(f"{filename}: not a zip file ({exc})") from None
    with zf:
        infos = {info.filename: info for info in zf.infolist()}
        unexpected = set(infos) - LEGACY_MEMBERS
        if unexpected or len(infos) != len(zf.infolist()):
            raise RestoreRefused(f"{filename}: unexpected member(s) {', '.join(sorted(unexpected)) or '(repeated)'}")
        if MANIFEST_NAME not in infos:
            raise RestoreRefused(f"{filename}: no {MANIFEST_NAME}; this is not a backup made by this tool")
        total = 0
        for info in infos.values():
            if info.file_size > MAX_RESTORE_BYTES:
                raise RestoreRefused(f"{filename}/{info.filename}: unpacks to {info.file_size:,} bytes, over the "
                                     f"{MAX_RESTORE_BYTES:,}-byte limit")
            if info.file_size > 1024**2 and info.file_size > LEGACY_RATIO * max(info.compress_size, 1):
                raise RestoreRefused(f"{filename}/{info.filename}: unpacks {info.file_size // max(info.compress_size, 1):,} "
                                     "times its packed size; refused as a zip bomb")
            total += info.file_size if info.filename != SQLITE_NAME else 0
        if total > MAX_RESTORE_BYTES:
            raise RestoreRefused(f"{filename}: unpacks to {total:,} bytes in all, over the {MAX_RESTORE_BYTES:,}-byte limit")

        def member(name: str, limit: int) -> bytes:
            try:
                with zf.open(infos[name]) as stream:
                    return stream.read(limit + 1)
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
                raise RestoreRefused(f"{filename}/{name}: cannot be read ({exc})") from None

        try:
            manifest = json_input.loads(member(MANIFEST_NAME, Limits().manifest_bytes))
        except ValueError as exc:
            raise RestoreRefused(f"{filename}/{MANIFEST_NAME}: not valid JSON ({exc})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != LEGACY_FORMAT:
            raise RestoreRefused(f"{filename}: {MANIFEST_NAME} does not describe a {LEGACY_FORMAT}")
        if manifest.get("format_version") != LEGACY_FORMAT_VERSION:
            raise RestoreRefused(f"{filename}: backup format version {manifest.get('format_version')!r} is not supported")
        if WORK_NAME not in infos:
            raise RestoreRefused(f"{filename}: the backup has no {WORK_NAME}")
        work = member(WORK_NAME, infos[WORK_NAME].file_size)
        files = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
        entry = files.get(WORK_NAME) if isinstance(files.get(WORK_NAME), dict) else {}
        if len(work) != infos[WORK_NAME].file_size or entry.get("sha256") != _sha256(work):
            raise RestoreRefused(f"{filename}/{WORK_NAME}: does not match its checksum; the backup is damaged")
    return LegacyBackup(work, None, manifest)


# ------------------------------------------------------------------ restoring

#: Why a database file is not restored any more (``restore_upload``).
DATABASE_FILE_REFUSED = (
    "a database file is not restored: copied in, it would bring its triggers, views and stored model along. "
    "Restore a backup made by this release (Backup, or `python -m corpus backup`), or a work file "
    "(`python -m corpus dump-work` of the old database)"
)


def restore_work(engine: Engine, data: bytes, filename: str, actor_id: int | None = None) -> RestoreResult:
    """Import a work file all or nothing (``InputRejected`` carries the located errors)."""
    if len(data) > MAX_RESTORE_BYTES:
        raise RestoreRefused(f"{filename}: {len(data):,} bytes is over the {MAX_RESTORE_BYTES:,}-byte limit")
    summary = import_work_file(engine, data, filename, actor_id=actor_id)
    return RestoreResult("work", str(summary), summary)


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
    limits: Limits = Limits(), progress: ProgressCallback | None = None, actor_id: int | None = None,
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
                with Session(bind=conn) as session:  # the writer, checked in the restore's own transaction
                    check_writer(session, actor_id, roles=(Role.ADMIN,), error=RestoreRefused)
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
        archive.check_zip_directory(io.BytesIO(data), "", Limits())
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            info = zf.getinfo(MANIFEST_NAME)
            if info.file_size > Limits().manifest_bytes:
                return True  # let the archive reader refuse it with its reason
            return json_input.loads(zf.read(info)).get("format") != LEGACY_FORMAT
    except (KeyError, ValueError, AttributeError, zipfile.BadZipFile, OSError, EOFError, zlib.error):
        return True  # (an ArchiveRefused too: the archive reader refuses it with its reason)


def restore_upload(
    engine: Engine, data: bytes, filename: str, actor_id: int | None = None, replace: bool = False,
) -> RestoreResult:
    """Restore whatever was uploaded: a project archive, a legacy backup zip (through its work file), or a
    work file. Every path reads rows through a checking reader; a bare database file is refused
    (``DATABASE_FILE_REFUSED``), and so is the database file inside a legacy zip, which is never opened."""
    if data.startswith(SQLITE_HEADER):
        raise RestoreRefused(f"{filename}: {DATABASE_FILE_REFUSED}")
    if data.startswith(b"PK\x03\x04") or filename.lower().endswith(".zip"):
        if is_archive(data):
            return restore_archive(engine, data, filename, replace=replace, actor_id=actor_id)
        contents = read_legacy_backup(data, filename)
        return restore_work(engine, contents.work, f"{filename}/{WORK_NAME}", actor_id)
    return restore_work(engine, data, filename, actor_id)
