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


def write_directory(files: Mapping[str, str], out_dir: str | Path) -> list[Path]:
    """Every path is checked before the first file is written, so a bad one (say a domain named before
    import refused path characters) leaves no half-written export."""
    out = Path(out_dir)
    safe = {rel: _safe(rel) for rel in files}
    written = []
    for rel, text in files.items():
        path = out.joinpath(*safe[rel].parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.encode("utf-8"))
        written.append(path)
    return written


def zip_bytes(files: Mapping[str, str], root: str = "hindi-aspect-corpus") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=ZIP_LEVEL) as zf:
        for rel, text in files.items():
            info = zipfile.ZipInfo(f"{root}/{_safe(rel)}", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, text.encode("utf-8"), compresslevel=ZIP_LEVEL)
    return buffer.getvalue()
