"""JSON read from a file someone handed in: only finite numbers, and nesting as a located error (pure).

Python's ``json`` reads ``NaN``, ``Infinity`` and ``1e999`` as floats that PostgreSQL stores and strict
JSON writers (the backup) then refuse, and a line nested thousands deep raises ``RecursionError``. Every
reader of an input (work files, project archives, ``evaluate`` predictions) parses through ``loads`` here
and gets a ``ValueError`` that names the field, which it reports with its file and line.
"""

from __future__ import annotations

import json
import math
from typing import Any


class NotFinite(ValueError):
    """A number that is NaN or infinite; ``field`` is its path in the value (``aspects[0].from``)."""

    def __init__(self, field: str, value: str):
        super().__init__(f"field {field!r} is {value}: only finite numbers are accepted")
        self.field = field
        self.value = value


class _Found(Exception):
    pass


def _refuse_constant(name: str) -> Any:
    raise _Found(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Found(text)
    return value


STRICT = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)


def non_finite_field(value: Any, path: str = "") -> tuple[str, str] | None:
    """The first (path, value) in ``value`` that is a non-finite float, else None (no recursion)."""
    stack = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return where or "(the value)", repr(item).replace("inf", "Infinity").replace("nan", "NaN")
        if isinstance(item, dict):
            stack.extend((f"{where}.{k}" if where else str(k), v) for k, v in reversed(list(item.items())))
        elif isinstance(item, list):
            stack.extend((f"{where}[{i}]", v) for i, v in reversed(list(enumerate(item))))
    return None


def _located(text: str | bytes) -> NotFinite:
    try:
        found = non_finite_field(json.loads(text))
    except (ValueError, RecursionError):
        found = None
    field, value = found or ("(a number)", "not finite")
    return NotFinite(field, value)


def loads(text: str | bytes) -> Any:
    """``json.loads`` that refuses NaN, Infinity and numbers too large for a float (``NotFinite``, naming
    the field), and a value nested too deeply for the parser (a ``ValueError``, not ``RecursionError``)."""
    try:
        return STRICT.decode(text.decode("utf-8") if isinstance(text, (bytes, bytearray)) else text)
    except _Found:
        raise _located(text) from None
    except RecursionError:
        raise ValueError("nested too deeply to read") from None


