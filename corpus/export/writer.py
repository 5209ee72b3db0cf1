"""Writes an export's files to a directory or into one zip (the only part that touches files)."""

from __future__ import annotations

import io
import os
import struct
import zipfile
import zlib
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path, PurePosixPath

# Text compresses ~8x even at level 1, which is several times faster than the default 6.
ZIP_LEVEL = 1
#: Every member's time stamp (a fixed one: the same files give the same zip).
ZIP_DATE_TIME = (2020, 1, 1, 0, 0, 0)


def _safe(relpath: str) -> PurePosixPath:
    p = PurePosixPath(relpath)
    if p.is_absolute() or ".." in p.parts or not p.parts:
        raise ValueError(f"refusing to write outside the export directory: {relpath!r}")
    return p


def write_directory(files: Mapping[str, str | bytes], out_dir: str | Path) -> list[Path]:
    """All or nothing: every path is checked before the first file is written (a bad one, say a domain named
    before import refused path characters, writes nothing), each file is written as ``.NAME.partial`` beside
    its target, and only when all are written are they renamed into place; on an error the partial files and
    the folders this call made are removed, and the error is raised."""
    out = Path(out_dir)
    safe = {rel: _safe(rel) for rel in files}
    made: list[Path] = []
    staged: list[tuple[Path, Path]] = []
    try:
        for rel, text in files.items():
            path = out.joinpath(*safe[rel].parts)
            _make_parents(path.parent, made)
            partial = path.with_name(f".{path.name}.partial")
            staged.append((partial, path))
            partial.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
        for partial, path in staged:
            partial.replace(path)
    except BaseException:
        for leftover in [partial for partial, _ in staged] + list(reversed(made)):
            try:
                leftover.rmdir() if leftover in made else leftover.unlink(missing_ok=True)
            except OSError:
                pass
        raise
    return [path for _, path in staged]


def _make_parents(folder: Path, made: list[Path]) -> None:
    """``mkdir -p`` that remembers the folders it made (outermost first)."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        if folder.parent == folder:
            break
        folder = folder.parent
    for f in reversed(missing):
        f.mkdir(exist_ok=True)
        made.append(f)


def zip_bytes(files: Mapping[str, str | bytes], root: str = "hindi-aspect-corpus") -> bytes:
    """The files in one zip under ``root/``: the bytes ``zipfile`` writes (deflate level ``ZIP_LEVEL``, fixed
    times, mode 644), with the members compressed side by side in threads (zlib lets go of the GIL while it
    deflates, which is most of a zip's time). An archive that might need zip64 (2 GB, 65,535 members: at 4
    bytes a character) goes to ``zipfile`` whole."""
    names = [f"{root}/{_safe(rel)}" for rel in files]
    texts = list(files.values())
    if len(texts) >= 0xFFFF or sum(map(len, texts)) * 4 * 1.05 + len(texts) * 1024 > zipfile.ZIP64_LIMIT:
        return _zipfile_bytes(names, [_utf8(text) for text in texts])
    workers = min(len(texts), os.cpu_count() or 1, 4)
    if workers <= 1:
        packed = list(map(_deflated, texts))
    else:  # one thread encodes a text while another deflates; the largest first, so none is left with a big one
        with ThreadPoolExecutor(workers) as pool:
            futures = {i: pool.submit(_deflated, texts[i]) for i in sorted(range(len(texts)), key=lambda i: -len(texts[i]))}
            packed = [futures[i].result() for i in range(len(texts))]
    return _zip_archive(names, packed)


def _utf8(text: str | bytes) -> bytes:
    return text.encode("utf-8") if isinstance(text, str) else bytes(text)


def _deflated(text: str | bytes) -> tuple[int, int, bytes]:
    """A member's CRC-32, size and raw deflate stream, as ``zipfile`` makes them (one compressor, one flush)."""
    data = _utf8(text)
    compressor = zlib.compressobj(ZIP_LEVEL, zlib.DEFLATED, -15)
    return zlib.crc32(data), len(data), compressor.compress(data) + compressor.flush()


_LOCAL = struct.Struct("<4s2B4HL2L2H")  # zipfile's structFileHeader, structCentralDir, structEndArchive
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")
_END = struct.Struct("<4s4H2LH")
_VERSION = 20  # deflate needs version 2.0 to extract
_UNIX = 3
_MODE = 0o644 << 16
_UTF8_NAME = 0x800


def _zip_archive(names: list[str], packed: list[tuple[int, int, bytes]]) -> bytes:
    """Local headers with the data, the central directory and its end record, field for field as
    ``zipfile.ZipFile.writestr`` writes them into a seekable file (no data descriptors, no zip64)."""
    dt = ZIP_DATE_TIME
    dosdate = (dt[0] - 1980) << 9 | dt[1] << 5 | dt[2]
    dostime = dt[3] << 11 | dt[4] << 5 | (dt[5] // 2)
    parts: list[bytes] = []
    central: list[bytes] = []
    offset = 0
    for name, (crc, size, deflated) in zip(names, packed):
        try:
            encoded, flags = name.encode("ascii"), 0
        except UnicodeEncodeError:
            encoded, flags = name.encode("utf-8"), _UTF8_NAME
        header = _LOCAL.pack(b"PK\x03\x04", _VERSION, 0, flags, zipfile.ZIP_DEFLATED, dostime, dosdate, crc,
                             len(deflated), size, len(encoded), 0)
        parts += (header, encoded, deflated)
        central += (_CENTRAL.pack(b"PK\x01\x02", _VERSION, _UNIX, _VERSION, 0, flags, zipfile.ZIP_DEFLATED,
                                  dostime, dosdate, crc, len(deflated), size, len(encoded), 0, 0, 0, 0,
                                  _MODE, offset), encoded)
        offset += len(header) + len(encoded) + len(deflated)
    directory = b"".join(central)
    end = _END.pack(b"PK\x05\x06", 0, 0, len(names), len(names), len(directory), offset, 0)
    return b"".join([*parts, directory, end])


def _zipfile_bytes(names: list[str], data: list[bytes]) -> bytes:
    """The same archive by ``zipfile`` alone (one member after another; zip64 where the sizes need it)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL) as zf:
        for name, raw in zip(names, data):
            info = zipfile.ZipInfo(name, date_time=ZIP_DATE_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = _MODE
            zf.writestr(info, raw, compresslevel=ZIP_LEVEL)
    return buffer.getvalue()
