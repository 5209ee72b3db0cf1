""""Someone saved first": one exception family for every save refused because the record changed.

A save names what its author loaded (a version, or the decision in force they saw). When the stored one
has moved on, nothing is written and the save raises a ``SavedFirst``: it carries both versions, and who
saved theirs and when, so every page shows the same panel (``ui/conflict.py``) and the author either keeps
theirs or replaces it with theirs knowingly. Each kind of record raises its own subclass (``StaleTranslation``,
``StaleAnnotation``, ``StaleDecision``, ``StaleChoice``), so a caller that cares about one kind catches it by
name, and one that handles them all catches ``SavedFirst``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any


def utc_stamp(moment: datetime | None) -> str | None:
    """A stored moment as people read it on every page (stored times are UTC)."""
    return None if moment is None else f"{moment:%Y-%m-%d %H:%M:%S} UTC"


class SavedFirst(RuntimeError):
    """The record changed since it was loaded; nothing was written.

    ``mine``: what this save tried to store. ``theirs``: what is stored now (None: nothing is, e.g. the
    record or the gold no longer exists). ``who``: who saved theirs (None: the author themselves, in
    another tab or window, or not known). ``when``: when theirs was saved, as text (``utc_stamp``), or None.
    The message says what happened in words a page can show as it is.
    """

    def __init__(self, message: str, *, mine: Any, theirs: Any | None, who: str | None = None,
                 when: datetime | str | None = None) -> None:
        super().__init__(message)
        self.mine = mine
        self.theirs = theirs
        self.who = who
        self.when = utc_stamp(when) if isinstance(when, datetime) else when

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""
