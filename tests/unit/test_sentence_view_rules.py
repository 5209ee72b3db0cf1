import pytest

from corpus.sentence_view import (
    MAX_ROW_ID,
    Kept,
    annotators_disagree,
    kept_translation,
    neighbours,
    not_started,
    parse_row_id,
    translation_state,
)
from corpus.vocabulary import Status


@pytest.mark.parametrize(("raw", "expected"), [
    ("123", 123), (" 7 ", 7), ("007", 7), (str(MAX_ROW_ID), MAX_ROW_ID),
    (None, None), ("", None), ("0", None), ("-3", None), ("+3", None), ("12abc", None), ("1.5", None),
    ("١٢", None), ("१२", None), (str(MAX_ROW_ID + 1), None), ("<script>", None), (["12"], None), (12, None),
])
def test_an_address_names_a_sentence_only_by_plain_positive_digits(raw, expected):
    assert parse_row_id(raw) == expected


@pytest.mark.parametrize(("current", "expected"), [
    (10, (None, 4)), (4, (10, 2)), (2, (4, None)), (99, (None, None)),
])
def test_neighbours_follow_the_given_corpus_order(current, expected):
    assert neighbours([10, 4, 2], current) == expected


def test_a_lone_sentence_has_no_neighbours():
    assert neighbours([5], 5) == (None, None)
    assert neighbours([], 5) == (None, None)


def test_the_choice_in_force_is_kept_before_the_automatic_pick():
    assert kept_translation(3, "lena", 8, "aware winner") == Kept(3, "final choice in force (chosen by lena)")
    assert kept_translation(8, None, 8, "aware winner") == Kept(
        8, "final choice in force (recorded by the automatic rule)")


def test_without_a_choice_the_automatic_pick_is_kept_with_its_reason():
    assert kept_translation(None, None, 8, "only the blind phase has a translation") == Kept(
        8, "automatic pick, not recorded yet: only the blind phase has a translation")
    assert kept_translation(None, None, None, "no translation to choose") is None


@pytest.mark.parametrize(("args", "expected"), [
    ((Status.SUBMITTED, False), "submitted"),
    ((Status.DRAFT, False, "idiom"), "draft"),
    ((Status.SUBMITTED, True, "idiom"), "untranslatable (idiom)"),
    ((Status.SUBMITTED, True, "other", "a brand name pun"), "untranslatable (a brand name pun)"),
    ((Status.SUBMITTED, True, "other"), "untranslatable (other)"),
    ((Status.SUBMITTED, True, None), "untranslatable"),
    ((Status.DRAFT, True, "pun"), "draft, marked untranslatable (pun)"),
])
def test_a_translations_state_says_untranslatable_and_why(args, expected):
    assert translation_state(*args) == expected


@pytest.mark.parametrize(("versions", "expected"), [
    ([], False),
    ([["B", "O"]], False),
    ([["B", "O"], ["B", "O"]], False),
    (["BO", ["B", "O"]], False),  # one letter per token or a list: the same tags
    ([["B", "O"], ["O", "O"]], True),
    ([["B", "O"], ["B", "O"], ["B", "I"]], True),
])
def test_annotators_disagree_when_two_submitted_versions_differ(versions, expected):
    assert annotators_disagree(versions) is expected


def test_open_tasks_without_a_saved_translation_are_not_started():
    tasks = [("blind", "uma", Status.ASSIGNED), ("aware", "ravi", Status.SKIPPED), ("aware", "asha", Status.DRAFT),
             ("aware", "dev", Status.ASSIGNED), ("aware", "old", Status.REASSIGNED), ("blind", "kim", Status.SUBMITTED)]
    translated = {("aware", "asha"), ("aware", "dev"), ("blind", "kim")}
    assert not_started(tasks, translated) == [("aware", "ravi", "skipped"), ("blind", "uma", "assigned")]
    assert not_started([], set()) == []
