"""The rules of the lead's sentence view: which sentence an address names, its neighbours in corpus order,
which translation the others are compared with, how a translation's state reads, and when an item's tags
need a lead.

Pure functions over plain values; ``db.sentence_view`` gathers the rows, ``pages/sentences.py`` shows them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from corpus.bio import tags_agree
from corpus.vocabulary import OPEN_STATUSES, Status

#: The largest row id: the tables' ids are SQL INTEGER, 32 bits on PostgreSQL, which refuses a larger number
#: in a query with an error. A larger number in an address names no sentence and is never sent to the database.
MAX_ROW_ID = 2**31 - 1


def parse_row_id(raw: object) -> int | None:
    """A sentence's row id from an address parameter (``?id=123``): ASCII digits naming a positive integer a
    database can hold; anything else (empty, signed, ``12abc``, other scripts' digits, too large) is None."""
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    if not text or not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    return value if 0 < value <= MAX_ROW_ID else None


def neighbours(order: Sequence[int], current: int) -> tuple[int | None, int | None]:
    """The sentences before and after ``current`` in ``order`` (corpus order); None at either end, and
    (None, None) when ``current`` is not in ``order``."""
    try:
        at = list(order).index(current)
    except ValueError:
        return None, None
    before = order[at - 1] if at > 0 else None
    after = order[at + 1] if at + 1 < len(order) else None
    return before, after


@dataclass(frozen=True)
class Kept:
    """The translation every other one is compared with, and why it is the one."""

    translation_id: int
    reason: str


def kept_translation(
    choice_translation_id: int | None, chosen_by: str | None, pick_translation_id: int | None, pick_reason: str
) -> Kept | None:
    """The final choice in force (a lead's, or the automatic rule's recorded pick), else the automatic pick
    as the rule makes it now; None when neither names a translation."""
    if choice_translation_id is not None:
        who = f"chosen by {chosen_by}" if chosen_by else "recorded by the automatic rule"
        return Kept(choice_translation_id, f"final choice in force ({who})")
    if pick_translation_id is not None:
        return Kept(pick_translation_id, f"automatic pick, not recorded yet: {pick_reason}")
    return None


def translation_state(status: str, untranslatable: bool, reason: str | None = None, note: str | None = None) -> str:
    """A translation's state as the lead reads it: "submitted", "draft", or "untranslatable (idiom)" (with
    the translator's note for a reason of their own); a draft marked untranslatable is still a draft."""
    state = str(status)
    if not untranslatable:
        return state
    why = note if reason == "other" and note else reason
    marked = f"untranslatable ({why})" if why else "untranslatable"  # not-vocabulary: text
    return marked if status == Status.SUBMITTED else f"{state}, marked {marked}"


def annotators_disagree(submitted: Sequence[Sequence[str]]) -> bool:
    """Whether an item's submitted versions need a lead: at least two, and not all the same tags."""
    return len(submitted) >= 2 and not tags_agree(submitted)


def not_started(tasks: Sequence[tuple[str, str, str]], translated: Collection[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """The translation tasks (phase, translator, task status) still open (assigned or skipped) whose translator
    has saved nothing in that phase yet, in phase and name order; a task with a saved translation is shown by
    the translation itself."""
    return sorted((phase, who, status) for phase, who, status in tasks
                  if status in OPEN_STATUSES and (phase, who) not in translated)
