"""Every reader of gold asks one rule (corpus.gold.in_force through db.gold): the adjudication queue, the
statistics, the metrics and the export agree on which items have gold, on SQLite and PostgreSQL.

The case that used to split them: two annotators per item, three assigned, two of them submitted the same
tags. The Adjudication page waited for the third; the export shipped the item as ``agreed`` gold."""

from __future__ import annotations

import pytest

from corpus.stats import LabelledSentence
from db.disagreement_queue import decisions, gold_count, item_entry
from db.export_data import load_export
from db.final_choice import record_auto_choices
from db.metrics_data import load_metrics_input
from db.queries import load_stat_inputs
from db.assignment import assign_annotators
from tests.db.test_adjudication import edit_submitted, submit
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    project_id,
)

FOOD = "खाना और माहौल अच्छा था।"  # खाना और माहौल अच्छा था ।
AGREED = ["B", "O", "B", "O", "O", "O"]
CHANGED = ["B", "O", "O", "O", "O", "O"]


def food_world(engine, annotators_assigned: int) -> dict:
    """One sentence, one aware translation (the final one), ``annotators_assigned`` annotators on it, in a
    project that asks for two per item."""
    ids = {"asha": add_user(engine, "asha", "translator")}
    for name in ("meera", "kiran", "nila")[:annotators_assigned]:
        ids[name] = add_user(engine, name, "annotator")
    sentence = add_sentence(engine, "2", "Food and ambience were good.", ["Food", "ambience"], ordinal=1)
    ids["t"] = add_translation(engine, sentence, "aware", ids["asha"], FOOD)
    ids["pid"] = project_id(engine)
    assign_annotators(engine, ids["pid"], per_item=annotators_assigned)
    record_auto_choices(engine, ids["pid"])
    return ids


def gold_as_each_reader_sees_it(engine, world: dict, item: int) -> dict[str, list[str] | None]:
    """The item's gold tags (None: no gold) as the adjudication queue, the statistics, the metrics and the
    export read them."""
    entry = item_entry(engine, item)
    with_gold, _ = gold_count(engine, world["pid"])
    hindi = load_stat_inputs(engine, world["pid"]).hindi
    adjudicated = load_metrics_input(engine, world["pid"]).adjudicated.get(world["t"])
    records = [r for r in load_export(engine).sentences if r.translation_id == world["t"]]
    return {
        "adjudication": entry.gold.tags if entry.gold is not None and with_gold == 1 else None,
        "statistics": list(hindi[0].tags) if hindi else None,
        "metrics": list(adjudicated) if adjudicated is not None else None,
        "export": list(records[0].hi_tags) if records else None,
    }


def left_out_reason(engine, world: dict) -> tuple[str, str] | None:
    return next(((o.reason, o.detail) for o in load_export(engine).left_out if o.translation_id == world["t"]), None)


def test_two_of_three_assignees_agreeing_is_no_gold_for_any_reader(any_engine):
    world = food_world(any_engine, annotators_assigned=3)
    item = submit(any_engine, world["meera"], world["t"], AGREED)
    submit(any_engine, world["kiran"], world["t"], AGREED)
    assert decisions(any_engine, item) == []
    assert gold_as_each_reader_sees_it(any_engine, world, item) == dict.fromkeys(
        ("adjudication", "statistics", "metrics", "export"))
    assert left_out_reason(any_engine, world) == ("tagging incomplete", "2 of 3 annotations submitted")


def test_once_the_third_assignee_agrees_every_reader_sees_the_same_gold(any_engine):
    world = food_world(any_engine, annotators_assigned=3)
    item = submit(any_engine, world["meera"], world["t"], AGREED)
    submit(any_engine, world["kiran"], world["t"], AGREED)
    submit(any_engine, world["nila"], world["t"], AGREED)
    assert [d.source for d in decisions(any_engine, item)] == ["agreed"]
    assert gold_as_each_reader_sees_it(any_engine, world, item) == dict.fromkeys(
        ("adjudication", "statistics", "metrics", "export"), AGREED)
    assert load_stat_inputs(any_engine, world["pid"]).hindi == [LabelledSentence("restaurant", tuple(AGREED), 2)]
    assert left_out_reason(any_engine, world) is None


def test_withdrawn_automatic_gold_is_no_gold_for_any_reader(any_engine):
    world = food_world(any_engine, annotators_assigned=2)
    item = submit(any_engine, world["meera"], world["t"], AGREED)
    submit(any_engine, world["kiran"], world["t"], AGREED)
    assert gold_as_each_reader_sees_it(any_engine, world, item) == dict.fromkeys(
        ("adjudication", "statistics", "metrics", "export"), AGREED)
    edit_submitted(any_engine, world["kiran"], world["t"], CHANGED)
    assert [d.source for d in decisions(any_engine, item)] == ["agreed", "withdrawn"]
    assert gold_as_each_reader_sees_it(any_engine, world, item) == dict.fromkeys(
        ("adjudication", "statistics", "metrics", "export"))
    assert left_out_reason(any_engine, world) == ("annotators disagree", "2 annotations differ; no adjudication")


@pytest.mark.parametrize("annotators_assigned", [2, 3])
def test_a_leads_gold_is_every_readers_gold(any_engine, annotators_assigned):
    from db.adjudication import edit

    world = food_world(any_engine, annotators_assigned)
    lead = add_user(any_engine, "lena", "lead")
    item = submit(any_engine, world["meera"], world["t"], AGREED)
    submit(any_engine, world["kiran"], world["t"], CHANGED)
    edit(any_engine, item, CHANGED, lead, expected=None)
    assert gold_as_each_reader_sees_it(any_engine, world, item) == dict.fromkeys(
        ("adjudication", "statistics", "metrics", "export"), CHANGED)
