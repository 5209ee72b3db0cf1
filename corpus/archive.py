"""The project archive format: one JSONL file per table, a manifest, deterministic zip bytes (pure; no database).

An archive is a zip of ``<table>.jsonl`` files (one JSON object per row, rows sorted by primary key,
keys sorted, datetimes as ISO UTC with microseconds, JSON columns as nested values) followed by
``manifest.json`` (format, the alembic schema revision, and each table's file, row count, size and
SHA-256). Every zip entry has the same timestamp, permissions and compression, so the same rows always
give the same bytes: backup → restore → backup is byte-identical, whatever database held the rows.

Reading never trusts the zip: member names, declared sizes, the total, the compression ratio and every
line's length are checked before anything is unpacked or parsed, and a file is read as a stream, so a
hostile archive costs bounded memory. Every refusal names the file (and line) at fault.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import re
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import IO, Any

from corpus import json_input

FORMAT = "corpus-archive"
FORMAT_VERSION = 1
MANIFEST_NAME = "manifest.json"
#: Every entry carries this timestamp (the zip format's earliest), so the bytes never depend on the clock.
ZIP_DATE = (1980, 1, 1, 0, 0, 0)
_TABLE_FILE = re.compile(r"^[a-z][a-z0-9_]{0,62}\.jsonl$")
_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")
_CHUNK = 1 << 20

KINDS = ("int", "float", "bool", "text", "datetime", "json")


class ArchiveRefused(ValueError):
    """The archive cannot be used; ``where`` is the archive, file and line at fault. Nothing was written."""

    def __init__(self, where: str, message: str):
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


@dataclass(frozen=True)
class Limits:
    """What a restore accepts before unpacking anything (declared sizes), and per line while reading."""

    member_bytes: int = 2 * 1024**3 - 1
    total_bytes: int = 8 * 1024**3
    manifest_bytes: int = 1024**2
    line_bytes: int = 64 * 1024**2
    members: int = 200
    #: Unpacked / packed size above which a member is taken for a zip bomb (JSONL of this project packs ~10×).
    ratio: int = 200


@dataclass(frozen=True)
class ColumnSpec:
    name: str
    kind: str
    nullable: bool


@dataclass(frozen=True)
class TableSpec:
    """A table as the archive sees it: its columns and its primary key (rows are sorted by it)."""

    name: str
    columns: tuple[ColumnSpec, ...]
    key: tuple[str, ...]

    @property
    def file(self) -> str:
        return f"{self.name}.jsonl"

    @functools.cached_property
    def names(self) -> frozenset[str]:
        return frozenset(c.name for c in self.columns)


@dataclass(frozen=True)
class TableEntry:
    name: str
    file: str
    rows: int
    bytes: int
    sha256: str


@dataclass(frozen=True)
class Manifest:
    schema_version: str
    tables: tuple[TableEntry, ...]

    def counts(self) -> dict[str, int]:
        return {t.name: t.rows for t in self.tables}


# ------------------------------------------------------------------ values


def encode_value(column: ColumnSpec, value: Any) -> Any:
    """A column value as it is written: the same value from SQLite or PostgreSQL gives the same JSON."""
    if value is None:
        return None
    if column.kind == "datetime":
        if value.tzinfo is not None:
            value = value.astimezone(timezone.utc).replace(tzinfo=None)
        return value.isoformat(timespec="microseconds") + "Z"
    if column.kind == "float":
        return float(value)
    if column.kind == "bool":
        return bool(value)
    if column.kind == "int":
        return int(value)
    return value


def encode_row(table: TableSpec, row: Any) -> bytes:
    """One line: the row as a JSON object with sorted keys (nested JSON values sorted too)."""
    obj = {c.name: encode_value(c, row[c.name]) for c in table.columns}
    try:
        text = json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except ValueError:  # NaN or Infinity stored by an earlier release: say where, write nothing more
        field, value = json_input.non_finite_field(obj) or ("(a value)", "not finite")
        key = ", ".join(f"{k}={obj.get(k)!r}" for k in table.key)
        raise ValueError(f"{table.name} row {key}: field {field!r} is {value}; an archive holds only finite "
                         "numbers (correct the row, then back up again)") from None
    return (text + "\n").encode("utf-8")


def _decode_value(column: ColumnSpec, value: Any) -> tuple[Any, str | None]:
    """The value to insert, or a problem."""
    if value is None:
        return None, None if column.nullable else f"{column.name} must not be null"
    kind = column.kind
    if kind == "int" and (not isinstance(value, int) or isinstance(value, bool)):
        return None, f"{column.name} must be an integer, got {value!r:.40}"
    if kind == "float":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return None, f"{column.name} must be a number, got {value!r:.40}"
        return float(value), None
    if kind == "bool" and not isinstance(value, bool):
        return None, f"{column.name} must be true or false, got {value!r:.40}"
    if kind == "text" and not isinstance(value, str):
        return None, f"{column.name} must be a string, got {value!r:.40}"
    if kind == "datetime":
        if not isinstance(value, str) or not _DATETIME.match(value):
            return None, f"{column.name} must be a UTC time like 2026-01-31T12:00:00.000000Z, got {value!r:.40}"
        try:
            return datetime.fromisoformat(value[:-1]), None
        except ValueError:
            return None, f"{column.name} is not a valid time: {value!r:.40}"
    return value, None


def decode_row(table: TableSpec, obj: Any) -> dict[str, Any]:
    """A parsed line as column values, checked against the table (raises ValueError with the problem)."""
    if not isinstance(obj, dict):
        raise ValueError("a row must be a JSON object")
    names = table.names
    if obj.keys() != names:
        unknown, missing = sorted(set(obj) - names), sorted(names - set(obj))
        parts = ([f"unknown column(s) {', '.join(unknown)}"] if unknown else []) + \
                ([f"missing column(s) {', '.join(missing)}"] if missing else [])
        raise ValueError(f"{table.name}: " + "; ".join(parts))
    row = {}
    for column in table.columns:
        value = obj[column.name]
        kind = column.kind
        if value is None or kind == "json" or (kind == "text" and type(value) is str) \
                or (kind == "int" and type(value) is int) or (kind == "bool" and type(value) is bool):
            if value is None and not column.nullable:
                raise ValueError(f"{column.name} must not be null")
            row[column.name] = value
            continue
        value, problem = _decode_value(column, value)
        if problem:
            raise ValueError(problem)
        row[column.name] = value
    return row


def parse_line(line: bytes) -> Any:
    """One row's JSON: NaN, Infinity, a number too large for a float, or nesting too deep to parse is a
    ValueError naming the problem (``corpus.json_input``), which the reader locates by file and line."""
    return json_input.loads(line.decode("utf-8"))


# ------------------------------------------------------------------ older schemas
#
# The schema revisions a release reads are its alembic migrations, oldest first (``schemas``; the last is the
# schema it writes). A row of an older archive goes through each later revision's mapping. A revision that
# only adds tables or indexes needs none; a column added as nullable is filled with NULL, as the migration
# fills existing rows; anything else (a renamed column, a new NOT NULL column) needs its entry here, else
# the restore is refused at the first row that lacks it.

RowMap = Callable[[str, dict[str, Any]], dict[str, Any]]

#: How a row written under the revision before each key becomes a row of that revision.
ROW_UPGRADES: dict[str, RowMap] = {}


def upgrade_row(schemas: Sequence[str], schema_version: str, table: str, row: dict[str, Any]) -> dict[str, Any]:
    """A row of an archive written under ``schema_version``, mapped through every later revision."""
    for revision in schemas[schemas.index(schema_version) + 1:]:
        mapping = ROW_UPGRADES.get(revision)
        if mapping is not None:
            row = mapping(table, row)
    return row


def fill_added_columns(table: TableSpec, row: dict[str, Any]) -> dict[str, Any]:
    """Nullable columns an older schema did not have are NULL, as their migration leaves existing rows."""
    missing = [c.name for c in table.columns if c.nullable and c.name not in row]
    return {**row, **dict.fromkeys(missing)} if missing else row


def check_schema_version(version: Any, schemas: Sequence[str], where: str) -> str:
    if isinstance(version, str) and version in schemas:
        return version
    raise ArchiveRefused(
        where, f"schema version {version!r} is unknown to this release, which reads {', '.join(schemas)} "
               "(an archive from a newer release needs that release or a newer one)")


# ------------------------------------------------------------------ writing


def zip_info(name: str) -> zipfile.ZipInfo:
    """An entry whose header bytes depend on nothing but its name."""
    info = zipfile.ZipInfo(name, date_time=ZIP_DATE)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.create_system = 3
    info.external_attr = 0o100644 << 16
    return info


@dataclass
class _Digest:
    rows: int = 0
    bytes: int = 0
    sha: Any = field(default_factory=hashlib.sha256)


def manifest_bytes(manifest: Manifest) -> bytes:
    doc = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "schema_version": manifest.schema_version,
        "tables": [{"name": t.name, "file": t.file, "rows": t.rows, "bytes": t.bytes, "sha256": t.sha256}
                   for t in manifest.tables],
    }
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8")


def write_archive(out: IO[bytes], schema_version: str, tables: Iterable[tuple[TableSpec, Iterable[Any]]]) -> Manifest:
    """Write the archive to a seekable binary stream: each table's rows (already sorted by key) as a
    streamed member, then the manifest. Returns the manifest."""
    entries = []
    with zipfile.ZipFile(out, "w") as zf:
        for table, rows in tables:
            digest = _Digest()
            pending: list[bytes] = []
            pending_bytes = 0
            with zf.open(zip_info(table.file), "w") as member:
                for row in rows:
                    line = encode_row(table, row)
                    pending.append(line)
                    pending_bytes += len(line)
                    digest.rows += 1
                    if pending_bytes >= _CHUNK:  # compress in chunks: a zlib call per line costs a third of a backup
                        _write_chunk(member, digest, pending)
                        pending, pending_bytes = [], 0
                _write_chunk(member, digest, pending)
            entries.append(TableEntry(table.name, table.file, digest.rows, digest.bytes, digest.sha.hexdigest()))
        manifest = Manifest(schema_version, tuple(entries))
        with zf.open(zip_info(MANIFEST_NAME), "w") as member:
            member.write(manifest_bytes(manifest))
    return manifest


def _write_chunk(member: IO[bytes], digest: _Digest, lines: list[bytes]) -> None:
    chunk = b"".join(lines)
    member.write(chunk)
    digest.sha.update(chunk)
    digest.bytes += len(chunk)


# ------------------------------------------------------------------ reading


_END_OF_DIRECTORY = b"PK\x05\x06"


def check_zip_directory(file: IO[bytes], where: str, limits: Limits) -> None:
    """The zip's own count and size of its directory, read from its last bytes before ``zipfile`` loads the
    directory (a zip declaring millions of entries would cost memory before any entry could be checked)."""
    file.seek(0, io.SEEK_END)
    size = file.tell()
    tail_start = max(0, size - (1 << 16) - 22)
    file.seek(tail_start)
    tail = file.read()
    at = tail.rfind(_END_OF_DIRECTORY)
    if at < 0 or len(tail) - at < 22:
        return  # not a zip: zipfile says so
    entries = int.from_bytes(tail[at + 10:at + 12], "little")
    directory_bytes = int.from_bytes(tail[at + 12:at + 16], "little")
    if entries == 0xFFFF or directory_bytes == 0xFFFFFFFF:
        return  # zip64 counts: zipfile reads them, the member checks follow
    if entries > limits.members or directory_bytes > limits.members * 1024:
        raise ArchiveRefused(where, f"declares {entries:,} entries in a {directory_bytes:,}-byte directory; an "
                                    f"archive holds at most {limits.members}")
    file.seek(0)


def _check_members(zf: zipfile.ZipFile, where: str, limits: Limits) -> dict[str, zipfile.ZipInfo]:
    """Names, count and declared sizes, before a byte is unpacked."""
    infos = zf.infolist()
    if len(infos) > limits.members:
        raise ArchiveRefused(where, f"{len(infos)} entries; an archive holds at most {limits.members}")
    seen: dict[str, zipfile.ZipInfo] = {}
    total = 0
    for info in infos:
        name = info.filename
        if name != MANIFEST_NAME and not _TABLE_FILE.match(name):
            raise ArchiveRefused(f"{where}/{name!r}", "not a file an archive holds (a path, or an unexpected name)")
        if name in seen:
            raise ArchiveRefused(f"{where}/{name}", "appears twice in the zip")
        if info.flag_bits & 0x1:
            raise ArchiveRefused(f"{where}/{name}", "is encrypted")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise ArchiveRefused(f"{where}/{name}", f"uses compression method {info.compress_type}; "
                                                    "only stored or deflated entries are read")
        if info.file_size > limits.member_bytes:
            raise ArchiveRefused(f"{where}/{name}", f"declares {info.file_size:,} bytes unpacked, over the "
                                                    f"{limits.member_bytes:,}-byte limit per file")
        if info.file_size > 1024**2 and info.file_size > limits.ratio * max(info.compress_size, 1):
            raise ArchiveRefused(f"{where}/{name}", f"unpacks {info.file_size // max(info.compress_size, 1):,} "
                                                    "times its packed size; refused as a zip bomb")
        total += info.file_size
        seen[name] = info
    if total > limits.total_bytes:
        raise ArchiveRefused(where, f"declares {total:,} bytes unpacked in all, over the {limits.total_bytes:,}-byte "
                                    "limit")
    return seen


def _read_manifest(zf: zipfile.ZipFile, infos: dict[str, zipfile.ZipInfo], where: str, limits: Limits,
                   schemas: Sequence[str]) -> Manifest:
    here = f"{where}/{MANIFEST_NAME}"
    info = infos.get(MANIFEST_NAME)
    if info is None:
        raise ArchiveRefused(where, f"no {MANIFEST_NAME}; this is not a project archive")
    if info.file_size > limits.manifest_bytes:
        raise ArchiveRefused(here, f"{info.file_size:,} bytes, over the {limits.manifest_bytes:,}-byte limit")
    try:
        with zf.open(info) as member:
            doc = json_input.loads(member.read(limits.manifest_bytes + 1).decode("utf-8"))
    except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
        raise ArchiveRefused(here, f"cannot be unpacked ({exc})") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise ArchiveRefused(here, f"not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise ArchiveRefused(here, f"does not describe a {FORMAT}")
    if doc.get("format_version") != FORMAT_VERSION:
        raise ArchiveRefused(here, f"archive format version {doc.get('format_version')!r} is not supported "
                                   f"(this release reads {FORMAT_VERSION})")
    schema = check_schema_version(doc.get("schema_version"), schemas, here)
    raw_tables = doc.get("tables")
    if not isinstance(raw_tables, list):
        raise ArchiveRefused(here, "has no list of tables")
    entries, names = [], set()
    for n, raw in enumerate(raw_tables):
        try:
            entry = TableEntry(**raw) if isinstance(raw, dict) else None
        except TypeError:
            entry = None
        if (entry is None or not isinstance(entry.name, str) or entry.file != f"{entry.name}.jsonl"
                or not _TABLE_FILE.match(entry.file) or not isinstance(entry.rows, int) or entry.rows < 0
                or not isinstance(entry.bytes, int) or not isinstance(entry.sha256, str)
                or not re.fullmatch(r"[0-9a-f]{64}", entry.sha256)):
            raise ArchiveRefused(here, f"table entry {n + 1} is malformed")
        if entry.name in names:
            raise ArchiveRefused(here, f"lists table {entry.name} twice")
        names.add(entry.name)
        member = infos.get(entry.file)
        if member is None:
            raise ArchiveRefused(f"{where}/{entry.file}", "is listed in the manifest but missing from the archive")
        if member.file_size != entry.bytes:
            raise ArchiveRefused(f"{where}/{entry.file}", f"holds {member.file_size:,} bytes, the manifest says "
                                                          f"{entry.bytes:,}")
        entries.append(entry)
    extra = sorted(set(infos) - names_files(entries) - {MANIFEST_NAME})
    if extra:
        raise ArchiveRefused(f"{where}/{extra[0]}", "is not listed in the manifest")
    return Manifest(schema, tuple(entries))


def names_files(entries: Iterable[TableEntry]) -> set[str]:
    return {e.file for e in entries}


class ArchiveReader:
    """An opened, checked archive: the manifest, and each table's rows as a stream of checked lines."""

    def __init__(self, source: str | IO[bytes] | bytes, where: str, schemas: Sequence[str],
                 limits: Limits = Limits()):
        self.where = where
        self.limits = limits
        self.schemas = tuple(schemas)
        if isinstance(source, (bytes, bytearray)):
            self._file: IO[bytes] = io.BytesIO(source)
        elif isinstance(source, str):
            try:
                self._file = open(source, "rb")  # noqa: SIM115 (closed by close())
            except OSError as exc:
                raise ArchiveRefused(where, f"cannot read file: {exc.strerror or exc}") from None
        else:
            self._file = source
        try:
            check_zip_directory(self._file, where, limits)
            self._zip = zipfile.ZipFile(self._file)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as exc:
            self._file.close()
            if isinstance(exc, ArchiveRefused):
                raise
            raise ArchiveRefused(where, f"not a zip file ({exc})") from None
        try:
            self._infos = _check_members(self._zip, where, limits)
            self.manifest = _read_manifest(self._zip, self._infos, where, limits, self.schemas)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self._zip.close()
        self._file.close()

    def __enter__(self) -> ArchiveReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def lines(self, entry: TableEntry) -> Iterator[tuple[int, Any]]:
        """(line number, parsed JSON) of a table file, streamed; at the end the row count, size and checksum
        are compared with the manifest (so use every row only once the stream has ended)."""
        here = f"{self.where}/{entry.file}"
        digest = _Digest()
        limit = self.limits.line_bytes
        try:
            with self._zip.open(self._infos[entry.file]) as member:
                while True:
                    line = member.readline(limit + 1)
                    if not line:
                        break
                    digest.rows += 1
                    digest.bytes += len(line)
                    digest.sha.update(line)
                    if digest.bytes > entry.bytes:
                        raise ArchiveRefused(here, f"unpacks to more than the {entry.bytes:,} bytes declared")
                    if len(line) > limit:
                        raise ArchiveRefused(f"{here}:{digest.rows}", f"line longer than {limit:,} bytes")
                    if not line.endswith(b"\n"):
                        raise ArchiveRefused(f"{here}:{digest.rows}", "the last line is cut short (no newline)")
                    try:
                        obj = parse_line(line)
                    except json_input.NotFinite as exc:
                        raise ArchiveRefused(f"{here}:{digest.rows}", str(exc)) from None
                    except (ValueError, UnicodeDecodeError) as exc:
                        raise ArchiveRefused(f"{here}:{digest.rows}", f"not valid JSON ({exc})") from None
                    yield digest.rows, obj
        except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
            raise ArchiveRefused(here, f"cannot be unpacked ({exc}); the archive is damaged") from None
        if digest.sha.hexdigest() != entry.sha256 or digest.bytes != entry.bytes:
            raise ArchiveRefused(here, "does not match its checksum in the manifest; the archive is damaged")
        if digest.rows != entry.rows:
            raise ArchiveRefused(here, f"holds {digest.rows:,} rows, the manifest says {entry.rows:,}")

    def rows(self, table: TableSpec, entry: TableEntry) -> Iterator[tuple[int, dict[str, Any]]]:
        """(line number, row) checked against the current schema, in strictly increasing key order."""
        here = f"{self.where}/{entry.file}"
        previous = None
        older = self.manifest.schema_version != self.schemas[-1]
        for line_no, obj in self.lines(entry):
            try:
                if isinstance(obj, dict) and older:
                    obj = fill_added_columns(table, upgrade_row(self.schemas, self.manifest.schema_version,
                                                                table.name, obj))
                row = decode_row(table, obj)
            except ValueError as exc:
                raise ArchiveRefused(f"{here}:{line_no}", str(exc)) from None
            key = tuple(row[k] for k in table.key)
            if any(v is None for v in key):
                raise ArchiveRefused(f"{here}:{line_no}", "the primary key is missing")
            if previous is not None and key <= previous:
                raise ArchiveRefused(f"{here}:{line_no}", f"key {key} is not after the previous row's {previous}; "
                                                           "rows must be unique and sorted by key")
            previous = key
            yield line_no, row


def check_tables(manifest: Manifest, known: Iterable[str], where: str) -> None:
    """Every table in the archive must exist in this schema (an absent one is simply empty)."""
    known = set(known)
    unknown = [t.name for t in manifest.tables if t.name not in known]
    if unknown:
        raise ArchiveRefused(f"{where}/{MANIFEST_NAME}", f"table(s) {', '.join(unknown)} do not exist in this "
                                                         "release's schema")
