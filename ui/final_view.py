"""What the Final translations page shows, as typed data: the line of facts about a sentence, one card per
choosable candidate (its key, badges and difference from the automatic pick), and a refused decision kept
for the lead to compare. The page (``pages/final.py``) renders these and calls ``db.final_choice``."""

from __future__ import annotations

from dataclasses import dataclass

from corpus.final_choice import CHOICE_KEYS, Candidate, card_order
from corpus.vocabulary import PHASES
from corpus.word_diff import word_diff
from db.final_choice import Comparison, StaleChoice
from ui.chips import diff_html

SHOW_LABELS = {"undecided": "Undecided", "untranslatable": "Marked untranslatable", "overridden": "Overridden",
               "all": "All"}
SHOW_HELP = ("Undecided: a submitted translation and no final choice in force (the Home page's count). "
             "Marked untranslatable: a translator marked it and no lead has decided. Overridden: the choice in "
             "force replaces the automatic pick. All: every sentence with a submitted translation.")


@dataclass(frozen=True)
class Card:
    """One choosable candidate as its card shows it."""

    number: int
    key: str | None  # the key that chooses it (None past the ninth card)
    candidate: Candidate
    is_auto: bool
    badges: tuple[str, ...]
    diff: str | None  # HTML: its words against the automatic pick's (None for the pick, or with no pick)


@dataclass(frozen=True)
class RefusedChoice:
    """A decision refused because another came into force meanwhile: kept to decide again."""

    sentence_id: int
    translation_id: int | None  # None: untranslatable
    note: str | None
    refused: StaleChoice
    show: str  # the filter it was made in (where the view moves after deciding again)


def requested_sentence(raw: str | None) -> int | None:
    try:
        return int(raw) if raw is not None else None
    except ValueError:
        return None


def facts(comparison: Comparison) -> str:
    """The caption under the source: untranslatable votes, the automatic pick's absence, the choice in force."""
    votes, pick, in_force = comparison.untranslatable_votes, comparison.pick, comparison.in_force
    out = ["Untranslatable votes: " + ", ".join(f"{phase} {votes[phase]}" for phase in PHASES)]
    if pick.candidate is None:
        out.append(f"automatic pick: {pick.reason}")
    if in_force is None:
        out.append("no final choice in force yet")
    else:
        chosen = ("untranslatable" if in_force.translation_id is None else "a translation")  # not-vocabulary: text
        out.append(f"in force: {chosen}, chosen by {in_force.chosen_by or 'the automatic rule'} on "
                   f"{in_force.created_at:%Y-%m-%d %H:%M} UTC"
                   + (" (overrides the automatic pick)" if in_force.overridden else "")
                   + (f"; note: {in_force.note}" if in_force.note else ""))
    return " · ".join(out)


def cards(comparison: Comparison) -> list[Card]:
    """The cards in key order (``corpus.final_choice.card_order``)."""
    pick, in_force = comparison.pick, comparison.in_force
    auto = pick.candidate
    in_force_id = in_force.translation_id if in_force is not None else None
    out = []
    for n, c in enumerate(card_order(comparison.candidates, pick), start=1):
        is_auto = auto is not None and c.translation_id == auto.translation_id
        badges = []
        if is_auto:
            badges.append(":green-badge[automatic pick]")
        elif c in (pick.aware, pick.blind):
            badges.append(":blue-badge[phase winner]")
        if in_force is not None and c.translation_id == in_force_id:
            badges.append(":orange-badge[in force]")
        diff = diff_html(word_diff(auto.text or "", c.text or "")) if auto is not None and not is_auto else None
        out.append(Card(n, CHOICE_KEYS[n - 1] if n <= len(CHOICE_KEYS) else None, c, is_auto, tuple(badges), diff))
    return out


def described(comparison: Comparison, translation_id: int | None) -> str:
    """One side of a conflict: the candidate chosen, or untranslatable."""
    found = next((c for c in comparison.candidates if c.translation_id == translation_id), None)
    if found is None:
        return "untranslatable (no final translation)"
    return f"{found.phase} · {found.translator}: {found.text or ''}"
