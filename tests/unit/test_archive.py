"""The archive format alone: deterministic bytes, exact values, schema versions, and hostile zips refused before unpacking."""

from __future__ import annotations

import io
import json
import tracemalloc
import zipfile
from datetime import datetime, timedelta, timezone

import pytest

from corpus.archive import (
    MANIFEST_NAME,
    ROW_UPGRADES,
    ZIP_DATE,
    ArchiveReader,
    ArchiveRefused,
    ColumnSpec,
    Limits,
    TableSpec,
    encode_row,
    manifest_bytes,
    write_archive,
    zip_info,
)

NOTES = TableSpec("notes", (
    ColumnSpec("id", "int", False), ColumnSpec("text", "text", True), ColumnSpec("score", "float", False),
    ColumnSpec("done", "bool", False), ColumnSpec("at", "datetime", True), ColumnSpec("tags", "json", True),
), ("id",))
SCHEMAS = ("0001", "0002", "0003")  # an invented migration history, oldest first
CURRENT_SCHEMA = SCHEMAS[-1]
ROWS = [
    {"id": 1, "text": "खाना अच्छा था।", "score": 2, "done": 1, "at": datetime(2026, 1, 2, 3, 4, 5, 6),
     "tags": {"b": [1, "B"], "a": None}},
    {"id": 2, "text": None, "score": 0.1, "done": False, "at": None, "tags": None},
]


def archive_of(rows=ROWS, schema=CURRENT_SCHEMA) -> bytes:
    out = io.BytesIO()
    write_archive(out, schema, [(NOTES, rows)])
    return out.getvalue()


def read_all(data: bytes, limits: Limits = Limits(), schemas=SCHEMAS) -> list[dict]:
    with ArchiveReader(data, "a.zip", schemas, limits) as reader:
        (entry,) = reader.manifest.tables
        return [row for _, row in reader.rows(NOTES, entry)]


def rezip(data: bytes, change, extra: dict[str, bytes] | None = None) -> bytes:
    """The archive with members changed (``change(name, bytes)`` -> bytes, or None to drop) or added."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in src.namelist():
            result = change(name, src.read(name))
            if result is not None:
                zf.writestr(name, result)
        for name, body in (extra or {}).items():
            zf.writestr(name, body)
    return out.getvalue()


def with_manifest(data: bytes, edit) -> bytes:
    def change(name, body):
        if name != MANIFEST_NAME:
            return body
        doc = json.loads(body)
        edit(doc)
        return json.dumps(doc).encode()
    return rezip(data, change)


def test_the_same_rows_always_give_the_same_bytes():
    assert archive_of() == archive_of()
    with zipfile.ZipFile(io.BytesIO(archive_of())) as zf:
        assert zf.namelist() == ["notes.jsonl", MANIFEST_NAME]
        assert {i.date_time for i in zf.infolist()} == {ZIP_DATE}
        assert {i.compress_type for i in zf.infolist()} == {zipfile.ZIP_DEFLATED}


def test_values_are_written_in_one_canonical_form():
    line = encode_row(NOTES, ROWS[0]).decode()
    assert line == ('{"at":"2026-01-02T03:04:05.000006Z","done":true,"id":1,"score":2.0,'
                    '"tags":{"a":null,"b":[1,"B"]},"text":"खाना अच्छा था।"}\n')
    aware = dict(ROWS[0], at=datetime(2026, 1, 2, 8, 34, 5, 6, tzinfo=timezone(timedelta(hours=5, minutes=30))))
    assert encode_row(NOTES, aware) == encode_row(NOTES, ROWS[0])


def test_rows_read_back_as_the_values_written():
    assert read_all(archive_of()) == [dict(ROWS[0], score=2.0, done=True), ROWS[1]]


def test_the_manifest_counts_and_checksums_every_file():
    data = archive_of()
    with ArchiveReader(data, "a.zip", SCHEMAS) as reader:
        (entry,) = reader.manifest.tables
        assert (entry.name, entry.file, entry.rows, reader.manifest.schema_version) == \
            ("notes", "notes.jsonl", 2, CURRENT_SCHEMA)
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        import hashlib

        body = zf.read("notes.jsonl")
        assert entry.sha256 == hashlib.sha256(body).hexdigest() and entry.bytes == len(body)
        assert zf.read(MANIFEST_NAME) == manifest_bytes(reader.manifest)


def test_an_archive_of_an_older_known_schema_is_read_through_the_later_revisions_mappings(monkeypatch):
    old = [{k: v for k, v in r.items() if k != "at"} for r in ROWS]  # "at" came with 0002, nullable
    seen = []

    def rename(table, row):
        seen.append(table)
        return {("text" if k == "body" else k): v for k, v in row.items()}
    monkeypatch.setitem(ROW_UPGRADES, "0003", rename)  # 0003 renamed body -> text
    body_rows = [{("body" if k == "text" else k): v for k, v in r.items()} for r in old]
    spec_0001 = TableSpec("notes", tuple(c if c.name != "text" else ColumnSpec("body", "text", True)
                                         for c in NOTES.columns if c.name != "at"), ("id",))
    out = io.BytesIO()
    write_archive(out, "0001", [(spec_0001, body_rows)])
    rows = read_all(out.getvalue())
    assert [r["text"] for r in rows] == [ROWS[0]["text"], None] and [r["at"] for r in rows] == [None, None]
    assert seen == ["notes", "notes"]


def test_an_archive_of_the_current_schema_lacking_a_column_is_refused():
    lines = encode_row(NOTES, ROWS[1]).replace(b'"at":null,', b"")
    with pytest.raises(ArchiveRefused, match="missing column"):
        read_all(_archive_with_lines(lines))


@pytest.mark.parametrize("version", ["9999", "0003a", None, 3])
def test_an_unknown_or_newer_schema_version_is_refused(version):
    data = with_manifest(archive_of(), lambda d: d.update(schema_version=version))
    with pytest.raises(ArchiveRefused, match=r"a.zip/manifest.json: schema version .* is unknown to this release"):
        read_all(data)
    newer = archive_of(schema="0004")
    with pytest.raises(ArchiveRefused, match="'0004' is unknown to this release, which reads 0001, 0002, 0003"):
        read_all(newer)


def _line(n: int, text: str) -> bytes:
    return encode_row(NOTES, dict(ROWS[1], id=n, text=text))


def _same_size_tamper(name, body):
    return body.replace(b"0.1", b"0.2") if name == "notes.jsonl" else body


@pytest.mark.parametrize(
    ("make", "where", "message"),
    [
        (lambda d: d[:len(d) // 2], "a.zip", "not a zip file"),
        (lambda d: b"not a zip at all", "a.zip", "not a zip file"),
        (lambda d: rezip(d, lambda n, b: None if n == MANIFEST_NAME else b), "a.zip", "no manifest.json"),
        (lambda d: rezip(d, lambda n, b: None if n == "notes.jsonl" else b), "a.zip/notes.jsonl",
         "missing from the archive"),
        (lambda d: rezip(d, _same_size_tamper), "a.zip/notes.jsonl", "does not match its checksum"),
        (lambda d: rezip(d, lambda n, b: b"{" if n == MANIFEST_NAME else b), "a.zip/manifest.json", "not valid JSON"),
        (lambda d: rezip(d, lambda n, b: b, {"../evil.jsonl": b"{}\n"}), "a.zip/'../evil.jsonl'", "a path"),
        (lambda d: rezip(d, lambda n, b: b, {"/etc/passwd": b"x"}), "a.zip/'/etc/passwd'", "a path"),
        (lambda d: rezip(d, lambda n, b: b, {"sub/notes.jsonl": b"x"}), "a.zip/'sub/notes.jsonl'", "a path"),
        (lambda d: rezip(d, lambda n, b: b, {"extra.jsonl": b""}), "a.zip/extra.jsonl", "not listed in the manifest"),
        (lambda d: with_manifest(d, lambda m: m.update(format="other")), "a.zip/manifest.json", "does not describe"),
        (lambda d: with_manifest(d, lambda m: m.update(format_version=2)), "a.zip/manifest.json",
         "format version 2 is not supported"),
        (lambda d: with_manifest(d, lambda m: m["tables"][0].update(rows=3)), "a.zip/notes.jsonl",
         "holds 2 rows, the manifest says 3"),
    ],
    ids=["truncated", "not-zip", "no-manifest", "missing-file", "checksum", "bad-manifest", "parent-path",
         "absolute-path", "subfolder", "unlisted-file", "wrong-format", "newer-format", "wrong-count"],
)
def test_damaged_or_hostile_archives_are_refused_with_where(make, where, message):
    with pytest.raises(ArchiveRefused) as caught:
        read_all(make(archive_of()))
    assert caught.value.where == where and message in caught.value.message


def _archive_with_lines(lines: bytes) -> bytes:
    """A well-formed archive (checksums right) whose table file holds these lines."""
    import hashlib

    def change(name, body):
        if name == "notes.jsonl":
            return lines
        doc = json.loads(body)
        doc["tables"][0].update(rows=lines.count(b"\n"), bytes=len(lines), sha256=hashlib.sha256(lines).hexdigest())
        return json.dumps(doc).encode()
    return rezip(archive_of(), change)


@pytest.mark.parametrize(
    ("lines", "where", "message"),
    [
        (_line(1, "a") + b'{"id": 2,\n', "a.zip/notes.jsonl:2", "not valid JSON"),
        (_line(1, "a") + _line(2, "b").replace(b'"id":2', b'"id":"2"'), "a.zip/notes.jsonl:2", "id must be an integer"),
        (_line(1, "a") + _line(2, "b").replace(b'"done":false', b'"done":0'), "a.zip/notes.jsonl:2",
         "done must be true or false"),
        (_line(1, "a").replace(b'"score":0.1', b'"score":NaN'), "a.zip/notes.jsonl:1", "field 'score' is NaN"),
        (_line(1, "a").replace(b'{"at"', b'{"secret":1,"at"'), "a.zip/notes.jsonl:1", "unknown column(s) secret"),
        (_line(1, "a").replace(b'"at":null,', b""), "a.zip/notes.jsonl:1", "missing column(s) at"),
        (_line(1, "a").replace(b'"at":null', b'"at":"yesterday"'), "a.zip/notes.jsonl:1", "at must be a UTC time"),
        (_line(2, "a") + _line(1, "b"), "a.zip/notes.jsonl:2", "sorted by key"),
        (_line(1, "a") + _line(1, "b"), "a.zip/notes.jsonl:2", "sorted by key"),
        (_line(1, "a") + b"[1, 2]\n", "a.zip/notes.jsonl:2", "a row must be a JSON object"),
        (_line(1, "a").rstrip(b"\n"), "a.zip/notes.jsonl:1", "cut short"),
    ],
    ids=["bad-json", "string-key", "int-bool", "nan", "unknown-column", "missing-column", "bad-time", "unsorted",
         "duplicate-key", "not-object", "no-final-newline"],
)
def test_bad_rows_are_refused_with_file_and_line(lines, where, message):
    with pytest.raises(ArchiveRefused) as caught:
        read_all(_archive_with_lines(lines))
    assert caught.value.where == where and message in caught.value.message


def test_declared_sizes_over_the_limits_are_refused_before_unpacking():
    data = archive_of()
    with pytest.raises(ArchiveRefused, match="over the 100-byte limit per file"):
        read_all(data, Limits(member_bytes=100))
    with pytest.raises(ArchiveRefused, match="in all, over the"):
        read_all(data, Limits(total_bytes=400))
    with pytest.raises(ArchiveRefused, match="2 entries.*an archive holds at most 1"):
        read_all(data, Limits(members=1))
    with pytest.raises(ArchiveRefused, match="line longer than 50 bytes"):
        read_all(data, Limits(line_bytes=50))


def test_a_zip_bomb_is_refused_from_its_declared_sizes_with_little_memory():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as zf:
        with zf.open(zip_info("notes.jsonl"), "w") as member:
            zeros = b"0" * (1 << 20)
            for _ in range(200):
                member.write(zeros)
        zf.writestr(zip_info(MANIFEST_NAME), b"{}")
    bomb = out.getvalue()
    assert len(bomb) < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveRefused, match="refused as a zip bomb"):
            read_all(bomb)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20


def test_a_member_that_unpacks_beyond_its_declared_size_is_refused():
    data = archive_of()
    raw = bytearray(data)
    # shrink the declared size of notes.jsonl in the central directory: the reader stops at it and the checksum fails
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = zf.getinfo("notes.jsonl")
    size = info.file_size.to_bytes(4, "little")
    central = raw.index(b"PK\x01\x02")
    at = raw.index(size, central)
    raw[at:at + 4] = (info.file_size - 10).to_bytes(4, "little")
    with pytest.raises(ArchiveRefused):
        read_all(bytes(raw))


def test_a_zip_declaring_a_huge_directory_is_refused_before_the_directory_is_read():
    raw = bytearray(archive_of())
    end = raw.rindex(b"PK\x05\x06")
    raw[end + 8:end + 12] = (60_000).to_bytes(2, "little") * 2  # entries on this disk, entries in all
    raw[end + 12:end + 16] = (50_000_000).to_bytes(4, "little")
    with pytest.raises(ArchiveRefused, match="declares 60,000 entries in a 50,000,000-byte directory"):
        read_all(bytes(raw))
