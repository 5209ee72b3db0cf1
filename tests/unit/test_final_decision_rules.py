"""The final-translation decision view's rules: which sentences each filter lists, where the view goes after
a decision, the order of the candidate cards and what each card says. Every value checked by hand."""

from __future__ import annotations

import pytest

from corpus.final_choice import (
    SHOW,
    Candidate,
    agreement_text,
    card_order,
    choose_final,
    decision_lists,
    next_sentence,
    progress_text,
    shown_sentence,
    step,
)
from corpus.work_queue import FinalRow, SubmittedRow

# Corpus order of the sentences with a submitted translation: 5, 3, 8, 1, 9.
ORDER = [5, 3, 8, 1, 9]
SUBMITTED = [
    SubmittedRow(5, False, True),   # translated, nothing in force -> undecided
    SubmittedRow(3, False, True),   # translated, the rule's pick recorded -> decided
    SubmittedRow(3, True, False),   # ... and marked untranslatable, no lead decision -> to review
    SubmittedRow(8, True, False),   # only untranslatable, nothing in force -> to review, not undecided
    SubmittedRow(1, False, True),   # translated, a lead chose (an override) -> decided, overridden
    SubmittedRow(9, False, True),   # translated, nothing in force -> undecided
    SubmittedRow(9, True, False),   # ... and marked untranslatable -> to review
]
FINALS = [FinalRow(3, False), FinalRow(1, True)]


def test_each_filter_lists_its_sentences_in_corpus_order():
    lists = decision_lists(ORDER, SUBMITTED, FINALS, overridden=[1])
    assert list(lists) == list(SHOW)
    assert lists == {"undecided": [5, 9], "untranslatable": [3, 8, 9], "overridden": [1], "all": [5, 3, 8, 1, 9]}


def test_a_lead_decision_takes_a_sentence_off_the_review_list_but_the_rules_pick_does_not():
    lists = decision_lists(ORDER, SUBMITTED, [*FINALS, FinalRow(9, False), FinalRow(8, True)], overridden=[1, 8])
    assert lists["undecided"] == [5]
    assert lists["untranslatable"] == [3, 9]  # 9's automatic pick leaves it on the list; 8 was decided by a lead


@pytest.mark.parametrize(("listed", "current", "expected"), [
    ([9], 5, 9),            # 5 was decided and left the list: the next one after it
    ([5, 9], 5, 9),         # 5 still listed (e.g. the "all" filter): the next one, not 5 again
    ([5, 9], 9, 5),         # the last one: wrap round to the start
    ([3, 1], 8, 1),         # 8 is not in the list: the first listed after 8 in corpus order
    ([5], 5, None),         # nothing else to decide
    ([], 5, None),
    ([3, 1], None, 3),      # nothing shown yet: the first
])
def test_after_a_decision_the_view_moves_to_the_next_listed_sentence(listed, current, expected):
    assert next_sentence(listed, ORDER, current) == expected


def test_auto_advance_walks_three_sentences_in_corpus_order():
    """Deciding each shown sentence in turn visits every undecided sentence once, in corpus order."""
    undecided = [5, 8, 9]
    shown, seen = 5, []
    while shown is not None:
        seen.append(shown)
        undecided.remove(shown)
        shown = next_sentence(undecided, ORDER, shown)
    assert seen == [5, 8, 9]


def test_previous_and_next_wrap_round_the_list():
    assert [step([5, 3, 8], 5, 1), step([5, 3, 8], 8, 1), step([5, 3, 8], 5, -1), step([5, 3, 8], 1, 1)] == [3, 5, 8, 5]
    assert step([], 5, 1) is None


def test_the_sentence_asked_for_is_shown_even_outside_the_filter():
    assert shown_sentence(1, [5, 9], ORDER) == 1
    assert shown_sentence(42, [5, 9], ORDER) == 5   # not a sentence with a translation: the filter's first
    assert shown_sentence(None, [], ORDER) is None
    assert progress_text(12, 340) == "12 of 340 undecided"


def cand(pk, phase, who, mean, kept=1, text="कुछ", untranslatable=False):
    return Candidate(pk, phase, who, None if untranslatable else text, untranslatable, kept, mean)


def test_cards_put_the_automatic_pick_first_then_the_other_winner_then_each_phase_best_first():
    cands = [cand(1, "aware", "asha", 0.5), cand(2, "aware", "ravi", 0.7), cand(3, "aware", "uma", 0.6, kept=0),
             cand(4, "blind", "dev", 0.9, kept=0), cand(5, "blind", "neha", 0.8, kept=0),
             cand(6, "blind", "om", None, untranslatable=True)]
    pick = choose_final(cands)
    assert pick.candidate.translation_id == 2  # aware winner kept more aspects
    assert [c.translation_id for c in card_order(cands, pick)] == [2, 4, 3, 1, 5]  # 6 cannot be chosen


def test_card_order_when_the_blind_winner_is_picked():
    cands = [cand(1, "aware", "asha", 0.5, kept=1), cand(2, "blind", "dev", 0.9, kept=1),
             cand(3, "blind", "neha", 0.8, kept=1)]
    assert [c.translation_id for c in card_order(cands, choose_final(cands))] == [2, 1, 3]


def test_a_cards_agreement_figure_says_over_how_many_others():
    cands = [cand(1, "aware", "asha", 0.81234), cand(2, "aware", "ravi", 0.5), cand(3, "aware", "uma", 0.25),
             cand(4, "blind", "dev", None), cand(5, "blind", "om", None, untranslatable=True)]
    assert [agreement_text(c, cands) for c in cands] == [
        "ROUGE-L 0.812 vs 2 others", "ROUGE-L 0.500 vs 2 others", "ROUGE-L 0.250 vs 2 others",
        "ROUGE-L — (no other translation in its phase)", "untranslatable",
    ]
    assert agreement_text(cands[0], cands[:2]) == "ROUGE-L 0.812 vs 1 other"
