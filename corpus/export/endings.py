"""How the exported Hindi sentences end: the danda ``।`` the guidelines ask for, or something else.

Older translations end with ``।``; text typed before the editor turned a final ``.`` into ``।`` ends
with ``.``. The card reports every sentence that ends otherwise, by its final mark, with its id, so a
lead can correct them (issue 26); nothing is changed in the data.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

DANDA = "\u0964"
#: Closing quotes and brackets after the final mark do not hide it: ``…था।"`` ends with the danda.
_CLOSERS = "\"'”’»)]}"


def final_mark(text: str) -> str:
    """The sentence's last character that is not space, a closing quote or bracket ('' for an empty text)."""
    stripped = text.rstrip()
    while stripped and stripped[-1] in _CLOSERS:
        stripped = stripped[:-1].rstrip()
    return stripped[-1:] if stripped else ""


@dataclass(frozen=True)
class EndingsReport:
    sentences: int
    with_danda: int
    #: final mark ('' = empty) -> ids of the sentences ending with it, in export order (danda excluded)
    otherwise: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ending_otherwise(self) -> int:
        return self.sentences - self.with_danda


def endings_report(sentences: Iterable[tuple[str, str]]) -> EndingsReport:
    """``sentences``: (id, Hindi text). Counts those ending with the danda and lists the rest by final mark."""
    total = danda = 0
    otherwise: dict[str, list[str]] = {}
    for uid, text in sentences:
        total += 1
        mark = final_mark(text)
        if mark == DANDA:
            danda += 1
        else:
            otherwise.setdefault(mark, []).append(uid)
    ordered = dict(sorted(otherwise.items(), key=lambda kv: (-len(kv[1]), kv[0])))
    return EndingsReport(total, danda, ordered)


def mark_name(mark: str) -> str:
    names = {".": "full stop `.`", "?": "question mark `?`", "!": "exclamation mark `!`", "|": "bar `|`",
             "": "(empty)"}
    return names.get(mark, f"`{mark}` (U+{ord(mark):04X})")
