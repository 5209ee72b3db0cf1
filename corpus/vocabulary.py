"""The method's vocabulary: every status, role, phase, gold source and revision action the product stores, in one place.

The members are ``StrEnum``s, so they compare equal to, hash like and serialize as their stored
strings (work files, metric keys and the database keep the same values). The database's CHECK
constraints are built from these enums by ``check_in``, so a new value is added here once.

A phase is also described as data (``PhaseSpec``): code asks ``phase_spec(phase)`` what the phase does
(shows the source's aspect terms? opens after which phase? worked in which order?) instead of testing
its name, so a third phase is one more member and one more spec.
"""

from __future__ import annotations

from dataclasses import dataclass
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
    """The translation phases of the method, in the order reports, figures and the final choice list them
    (the aware phase first: the final choice prefers it on a tie)."""

    AWARE = "aware"
    BLIND = "blind"


@dataclass(frozen=True)
class PhaseSpec:
    """What a phase is, as data: behaviour asks these fields, never the phase's name."""

    phase: Phase
    #: Short name for the UI ("aspect-aware").
    label: str
    #: Where the phase comes in a translator's work: planning and queue order (smaller first).
    work_order: int
    #: Does the translator see the source sentence's aspect terms (and map them)? A translator who has seen
    #: them can no longer translate the sentence in a phase that does not show them.
    shows_source_aspects: bool
    #: The phase whose task of the same sentence the same translator must submit before this one opens.
    opens_after: Phase | None = None


PHASE_SPECS: dict[Phase, PhaseSpec] = {
    spec.phase: spec
    for spec in (
        PhaseSpec(Phase.AWARE, "aspect-aware", work_order=1, shows_source_aspects=True, opens_after=Phase.BLIND),
        PhaseSpec(Phase.BLIND, "aspect-blind", work_order=0, shows_source_aspects=False),
    )
}
assert set(PHASE_SPECS) == set(Phase), "every phase needs a PhaseSpec"

#: The phases in report order (the enum's order).
PHASES: tuple[Phase, ...] = tuple(Phase)
#: The phases in the order a translator works them (planning order, queue order): blind before aware.
WORK_ORDER: tuple[Phase, ...] = tuple(sorted(Phase, key=lambda p: PHASE_SPECS[p].work_order))


def phase_spec(phase: str) -> PhaseSpec:
    """The spec of ``phase`` (a ``Phase`` or its stored string; a ValueError names an unknown one)."""
    return PHASE_SPECS[Phase(phase)]


def other_phases(phase: str) -> tuple[Phase, ...]:
    """Every phase but ``phase``, in report order."""
    return tuple(p for p in PHASES if p != phase)


def aspect_phases(shown: bool = True) -> tuple[Phase, ...]:
    """The phases that show (``shown``) or hide the source's aspect terms, in report order."""
    return tuple(p for p in PHASES if PHASE_SPECS[p].shows_source_aspects == shown)


class GoldSource(StrEnum):
    """How an item's gold tags came about (``withdrawn``: automatic gold whose agreement was edited away)."""

    AGREED = "agreed"
    SINGLE = "single"
    ACCEPTED = "accepted"
    EDITED = "edited"
    WITHDRAWN = "withdrawn"


class RevisionAction(StrEnum):
    """What wrote a revision (``db.models.Revision.action``): a person's save, an import, a rule."""

    AUTOSAVE = "autosave"      # the editor saved a draft on its own
    SAVE = "save"              # a person saved a draft
    SUBMIT = "submit"          # a person handed the record in
    IMPORT = "import"          # the work-file import wrote it
    REOPEN = "reopen"          # a submitted record went back to draft
    AUTO = "auto"              # an automatic rule decided (gold, final choice)
    WITHDRAW = "withdraw"      # automatic gold whose agreement was edited away
    ADJUDICATE = "adjudicate"  # a lead decided gold
    CONFIRM = "confirm"        # a lead kept the automatic final choice
    OVERRIDE = "override"      # a lead replaced the automatic final choice
    UNTRANSLATABLE = "untranslatable"  # a lead marked the sentence untranslatable


#: The actions a person's save of a translation or annotation writes.
SAVE_ACTIONS = (RevisionAction.AUTOSAVE, RevisionAction.SAVE, RevisionAction.SUBMIT)


def check_in(column: str, values) -> str:
    """The SQL of a CHECK constraint that ``column`` holds one of ``values``."""
    return f"{column} IN ({', '.join(repr(str(v)) for v in values)})"
