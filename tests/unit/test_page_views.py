"""The pages' view functions (ui/*_view.py) as plain functions: where the Adjudication, Tag and Translate
pages move next, what the ITRANS box inserts, which queue items a filter lists."""

from __future__ import annotations

import pytest

from corpus.vocabulary import Status
from db.disagreement_queue import Disagreement
from db.tagging import QueueRow
from ui.adjudicate_view import item_label, next_open
from ui.tag_view import next_unfinished, requested, shown, stepped
from ui.translate_view import inserted


def line(item: int, resolved: bool = False, share: float = 0.5) -> Disagreement:
    return Disagreement(item, f"restaurant/train/s{item}", "aware", "asha", share, resolved)


QUEUE = [line(1), line(2, resolved=True), line(3), line(4)]


@pytest.mark.parametrize(("after", "expected"), [
    (1, 3),  # the decided one is passed over
    (3, 4),
    (4, 1),  # round again from the top
    (None, 1),
    (99, 1),  # not in the queue: the first waiting
])
def test_the_next_open_disagreement_follows_the_queue_order_and_wraps(after, expected):
    assert next_open(QUEUE, after) == expected


def test_with_one_open_disagreement_there_is_no_next_one():
    assert next_open([line(1), line(2, resolved=True)], 1) is None


def test_an_item_label_says_how_much_differs_and_whether_it_is_decided():
    assert item_label(line(2, resolved=True, share=0.25), None) == (
        "restaurant/train/s2 · aware · by asha · 25% of tokens differ · decided")


def row(tid: int, status: str) -> QueueRow:
    return QueueRow(tid, f"restaurant/train/s{tid}", "aware", status, "खाना")


ROWS = [row(1, Status.SUBMITTED), row(2, Status.DRAFT), row(3, Status.SUBMITTED), row(4, Status.ASSIGNED)]


@pytest.mark.parametrize(("after", "expected"), [(2, 4), (4, 2), (1, 2), (99, 2)])
def test_the_next_unfinished_item_skips_submitted_ones_and_wraps(after, expected):
    assert next_unfinished(ROWS, after) == expected


def test_no_other_unfinished_item_is_none():
    assert next_unfinished([row(1, Status.SUBMITTED), row(2, Status.DRAFT)], 2) is None


@pytest.mark.parametrize(("current", "step", "expected"), [(1, 1, 2), (1, -1, 4), (4, 1, 1), (9, 1, None)])
def test_stepping_goes_round_the_listed_items(current, step, expected):
    assert stepped([1, 2, 3, 4], current, step) == expected


def test_a_single_item_has_nowhere_to_step():
    assert stepped([1], 1, 1) is None


def test_the_filter_lists_its_statuses_and_always_the_open_item():
    assert [q.translation_id for q in shown(ROWS, 1, "Unfinished")] == [1, 2, 4]
    assert [q.translation_id for q in shown(ROWS, 2, "Submitted")] == [1, 2, 3]
    assert [q.translation_id for q in shown(ROWS, None, None)] == [1, 2, 3, 4]


@pytest.mark.parametrize(("raw", "expected"), [("3", 3), ("7", None), ("x", None), (None, None)])
def test_the_address_names_an_item_only_if_it_is_in_the_queue(raw, expected):
    assert requested(raw, {1, 2, 3}) == expected


@pytest.mark.parametrize(("text", "selection", "expected"), [
    ("", None, ("खाना", (4, 4))),
    ("अच्छा", None, ("अच्छा खाना", (10, 10))),  # at the end, spaced from the word before
    ("अच्छा था", (6, 6), ("अच्छा खाना था", (11, 11))),  # spaced from the word after
    ("अच्छा पानी था", (6, 10), ("अच्छा खाना था", (10, 10))),  # replaces the selection
])
def test_the_itrans_insert_replaces_the_selection_spaced_from_its_neighbours(text, selection, expected):
    assert inserted(text, selection, "खाना") == expected
