"""Which translation of a sentence is kept: the best of each phase, then aware vs blind by the project policy.

Pure functions over plain candidates; the database layer gathers the candidates and records the choice.
The seed paper keeps the translation with the highest mean ROUGE-L against the other translations of
its phase; ties go to the one that kept more aspects, then to the earlier submission.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import combinations
from typing import TypeVar

from corpus.vocabulary import PHASES, Phase, other_phases, phase_spec
from corpus.work_queue import FinalRow, SubmittedRow, untranslatable_to_review, without_final

DEFAULT_POLICY = "aware-unless-blind-better"



def _phase_policy(phase: Phase) -> str:
    others = " or ".join(str(p) for p in other_phases(phase))
    return (f"Always the {phase_spec(phase).label} winner (the {others} winner only when no {phase} translation "
            "exists).")


#: The policies a project may choose; one per phase ("aware", "blind": always that phase's winner).
POLICIES: dict[str, str] = {
    DEFAULT_POLICY: (
        "The aspect-aware winner, unless it kept no more aspects than the aspect-blind winner "
        "and the blind winner has the higher mean ROUGE-L."
    ),
    **{phase.value: _phase_policy(phase) for phase in PHASES},
    "higher-rouge": "Whichever phase winner has the higher mean ROUGE-L; ties go to the aware one.",
}

K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True)
class Candidate:
    translation_id: int
    phase: str
    translator: str
    text: str | None
    untranslatable: bool = False
    aspects_kept: int | None = None  # None when nothing tells (no tags, no aspect map)
    mean_rouge_l: float | None = None
    submitted_at: datetime | None = None
    reason: str | None = None  # why the translator marked it untranslatable (category, then their note)

    @property
    def translated(self) -> bool:
        return not self.untranslatable and bool(self.text and self.text.strip())


@dataclass(frozen=True)
class FinalPick:
    candidate: Candidate | None
    #: Each phase's winner (None: no translated candidate), in report order.
    winners: tuple[tuple[Phase, Candidate | None], ...]
    reason: str

    def winner(self, phase: str) -> Candidate | None:
        return dict(self.winners).get(Phase(phase))

    @property
    def aware(self) -> Candidate | None:
        return self.winner(Phase.AWARE)

    @property
    def blind(self) -> Candidate | None:
        return self.winner(Phase.BLIND)


@dataclass(frozen=True)
class OverrideRate:
    """How often leads replaced the automatic pick. ``decisions``/``overridden`` count every lead decision
    ever recorded (each is a lead's judgement of the rule, also when a later one replaced it);
    ``sentences``/``sentences_overridden`` count the sentences whose choice in force is a lead's."""

    decisions: int
    overridden: int
    sentences: int = 0
    sentences_overridden: int = 0

    @property
    def rate(self) -> float | None:
        """Share of every lead decision that replaced the automatic pick."""
        return self.overridden / self.decisions if self.decisions else None

    @property
    def in_force_rate(self) -> float | None:
        """Share of lead-decided sentences whose choice in force replaces the automatic pick."""
        return self.sentences_overridden / self.sentences if self.sentences else None


def mean_scores(texts: Mapping[K, str], pair_score: Callable[[str, str], float]) -> dict[K, float | None]:
    """Each text's mean score against the others (None when it has no other text to compare with)."""
    totals: dict[K, float] = {k: 0.0 for k in texts}
    for a, b in combinations(texts, 2):
        f = pair_score(texts[a], texts[b])
        totals[a] += f
        totals[b] += f
    n = len(texts)
    return {k: (totals[k] / (n - 1) if n > 1 else None) for k in texts}


def _kept(c: Candidate) -> int:
    return c.aspects_kept if c.aspects_kept is not None else -1


def _rank_key(c: Candidate) -> tuple:
    """The agreement figures' order (corpus.agreement.rouge_agreement), so both name the same best translation:
    mean rounded to 12 places, then more aspects kept, earlier submission, translator name."""
    return (
        -round(c.mean_rouge_l if c.mean_rouge_l is not None else -1.0, 12),
        -_kept(c),
        c.submitted_at or datetime.max,
        c.translator,
        c.translation_id,
    )


def rank_phase(candidates: Sequence[Candidate]) -> list[Candidate]:
    """Translated candidates of one phase, best first (untranslatable ones cannot win)."""
    return sorted((c for c in candidates if c.translated), key=_rank_key)


def phase_winner(candidates: Sequence[Candidate]) -> Candidate | None:
    ranked = rank_phase(candidates)
    return ranked[0] if ranked else None


def _score(c: Candidate) -> float:
    return c.mean_rouge_l if c.mean_rouge_l is not None else -1.0


def choose_among(winners: Mapping[str, Candidate | None], policy: str = DEFAULT_POLICY) -> FinalPick:
    """The final translation from the phase winners (phase -> winner or None) under ``policy`` (a ValueError if
    unknown). Phases are weighed in report order, which breaks every tie; a policy named after a phase takes
    that phase's winner. The default keeps the first winner of a phase that shows the source aspects unless it
    kept no more aspects than a winner of a phase that hides them, which has the higher mean ROUGE-L."""
    if policy not in POLICIES:
        raise ValueError(f"final policy {policy!r} is not one of {', '.join(POLICIES)}")
    unknown = set(winners) - set(PHASES)
    if unknown:
        raise ValueError(f"choose_among: unknown phase(s) {sorted(unknown)}")
    ordered = tuple((p, winners.get(p)) for p in PHASES)
    present = [c for _, c in ordered if c is not None]
    if len(present) < 2:
        only = present[0] if present else None
        reason = "no translation to choose" if only is None else f"only the {only.phase} phase has a translation"
        return FinalPick(only, ordered, reason)
    first = present[0]
    if policy in PHASES:
        return FinalPick(dict(ordered)[Phase(policy)] or first, ordered, f"policy: {policy} winner")
    if policy == "higher-rouge":
        best = max(present, key=_score)  # the first of the highest: ties go to the earlier phase
        if best is not first:
            return FinalPick(best, ordered, f"{best.phase} winner has the higher mean ROUGE-L")
        return FinalPick(first, ordered, f"{first.phase} winner has the higher or equal mean ROUGE-L")
    shown = [c for c in present if phase_spec(c.phase).shows_source_aspects]
    pick = shown[0] if shown else first
    challengers = [c for c in present if not phase_spec(c.phase).shows_source_aspects
                   and _kept(pick) <= _kept(c) and _score(c) > _score(pick)]
    if challengers:
        better = max(challengers, key=_score)
        return FinalPick(
            better, ordered,
            f"{pick.phase} winner kept no more aspects than the {better.phase} winner, which has the higher mean "
            "ROUGE-L",
        )
    return FinalPick(pick, ordered, f"{pick.phase} winner (kept more aspects or scores at least as high)")


def choose_between(aware: Candidate | None, blind: Candidate | None, policy: str = DEFAULT_POLICY) -> FinalPick:
    """The final translation from the aware and the blind winner (``choose_among`` with these two)."""
    return choose_among({Phase.AWARE: aware, Phase.BLIND: blind}, policy)


def choose_final(candidates: Sequence[Candidate], policy: str = DEFAULT_POLICY) -> FinalPick:
    """Best per phase, then between phases by policy."""
    return choose_among({p: phase_winner([c for c in candidates if c.phase == p]) for p in PHASES}, policy)


def override_rate(lead_decisions: Sequence[tuple[Hashable, bool]]) -> OverrideRate:
    """From every lead decision, oldest first, as (sentence, replaced the automatic pick?). The rule never
    replaces a lead's choice, so a sentence's last lead decision is its choice in force."""
    last: dict[Hashable, bool] = {}
    for sentence, overridden in lead_decisions:
        last[sentence] = overridden
    return OverrideRate(
        decisions=len(lead_decisions), overridden=sum(1 for _, o in lead_decisions if o),
        sentences=len(last), sentences_overridden=sum(1 for o in last.values() if o),
    )


# ----------------------------------------------------------------------------- the decision view

#: The decision view's filters, in the order the page offers them. "undecided" and "untranslatable" are the
#: Home page's rules (``corpus.work_queue``): a translated sentence with no final choice in force; a sentence a
#: translator marked untranslatable that no lead has decided. "overridden": the choice in force replaces the
#: automatic pick. "all": every sentence with a submitted translation.
SHOW = ("undecided", "untranslatable", "overridden", "all")  # not-vocabulary: filters
#: The keys that choose the 1st..9th candidate card, and the one that marks the sentence untranslatable.
CHOICE_KEYS = tuple("123456789")
UNTRANSLATABLE_KEY = "U"


def decision_lists(
    order: Sequence[int], submitted: Iterable[SubmittedRow], finals: Iterable[FinalRow], overridden: Iterable[int],
) -> dict[str, list[int]]:
    """The sentences each filter shows, in ``order`` (corpus order of the sentences with a submitted
    translation). ``overridden``: sentences whose choice in force replaces the automatic pick."""
    submitted, finals = list(submitted), list(finals)
    sets = {"undecided": without_final(submitted, finals), "untranslatable": untranslatable_to_review(submitted, finals),
            "overridden": set(overridden)}
    lists = {show: [s for s in order if s in members] for show, members in sets.items()}
    lists["all"] = list(dict.fromkeys(order))
    return {show: lists[show] for show in SHOW}


def next_sentence(listed: Sequence[int], order: Sequence[int], current: int | None) -> int | None:
    """Where the view goes after a decision on ``current``: the first sentence of ``listed`` (the filter's
    list, read again after the decision) that comes after ``current`` in corpus ``order``, wrapping round to
    the start; never ``current`` itself. None when ``listed`` holds nothing else."""
    rest = [s for s in listed if s != current]
    if not rest:
        return None
    if current is None or current not in order:
        return rest[0]
    position = {s: i for i, s in enumerate(order)}
    here = position[current]
    after = [s for s in rest if position.get(s, -1) > here]
    return after[0] if after else rest[0]


def step(listed: Sequence[int], current: int | None, by: int) -> int | None:
    """The sentence ``by`` places before (negative) or after ``current`` in ``listed``, wrapping round;
    the first of ``listed`` when ``current`` is not in it."""
    if not listed:
        return None
    if current not in listed:
        return listed[0]
    return listed[(listed.index(current) + by) % len(listed)]


def shown_sentence(requested: int | None, listed: Sequence[int], order: Sequence[int]) -> int | None:
    """The sentence to show: the one asked for (an address's ``?sentence=``, the last one looked at) when it
    has a submitted translation, even outside the filter; else the filter's first; None when both are empty."""
    if requested is not None and requested in order:
        return requested
    return listed[0] if listed else None


def progress_text(undecided: int, total: int) -> str:
    """"12 of 340 undecided": sentences without a final choice in force, of those with a submitted translation."""
    return f"{undecided} of {total} undecided"


def card_order(candidates: Sequence[Candidate], pick: FinalPick) -> list[Candidate]:
    """The choosable candidates (translated ones) in the order of their cards and keys: the automatic pick
    first (so accepting it is key 1), then the other phase winners, then the rest of each phase best first,
    phases in report order (aware before blind)."""
    first = [c for c in (pick.candidate, *(w for _, w in pick.winners)) if c is not None and c.translated]
    rest = [c for phase in PHASES for c in rank_phase([c for c in candidates if c.phase == phase])]
    return list({c.translation_id: c for c in [*first, *rest]}.values())


def agreement_text(candidate: Candidate, candidates: Sequence[Candidate]) -> str:
    """A card's agreement figure: its mean ROUGE-L F against the other translations of its phase, with how
    many those are (a mean over 1 pair is not a mean over 5)."""
    if not candidate.translated:
        return "untranslatable"  # not-vocabulary: a card's text
    others = sum(1 for c in candidates if c.phase == candidate.phase and c.translated
                 and c.translation_id != candidate.translation_id)
    if candidate.mean_rouge_l is None or not others:
        return "ROUGE-L — (no other translation in its phase)"
    return f"ROUGE-L {candidate.mean_rouge_l:.3f} vs {others} other{'s' if others != 1 else ''}"
