"""When annotators' tags become gold by themselves, and when that automatic gold stops holding.

Pure functions over plain tag lists; ``db.adjudication`` gathers the submitted versions and appends the
decision these functions return. Decisions are never edited or deleted: automatic gold that no longer
holds is *withdrawn* by a later decision, so the history keeps what was gold, who set it and when.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from corpus.bio import tags_agree

AGREED = "agreed"  # two or more annotators submitted the same tags
SINGLE = "single"  # the project asks for one annotator per item: that annotator's tags, no second opinion
ACCEPTED = "accepted"  # a lead took one annotator's version
EDITED = "edited"  # a lead wrote the tags
WITHDRAWN = "withdrawn"  # automatic gold that the annotators' current versions no longer support
AUTOMATIC_SOURCES = (AGREED, SINGLE)
LEAD_SOURCES = (ACCEPTED, EDITED)
SOURCES = (*AUTOMATIC_SOURCES, *LEAD_SOURCES, WITHDRAWN)


@dataclass(frozen=True)
class GoldStep:
    """A decision to append: ``tags`` is None for a withdrawal."""

    source: str
    tags: list[str] | None


def is_gold(source: str | None) -> bool:
    """Whether a decision in force gives the item gold tags (a withdrawal, or no decision, does not)."""
    return source is not None and source != WITHDRAWN


def automatic_gold(
    submitted: Sequence[Sequence[str]], complete: bool, annotators_per_item: int
) -> GoldStep | None:
    """The gold the annotators make without a lead, once every assignee has submitted the same tags.

    Agreement needs two versions; a lone version is gold only where the project asks for one annotator
    per item, and is then labelled ``single``, not ``agreed``.
    """
    if not complete or not submitted or not tags_agree(submitted):
        return None
    if len(submitted) >= 2:
        return GoldStep(AGREED, list(submitted[0]))
    if annotators_per_item == 1:
        return GoldStep(SINGLE, list(submitted[0]))
    return None


def automatic_gold_holds(
    tags: Sequence[str], submitted: Sequence[Sequence[str]], annotators_per_item: int
) -> bool:
    """Automatic gold stays while every submitted version still carries its tags, from at least two
    annotators unless the project asks for one (a new assignee who has not submitted yet does not undo it)."""
    if not submitted or any(list(t) != list(tags) for t in submitted):
        return False
    return len(submitted) >= 2 or annotators_per_item == 1


def next_automatic_decision(
    current_source: str | None,
    current_tags: Sequence[str] | None,
    submitted: Sequence[Sequence[str]],
    complete: bool,
    annotators_per_item: int,
) -> GoldStep | None:
    """The decision the automatic rule appends after the annotators' versions change, or None.

    A lead's decision is never touched. New automatic gold replaces outdated automatic gold (or a
    withdrawal); automatic gold that no longer holds is withdrawn.
    """
    if current_source in LEAD_SOURCES:
        return None
    rule = automatic_gold(submitted, complete, annotators_per_item)
    if rule is not None:
        if current_source == rule.source and list(current_tags or []) == rule.tags:
            return None
        return rule
    if current_source in AUTOMATIC_SOURCES and not automatic_gold_holds(
        current_tags or [], submitted, annotators_per_item
    ):
        return GoldStep(WITHDRAWN, None)
    return None
