"""Word-level difference between two translations, over the canonical tokens.

One place for it: the sentence view compares every translation with the kept one, and the final-translation
decision view compares each candidate with the automatic pick. Tokens come from ``corpus.tokens`` (never
``\\w``, which splits Devanagari words at vowel signs).
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from corpus.tokens import tokenize

Change = Literal["same", "added", "removed"]


@dataclass(frozen=True, slots=True)
class DiffToken:
    text: str
    change: Change  # "added": only in the candidate; "removed": only in the reference


def word_diff(reference: str, candidate: str) -> list[DiffToken]:
    """The candidate's tokens in order, with the reference's missing tokens placed where they were dropped.

    A replaced stretch shows the reference's tokens (removed) before the candidate's (added), as a reader
    compares them. ``autojunk`` is off: in a short sentence a frequent token such as "है" is not noise.
    """
    ref, cand = tokenize(reference), tokenize(candidate)
    out: list[DiffToken] = []
    for op, r1, r2, c1, c2 in SequenceMatcher(a=ref, b=cand, autojunk=False).get_opcodes():
        if op == "equal":
            out.extend(DiffToken(t, "same") for t in cand[c1:c2])
            continue
        out.extend(DiffToken(t, "removed") for t in ref[r1:r2])
        out.extend(DiffToken(t, "added") for t in cand[c1:c2])
    return out
