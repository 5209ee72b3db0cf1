"""The method's vocabulary: every status, role, phase and gold source the product stores, in one place.

The members are ``StrEnum``s, so they compare equal to, hash like and serialize as their stored
strings (work files, metric keys and the database keep the same values). The database's CHECK
constraints are built from these enums by ``check_in``, so a new value is added here once.
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """Where a task (an assignment) or a record (a translation, an annotation) stands."""

    ASSIGNED = "assigned"      # a task nobody has started
    DRAFT = "draft"            # saved, still being worked on
    SUBMITTED = "submitted"    # handed in; read-only until the lead reopens it
    SKIPPED = "skipped"        # the worker passed it on; still theirs to come back to
    REASSIGNED = "reassigned"  # moved to someone else (a deactivated or rebalanced worker)


#: The statuses a translation or annotation record can have (tasks have all of ``Status``).
RECORD_STATUSES = (Status.DRAFT, Status.SUBMITTED)
#: A task that still belongs to its worker and is not handed in.
OPEN_STATUSES = (Status.ASSIGNED, Status.DRAFT, Status.SKIPPED)
#: A task that no longer counts towards its sentence (gold waits only for active assignees).
INACTIVE_STATUSES = (Status.REASSIGNED, Status.SKIPPED)


class Role(StrEnum):
    TRANSLATOR = "translator"
    ANNOTATOR = "annotator"
    LEAD = "lead"
    ADMIN = "admin"


class Phase(StrEnum):
    """The two translation phases of the method: with the aspect terms shown, and without."""

    AWARE = "aware"
    BLIND = "blind"


class GoldSource(StrEnum):
    """How an item's gold tags came about (``withdrawn``: automatic gold whose agreement was edited away)."""

    AGREED = "agreed"
    SINGLE = "single"
    ACCEPTED = "accepted"
    EDITED = "edited"
    WITHDRAWN = "withdrawn"


def check_in(column: str, values) -> str:
    """The SQL of a CHECK constraint that ``column`` holds one of ``values``."""
    return f"{column} IN ({', '.join(repr(str(v)) for v in values)})"
