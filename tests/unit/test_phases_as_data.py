"""Behaviour asks the phase's spec (corpus.vocabulary.PHASE_SPECS), never its name: change a spec and the
guidelines, the assignment rules and the final choice follow; with the method's two phases the results are
the ones the two-phase code gave."""

from __future__ import annotations

from dataclasses import replace

import pytest

from corpus import guidelines
from corpus.assignment import PHASE_ORDER, eligible, queue_order
from corpus.final_choice import DEFAULT_POLICY, POLICIES, Candidate, choose_among, choose_between, choose_final
from corpus.guidelines import load_guidelines
from corpus.vocabulary import PHASE_SPECS, Phase, Status

AWARE_BLOCK = "<!-- aware-only -->\nMap every aspect term.\n<!-- /aware-only -->\n"


def cand(tid: int, phase: str = "aware", mean: float | None = 0.5, kept: int | None = 1) -> Candidate:
    return Candidate(tid, phase, f"t{tid}", "पाठ", mean_rouge_l=mean, aspects_kept=kept)


@pytest.fixture
def blind_shows_aspects(monkeypatch):
    """The blind phase re-specified to show the source aspects (its name unchanged)."""
    monkeypatch.setitem(PHASE_SPECS, Phase.BLIND, replace(PHASE_SPECS[Phase.BLIND], shows_source_aspects=True))


def test_the_guidelines_leave_out_the_aware_only_parts_by_the_spec_not_the_name(tmp_path, monkeypatch,
                                                                                  blind_shows_aspects):
    monkeypatch.setattr(guidelines, "GUIDELINES_DIR", tmp_path)
    (tmp_path / "rules.md").write_text("version: 1\nBe faithful.\n" + AWARE_BLOCK, encoding="utf-8")
    assert "Map every aspect term." in load_guidelines("rules", phase="blind")[1]


def test_a_phase_that_hides_the_aspects_is_closed_to_who_started_one_that_shows_them(monkeypatch):
    held = {(1, 10, "aware"): Status.DRAFT}
    assert not eligible(1, 10, "blind", held, "same", None)
    monkeypatch.setitem(PHASE_SPECS, Phase.BLIND, replace(PHASE_SPECS[Phase.BLIND], shows_source_aspects=True))
    assert eligible(1, 10, "blind", held, "same", None)


def test_the_work_order_comes_from_the_specs():
    assert PHASE_ORDER == ("blind", "aware")
    assert queue_order("blind", Status.ASSIGNED, False, ()) < queue_order("aware", Status.ASSIGNED, False, ())


def test_the_default_policy_prefers_the_phase_that_shows_the_aspects_by_its_spec(blind_shows_aspects):
    # Both phases now show the aspects: no challenger is left, so the first phase's winner stays.
    pick = choose_between(cand(1, mean=0.5, kept=2), cand(2, "blind", mean=0.7, kept=2))
    assert pick.candidate.translation_id == 1


@pytest.mark.parametrize(("aware", "blind", "policy", "chosen", "reason"), [
    (cand(1, mean=0.5, kept=2), cand(2, "blind", mean=0.7, kept=2), DEFAULT_POLICY, 2,
     "aware winner kept no more aspects than the blind winner, which has the higher mean ROUGE-L"),
    (cand(1, mean=0.5, kept=3), cand(2, "blind", mean=0.7, kept=2), DEFAULT_POLICY, 1,
     "aware winner (kept more aspects or scores at least as high)"),
    (cand(1, mean=0.6), cand(2, "blind", mean=0.6), "higher-rouge", 1,
     "aware winner has the higher or equal mean ROUGE-L"),
    (cand(1, mean=0.5), cand(2, "blind", mean=0.7), "higher-rouge", 2, "blind winner has the higher mean ROUGE-L"),
    (cand(1), cand(2, "blind"), "blind", 2, "policy: blind winner"),
    (None, cand(2, "blind"), "aware", 2, "only the blind phase has a translation"),
    (None, None, DEFAULT_POLICY, None, "no translation to choose"),
])
def test_two_phases_give_the_two_phase_rules_reasons(aware, blind, policy, chosen, reason):
    pick = choose_among({Phase.AWARE: aware, Phase.BLIND: blind}, policy)
    assert (pick.candidate.translation_id if pick.candidate else None, pick.reason) == (chosen, reason)
    assert (pick.aware, pick.blind) == (aware, blind)
    assert [p for p, _ in pick.winners] == [Phase.AWARE, Phase.BLIND]


def test_a_missing_phase_is_no_winner_and_an_unknown_one_is_an_error():
    assert choose_among({"blind": cand(2, "blind")}).candidate.translation_id == 2
    with pytest.raises(ValueError, match="unknown phase"):
        choose_among({"both": cand(1)})


def test_choose_final_weighs_every_phase():
    pick = choose_final([cand(1, mean=0.2), cand(2, mean=0.3), cand(3, "blind", mean=0.9, kept=1)])
    assert [(p, c.translation_id) for p, c in pick.winners] == [(Phase.AWARE, 2), (Phase.BLIND, 3)]


def test_the_policies_keep_their_stored_names_and_texts():
    assert list(POLICIES) == [DEFAULT_POLICY, "aware", "blind", "higher-rouge"]
    assert POLICIES["aware"] == (
        "Always the aspect-aware winner (the blind winner only when no aware translation exists).")
    assert POLICIES["blind"] == (
        "Always the aspect-blind winner (the aware winner only when no blind translation exists).")
