"""The automatic gold rule: who agrees, when a lone annotator is enough, and when automatic gold is withdrawn."""

from __future__ import annotations

import pytest

from corpus.gold import (
    Gold,
    GoldStep,
    automatic_gold,
    automatic_gold_holds,
    in_force,
    is_gold,
    next_automatic_decision,
)

X = ["O", "B", "I"]
Y = ["B", "O", "O"]


@pytest.mark.parametrize(
    ("submitted", "complete", "k", "expected"),
    [
        ([X, X], True, 2, GoldStep("agreed", X)),
        ([X, Y], True, 2, None),
        ([X, X], False, 2, None),
        ([X], True, 2, None),  # a lone version in a two-annotator project waits for a second opinion
        ([X], True, 1, GoldStep("single", X)),
        ([X, X], True, 1, GoldStep("agreed", X)),  # two annotators who agree did agree, whatever K is
        ([], True, 1, None),
    ],
    ids=["two-agree", "two-differ", "incomplete", "lone-version-k2", "lone-version-k1", "two-agree-k1", "none"],
)
def test_automatic_gold(submitted, complete, k, expected):
    assert automatic_gold(submitted, complete, k) == expected


@pytest.mark.parametrize(
    ("tags", "submitted", "k", "holds"),
    [
        (X, [X, X], 2, True),
        (X, [X, Y], 2, False),
        (X, [Y, Y], 2, False),
        (X, [X], 2, False),
        (X, [X], 1, True),
        (X, [], 1, False),
    ],
)
def test_automatic_gold_holds_only_while_every_submitted_version_carries_it(tags, submitted, k, holds):
    assert automatic_gold_holds(tags, submitted, k) is holds


@pytest.mark.parametrize(
    ("current", "submitted", "complete", "k", "step"),
    [
        ((None, None), [X, X], True, 2, GoldStep("agreed", X)),
        (("agreed", X), [X, X], True, 2, None),
        (("agreed", X), [X, Y], True, 2, GoldStep("withdrawn", None)),  # one annotator edited after agreeing
        (("agreed", X), [Y, Y], True, 2, GoldStep("agreed", Y)),  # agree again, on other tags: replaces
        (("withdrawn", None), [X, Y], True, 2, None),  # withdrawn once, not again
        (("withdrawn", None), [Y, Y], True, 2, GoldStep("agreed", Y)),
        (("agreed", X), [X, X], False, 3, None),  # a third assignee has not submitted yet: still holds
        (("agreed", X), [X, Y], False, 3, GoldStep("withdrawn", None)),
        (("accepted", X), [X, Y], True, 2, None),  # a lead's decision is never withdrawn by the rule
        (("edited", Y), [X, X], True, 2, None),  # nor replaced by later agreement
        (("single", X), [Y], True, 1, GoldStep("single", Y)),
        (("agreed", X), [X], True, 1, GoldStep("single", X)),  # relabelled: one annotator is not agreement
        (("single", X), [X], False, 2, GoldStep("withdrawn", None)),  # the project now asks for two
    ],
)
def test_next_automatic_decision(current, submitted, complete, k, step):
    assert next_automatic_decision(*current, submitted, complete, k) == step


def test_a_withdrawal_or_no_decision_is_not_gold():
    assert [is_gold(s) for s in (None, "withdrawn", "agreed", "single", "accepted", "edited")] == [
        False, False, True, True, True, True
    ]


@pytest.mark.parametrize(
    ("latest", "submitted", "complete", "k", "gold"),
    [
        (None, [X, X], True, 2, Gold("agreed", X, None)),  # agreement the rule has not written yet
        (None, [X, X], False, 2, None),  # 3 assigned, 2 submitted the same tags: nobody's gold yet
        (None, [X], True, 2, None),
        (None, [X], True, 1, Gold("single", X, None)),
        (GoldStep("agreed", X), [X, X], True, 2, Gold("agreed", X, 7)),  # the stored decision, with its id
        (GoldStep("agreed", X), [X, X], False, 3, Gold("agreed", X, 7)),  # a new assignee does not undo it
        (GoldStep("agreed", X), [X, Y], True, 2, None),  # edited away, withdrawal not written yet
        (GoldStep("agreed", X), [Y, Y], True, 2, Gold("agreed", Y, None)),
        (GoldStep("withdrawn", None), [X, Y], True, 2, None),
        (GoldStep("withdrawn", None), [Y, Y], True, 2, Gold("agreed", Y, None)),
        (GoldStep("accepted", Y), [X, X], True, 2, Gold("accepted", Y, 7)),  # a lead's decision stands
        (GoldStep("edited", Y), [X], False, 2, Gold("edited", Y, 7)),
    ],
    ids=["pending-agreement", "three-assigned-two-submitted", "lone-k2", "lone-k1", "stored", "new-assignee",
         "edited-away", "agreed-again", "withdrawn", "withdrawn-then-agreed", "lead-accepted", "lead-edited"],
)
def test_the_gold_in_force_is_the_latest_decision_as_the_rule_leaves_it(latest, submitted, complete, k, gold):
    assert in_force(latest, 7 if latest is not None else None, submitted, complete, k) == gold
