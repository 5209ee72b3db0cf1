"""Errors that say where: file, line and sentence id, collected as data so one bad line is reported precisely."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LocatedError:
    file: str
    message: str
    line: int | None = None
    sentence_id: str | None = None

    @property
    def where(self) -> str:
        parts = [self.file]
        if self.line is not None:
            parts[0] = f"{self.file}:{self.line}"
        if self.sentence_id is not None:
            parts.append(f"sentence {self.sentence_id}")
        return " ".join(parts)

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


class InputRejected(ValueError):
    """Raised when input holds errors; nothing was written."""

    def __init__(self, errors: list[LocatedError]):
        self.errors = list(errors)
        shown = "\n".join(str(e) for e in self.errors[:20])
        more = f"\n... and {len(self.errors) - 20} more" if len(self.errors) > 20 else ""
        super().__init__(f"{len(self.errors)} error(s):\n{shown}{more}")
