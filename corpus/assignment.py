"""Who translates what: balanced assignment and the blindness rules, as pure functions.

Blindness: a translator who has seen a sentence's aspect terms (opened its aware task) can no
longer give an aspect-blind translation of it. So a translator holding both phases of a sentence
works the blind task first, and the aware task stays locked until the blind one is submitted
(skipping it does not count: the translator could otherwise see the aspects and come back to the
blind task); in "disjoint" mode the two phases go to separate groups of translators.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from itertools import combinations

from corpus.records import PHASES
from corpus.vocabulary import OPEN_STATUSES, WORK_ORDER, Status, aspect_phases, other_phases, phase_spec

PHASE_GROUP_MODES = ("same", "disjoint")
STARTED_STATUSES = (Status.DRAFT, Status.SUBMITTED)
# Blind before aware, everywhere: planning order, queue order (each phase's ``work_order``).
PHASE_ORDER = tuple(p.value for p in WORK_ORDER)


@dataclass(frozen=True)
class Task:
    user_id: int
    sentence_id: int
    phase: str
    status: str = Status.ASSIGNED


@dataclass
class Plan:
    new: list[Task] = field(default_factory=list)
    # (sentence_id, phase, how many translators are still missing)
    shortfalls: list[tuple[int, str, int]] = field(default_factory=list)
    already: int = 0


def tagging_refusal(annotator: object, translator: object, translators_of_sentence: AbstractSet[object]) -> str | None:
    """Why ``annotator`` may not tag ``translator``'s translation of a sentence (None: they may).

    One rule for every path that gives an annotator a translation (assignment, work-file import): a person who
    translates a sentence, in either phase, never tags a colleague's translation of it, which would leak it
    into their own and break the independence that ROUGE-L agreement between translators relies on.
    ``translators_of_sentence`` holds everyone who translates, translated or is due to translate it."""
    if annotator == translator:
        return "annotators never tag their own translation"
    if annotator in translators_of_sentence:
        return ("annotators never tag a colleague's translation of a sentence they translate themselves "
                "(translations must stay independent for ROUGE-L agreement)")
    return None


def aware_locked(blind_status: str | None) -> bool:
    """The aware task of a sentence opens only once the same translator's blind task is submitted.
    ``blind_status`` is that translator's blind task status for the sentence (None: no blind task;
    "reassigned": the blind task is no longer theirs, so it can no longer be spoiled)."""
    return blind_status not in (None, Status.SUBMITTED, Status.REASSIGNED)


def blind_contaminated(aware_status: str | None, has_aware_translation: bool = False) -> bool:
    """A blind task cannot be worked once the translator has started the aware one of the sentence."""
    return has_aware_translation or aware_status in STARTED_STATUSES


def eligible(
    user_id: int, sentence_id: int, phase: str, held: Mapping[tuple[int, int, str], str], mode: str,
    groups: Mapping[str, frozenset[int]] | None, tagging: AbstractSet[tuple[int, int]] = frozenset(),
) -> bool:
    """May ``user_id`` be given (sentence, phase)? ``held`` maps (user, sentence, phase) to status;
    ``tagging`` holds the (user, sentence) pairs where the user tags a colleague's translation."""
    if (user_id, sentence_id, phase) in held:
        return False  # one row per (user, sentence, phase), even a reassigned one
    if (user_id, sentence_id) in tagging:
        return False  # they have read a colleague's translation: theirs would not be independent
    if mode == "disjoint":
        if groups is None or user_id not in groups.get(phase, frozenset()):
            return False
        others = (held.get((user_id, sentence_id, p)) for p in other_phases(phase))
        return all(other is None or other == Status.REASSIGNED for other in others)
    if not phase_spec(phase).shows_source_aspects:
        seen = (held.get((user_id, sentence_id, p)) for p in aspect_phases() if p != phase)
        if any(other is not None and blind_contaminated(other) for other in seen):
            return False
    return True


def plan_assignments(
    sentence_ids: Sequence[int],
    translators: Sequence[int],
    existing: Iterable[Task],
    per_phase: int,
    mode: str = "same",
    groups: Mapping[str, Iterable[int]] | None = None,
    phases: Sequence[str] = PHASE_ORDER,
    tagging: Iterable[tuple[int, int]] = (),
) -> Plan:
    """New tasks so that each sentence has ``per_phase`` active translators in each phase.

    Active means any status but "reassigned". Running it again plans nothing new (idempotent).
    Load balancing: each slot goes to the eligible translator with the fewest open tasks, then the
    fewest tasks overall, then the earliest in ``translators`` (a stable, reproducible order).
    """
    if per_phase < 1:
        raise ValueError("plan_assignments: per_phase must be at least 1")
    if mode not in PHASE_GROUP_MODES:
        raise ValueError(f"plan_assignments: mode must be one of {PHASE_GROUP_MODES}, not {mode!r}")
    unknown = set(phases) - set(PHASES)
    if unknown:
        raise ValueError(f"plan_assignments: unknown phase(s) {sorted(unknown)}")
    frozen_groups = None
    if mode == "disjoint":
        if not groups:
            raise ValueError("plan_assignments: disjoint mode needs a translator group per phase")
        frozen_groups = {p: frozenset(groups.get(p, ())) for p in PHASES}
        overlap = {u for p, q in combinations(PHASES, 2) for u in frozen_groups[p] & frozen_groups[q]}
        if overlap:
            raise ValueError(f"plan_assignments: disjoint groups share translators {sorted(overlap)}")

    held: dict[tuple[int, int, str], str] = {}
    active: Counter[tuple[int, str]] = Counter()
    open_load: Counter[int] = Counter()
    total_load: Counter[int] = Counter()
    for t in existing:
        held[(t.user_id, t.sentence_id, t.phase)] = t.status
        if t.status != Status.REASSIGNED:
            active[(t.sentence_id, t.phase)] += 1
            total_load[t.user_id] += 1
            if t.status in OPEN_STATUSES:
                open_load[t.user_id] += 1
    rank = {u: i for i, u in enumerate(dict.fromkeys(translators))}
    tagging = frozenset(tagging)

    plan = Plan()
    ordered_phases = [p for p in PHASE_ORDER if p in phases]
    for sentence_id in dict.fromkeys(sentence_ids):
        for phase in ordered_phases:
            have = active[(sentence_id, phase)]
            plan.already += min(have, per_phase)
            need = per_phase - have
            if need <= 0:
                continue
            candidates = [u for u in rank if eligible(u, sentence_id, phase, held, mode, frozen_groups, tagging)]
            candidates.sort(key=lambda u: (open_load[u], total_load[u], rank[u]))
            for user_id in candidates[:need]:
                plan.new.append(Task(user_id, sentence_id, phase))
                held[(user_id, sentence_id, phase)] = Status.ASSIGNED
                active[(sentence_id, phase)] += 1
                open_load[user_id] += 1
                total_load[user_id] += 1
            missing = per_phase - active[(sentence_id, phase)]
            if missing > 0:
                plan.shortfalls.append((sentence_id, phase, missing))
    return plan


def queue_order(phase: str, status: str, locked: bool, ordinal_key: tuple) -> tuple:
    """Sort key for a translator's queue: open unlocked work first (drafts before untouched, then
    skipped), blind before aware, corpus order; locked and finished tasks last."""
    if status == Status.SUBMITTED:
        group = 4
    elif locked:
        group = 3
    elif status == Status.SKIPPED:
        group = 2
    elif status == Status.DRAFT:
        group = 0
    else:
        group = 1
    return (group, PHASE_ORDER.index(phase), *ordinal_key)
