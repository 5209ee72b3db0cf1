"""Writes an export's files to a directory or into one zip (the only part that touches files)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

# Text compresses ~8x even at level 1, which is several times faster than the default 6.
ZIP_LEVEL = 1


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


def zip_bytes(files: Mapping[str, str], root: str = "hindi-aspect-corpus") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL) as zf:
        for rel, text in files.items():
            info = zipfile.ZipInfo(f"{root}/{_safe(rel)}", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, text.encode("utf-8"), compresslevel=ZIP_LEVEL)
    return buffer.getvalue()
