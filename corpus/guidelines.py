"""Versioned guidelines in ``guidelines/*.md``: the first line is ``version: X``; the version is stored
with every translation so a later change of the rules can be traced to the work it affected.

Blocks between ``<!-- aware-only -->`` and ``<!-- /aware-only -->`` are shown only in the aspect-aware
phase, so the aspect-blind page carries no instruction about aspects.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from corpus.vocabulary import phase_spec
from corpus.workfile import check_string

GUIDELINES_DIR = Path(__file__).resolve().parent.parent / "guidelines"
_VERSION = re.compile(r"\Aversion:[ \t]*(\S+)[ \t]*\n")
_AWARE_ONLY = re.compile(r"<!-- aware-only -->.*?<!-- /aware-only -->\n?", re.DOTALL)
_MARKERS = re.compile(r"<!-- /?aware-only -->\n?")


_MARKER = re.compile(r"<!-- (/?)aware-only -->")


def _check_blocks(path: Path, raw: str) -> None:
    """Every aware-only block is closed and none is nested: an unclosed one would not be removed,
    and the blind page would show its instructions about aspects."""
    open_line = None
    for m in _MARKER.finditer(raw):
        line = raw.count("\n", 0, m.start()) + 1
        closing = m.group(1) == "/"
        if closing and open_line is None:
            raise ValueError(f"{path}:{line}: '<!-- /aware-only -->' without an opening marker")
        if not closing and open_line is not None:
            raise ValueError(f"{path}:{line}: aware-only block inside the one opened on line {open_line}")
        open_line = None if closing else line
    if open_line is not None:
        raise ValueError(f"{path}:{open_line}: aware-only block is never closed")


@lru_cache(maxsize=16)
def _read(path: Path, mtime: float) -> tuple[str, str]:
    raw = path.read_text(encoding="utf-8")
    m = _VERSION.match(raw)
    if not m:
        raise ValueError(f"{path}:1: guidelines must start with a 'version: X' line")
    if problem := check_string(m.group(1), "guidelines_version"):  # stored with every translation
        raise ValueError(f"{path}:1: {problem}")
    _check_blocks(path, raw)
    return m.group(1), raw[m.end():].lstrip("\n")


def load_guidelines(name: str = "translation", phase: str | None = None) -> tuple[str, str]:
    """(version, markdown) of ``guidelines/<name>.md``; a phase that hides the source's aspect terms (blind)
    leaves out the aware-only parts."""
    path = GUIDELINES_DIR / f"{name}.md"
    version, body = _read(path, path.stat().st_mtime)
    hides_aspects = phase is not None and not phase_spec(phase).shows_source_aspects
    body = _AWARE_ONLY.sub("", body) if hides_aspects else _MARKERS.sub("", body)
    return version, body.rstrip() + "\n"


def guidelines_version(name: str = "translation") -> str:
    return load_guidelines(name)[0]
