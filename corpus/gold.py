"""When annotators' tags become gold by themselves, when that automatic gold stops holding, and so which
gold is in force for an item.

Pure functions over plain tag lists; ``db.adjudication`` gathers the submitted versions and appends the
decision these functions return. Decisions are never edited or deleted: automatic gold that no longer
holds is *withdrawn* by a later decision, so the history keeps what was gold, who set it and when.
Every reader of gold (adjudication queue, statistics, metrics, export, final choice) asks ``in_force``
through ``db.gold``, so none of them decides "is this gold?" on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from corpus.vocabulary import GoldSource

AGREED = GoldSource.AGREED  # two or more annotators submitted the same tags
SINGLE = GoldSource.SINGLE  # the project asks for one annotator per item: that annotator's tags, no second opinion
ACCEPTED = GoldSource.ACCEPTED  # a lead took one annotator's version
EDITED = GoldSource.EDITED  # a lead wrote the tags
WITHDRAWN = GoldSource.WITHDRAWN  # automatic gold that the annotators' current versions no longer support
AUTOMATIC_SOURCES = (AGREED, SINGLE)
LEAD_SOURCES = (ACCEPTED, EDITED)
SOURCES = (*AUTOMATIC_SOURCES, *LEAD_SOURCES, WITHDRAWN)


@dataclass(frozen=True)
class GoldStep:
    """A decision to append: ``tags`` is None for a withdrawal."""

    source: str
    tags: list[str] | None


def _same(a: Sequence[str], b: Sequence[str]) -> bool:
    """Two tag sequences are the same tags (a list, or a string of one letter per token: readers pass either)."""
    return a == b or list(a) == list(b)


def _all_same(versions: Sequence[Sequence[str]], tags: Sequence[str]) -> bool:
    for version in versions:  # a plain loop: this runs for every item of a project on every read
        if version != tags and list(version) != list(tags):
            return False
    return True


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
    if not complete or not submitted or not _all_same(submitted, submitted[0]):
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
    if not submitted or not _all_same(submitted, tags):
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
        if current_source == rule.source and _same(current_tags or [], rule.tags):
            return None
        return rule
    if current_source in AUTOMATIC_SOURCES and not automatic_gold_holds(
        current_tags or [], submitted, annotators_per_item
    ):
        return GoldStep(WITHDRAWN, None)
    return None


class Gold(NamedTuple):
    """The gold in force for an item. ``decision_id``: the stored decision that carries it, or None when it
    is the automatic rule's gold not written yet (rows made outside the app, or between a save and its rule)."""

    source: str
    tags: list[str]
    decision_id: int | None = None


def in_force(
    latest: GoldStep | None,
    latest_id: int | None,
    submitted: Sequence[Sequence[str]],
    complete: bool,
    annotators_per_item: int,
) -> Gold | None:
    """The item's gold now: its latest decision as the automatic rule leaves it after following the
    annotators' current versions (a lead's decision stands; automatic gold they no longer carry is none;
    agreement the rule has not written yet is gold). None: the item has no gold.

    ``submitted``: the tags of every submitted version; ``complete``: every active assignee submitted.
    """
    step = next_automatic_decision(
        latest.source if latest is not None else None, latest.tags if latest is not None else None,
        submitted, complete, annotators_per_item,
    )
    if step is None:
        if latest is None or not is_gold(latest.source):
            return None
        return Gold(latest.source, list(latest.tags or []), latest_id)
    return Gold(step.source, step.tags, None) if is_gold(step.source) else None  # a new list already


class ItemGold(NamedTuple):
    """A tagging item's gold in force (None: no gold), with what a reader needs to say why it has none."""

    item_id: int
    translation_id: int
    gold: Gold | None
    versions: list  # tags of the submitted versions, by annotator: one letter per token (a list if not B/I/O)
    awaited: int  # active assignees who have not submitted yet
