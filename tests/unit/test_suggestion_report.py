"""Suggestion figures per source, by hand: acceptance, precision and recall against the gold, editor keys per item
with and without suggestions; and what a save records of the suggestions it showed."""

import pytest

from corpus.bio import spans_to_tags
from corpus.suggestions import (
    ACCEPTED_KEY,
    ALL,
    KEYS_KEY,
    SUGGESTIONS_KEY,
    SuggestionSave,
    shown_by_source,
    shown_record,
    suggestion_report,
)


def tags(*spans):
    return tuple(spans_to_tags(6, list(spans)))


SAVES = [
    SuggestionSave(1, ((0, 1, "aware"), (3, 4, "transliteration")), tags((0, 1), (3, 5)), 3),  # fixed one
    SuggestionSave(1, ((0, 1, "aware"), (3, 4, "transliteration")), tags((0, 1), (3, 4)), 2),  # took both
    SuggestionSave(2, ((2, 3, "crf"), (5, 6, "crf")), tags((2, 3)), 4),
    SuggestionSave(3, (), tags((1, 2)), 10),                         # recorded: nothing shown
    SuggestionSave(4, None, tags((0, 1)), None),                     # an old save: not counted
    SuggestionSave(5, ((0, 1, "aware"),), tags((0, 1)), 1),          # no gold yet: acceptance only
]
GOLD = {1: tags((0, 1), (3, 5)), 2: tags((2, 3)), 3: tags((1, 2)), 4: tags((0, 1))}


@pytest.mark.parametrize("source, shown, accepted, judged, correct, acceptance, precision, recall", [
    ("aware", 3, 3, 1, 1, 1.0, 1.0, 0.25),
    ("transliteration", 2, 1, 1, 0, 0.5, 0.0, 0.0),
    ("crf", 2, 1, 2, 1, 0.5, 0.5, 0.25),
    (ALL, 7, 5, 4, 2, 5 / 7, 0.5, 0.5),
])
def test_figures_per_source_by_hand(source, shown, accepted, judged, correct, acceptance, precision, recall):
    row = suggestion_report(SAVES, GOLD, ("map", "aware", "glossary", "transliteration", "crf")).row(source)
    assert (row.shown, row.accepted, row.judged, row.correct, row.gold) == (shown, accepted, judged, correct, 4)
    assert row.acceptance_rate == pytest.approx(acceptance)
    assert row.precision == pytest.approx(precision)
    assert row.recall == pytest.approx(recall)


def test_rows_follow_the_given_source_order_and_keys_split_by_suggestions_shown():
    report = suggestion_report(SAVES, GOLD, ("map", "aware", "glossary", "transliteration", "crf"))
    assert [r.source for r in report.by_source] == ["aware", "transliteration", "crf", ALL]
    assert report.keys_with == pytest.approx(2.5)
    assert report.keys_without == pytest.approx(10.0)
    assert (report.annotations_with, report.annotations_without) == (4, 1)
    assert (report.items_with, report.items_recorded) == (3, 4)
    assert report.exposure_statement().startswith("annotators saw suggestions on 3 of 4 items")


def test_no_saves_no_rows():
    report = suggestion_report([], {})
    assert report.by_source == () and report.keys_with is None and report.keys_without is None
    assert report.exposure_statement().startswith("annotators saw no suggestions")


def test_a_save_records_what_it_showed_and_what_it_kept_per_source():
    record = shown_record([(3, 4, "transliteration", 0.8), (0, 1, "aware", 0.95), (5, 6, "map", None)],
                          tags((0, 1), (3, 5)), keys=2)
    assert record[SUGGESTIONS_KEY] == [[0, 1, "aware", 0.95], [3, 4, "transliteration", 0.8], [5, 6, "map", None]]
    assert record[ACCEPTED_KEY] == {"aware": 1, "map": 0, "transliteration": 0}
    assert record[KEYS_KEY] == 2
    assert shown_by_source(record) == ((0, 1, "aware"), (3, 4, "transliteration"), (5, 6, "map"))
    assert shown_by_source({"tags": ["O"]}) is None
    assert KEYS_KEY not in shown_record([], tags())
