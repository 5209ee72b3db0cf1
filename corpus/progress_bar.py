"""A progress bar for long commands (an import of a whole project), on stderr and only on a terminal:
a pipe or a log file gets no carriage-return noise. Feed it ``(stage, done, total)`` reports."""

from __future__ import annotations

import sys
import time
from typing import TextIO


def bar_line(stage: str, done: int, total: int, width: int = 30) -> str:
    """One line of the bar: the stage, a bar of ``width`` cells and the share done."""
    share = 1.0 if total <= 0 else min(max(done / total, 0.0), 1.0)
    filled = round(share * width)
    return f"{stage:<10} [{'#' * filled}{'-' * (width - filled)}] {share:4.0%}"


class TerminalProgress:
    """Call it with progress reports; it redraws one line of ``stream`` (default stderr) at most
    ``per_second`` times a second. Off when the stream is not a terminal (unless ``enabled``)."""

    def __init__(self, stream: TextIO | None = None, enabled: bool | None = None, per_second: float = 10.0):
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.interval = 1.0 / per_second
        self._last = (None, -1.0)  # stage drawn last, when
        self._drawn = False

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        last_stage, last_time = self._last
        if stage == last_stage and done < total and now - last_time < self.interval:
            return
        if last_stage is not None and stage != last_stage:
            self.stream.write("\n")
        self.stream.write("\r" + bar_line(stage, done, total))
        self.stream.flush()
        self._last = (stage, now)
        self._drawn = True

    def close(self) -> None:
        """End the bar's line (call it whether the command succeeded or not)."""
        if self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
