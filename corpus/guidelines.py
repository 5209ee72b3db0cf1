"""Versioned guidelines in ``guidelines/*.md``: the first line is ``version: X``; the version is stored
with every translation so a later change of the rules can be traced to the work it affected.

Blocks between ``<!-- aware-only -->`` and ``<!-- /aware-only -->`` are shown only in the aspect-aware
phase, so the aspect-blind page carries no instruction about aspects.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

GUIDELINES_DIR = Path(__file__).resolve().parent.parent / "guidelines"
_VERSION = re.compile(r"\Aversion:\s*(\S+)\s*\n")
_AWARE_ONLY = re.compile(r"<!-- aware-only -->.*?<!-- /aware-only -->\n?", re.DOTALL)
_MARKERS = re.compile(r"<!-- /?aware-only -->\n?")


@lru_cache(maxsize=16)
def _read(path: Path, mtime: float) -> tuple[str, str]:
    raw = path.read_text(encoding="utf-8")
    m = _VERSION.match(raw)
    if not m:
        raise ValueError(f"{path}:1: guidelines must start with a 'version: X' line")
    return m.group(1), raw[m.end():].lstrip("\n")


def load_guidelines(name: str = "translation", phase: str | None = None) -> tuple[str, str]:
    """(version, markdown) of ``guidelines/<name>.md``; ``phase="blind"`` leaves out aware-only parts."""
    path = GUIDELINES_DIR / f"{name}.md"
    version, body = _read(path, path.stat().st_mtime)
    body = _AWARE_ONLY.sub("", body) if phase == "blind" else _MARKERS.sub("", body)
    return version, body.rstrip() + "\n"


def guidelines_version(name: str = "translation") -> str:
    return load_guidelines(name)[0]
