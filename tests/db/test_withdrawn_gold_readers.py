"""Once automatic gold is withdrawn (annotators edited away from agreement), every reader of "the gold in
force" sees no gold: statistics, agreement input, the dashboard's sentence view and the export."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.disagreement_queue import decisions
from db.engine import reader
from db.export_data import ExportOptions, load_export
from db.gold import gold_in_force
from db.metrics_data import load_metrics_input
from db.models import SourceSentence, TaggingItem
from db.queries import load_stat_inputs
from db.sentence_view import sentence_detail
from db.assignment import assign_annotators
from tests.db.test_adjudication import edit_submitted, make_world, submit
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    project_id,
    set_project,
)
from tests.support.databases import built_copy, replace_with_copy

AGREED = ["B", "O", "B", "O", "O", "O"]
CHANGED = ["B", "O", "O", "O", "O", "O"]


@pytest.fixture(scope="module")
def built_world(migrated_sqlite, tmp_path_factory):
    """``make_world`` run once per module on SQLite; each test's ``world`` is a copy of it."""
    return built_copy(migrated_sqlite, tmp_path_factory.mktemp("world"), make_world)


@pytest.fixture
def world(engine, built_world):
    path, ids = built_world
    replace_with_copy(engine, path)
    return dict(ids)


def aware_items(engine, pid: int, sentence_id: str) -> list:
    """The aware translations' tagging items of a sentence as the lead's sentence view shows them."""
    with Session(reader(engine)) as session:
        row_id = session.scalar(select(SourceSentence.id).where(
            (SourceSentence.project_id == pid) & (SourceSentence.domain == "restaurant")
            & (SourceSentence.split == "train") & (SourceSentence.sentence_id == sentence_id)))
    return [item for item in sentence_detail(engine, row_id, pid).items if item.phase == "aware"]


def withdraw_gold_of_t2(engine, world) -> int:
    item = submit(engine, world["meera"], world["t2"], AGREED)
    submit(engine, world["kiran"], world["t2"], AGREED)
    edit_submitted(engine, world["kiran"], world["t2"], CHANGED)
    assert [d.source for d in decisions(engine, item)] == ["agreed", "withdrawn"]
    return item


def test_agreed_gold_is_read_while_in_force(engine, world):
    item = submit(engine, world["meera"], world["t2"], AGREED)
    submit(engine, world["kiran"], world["t2"], AGREED)
    pid = project_id(engine)
    assert {i: g.gold.tags for i, g in gold_in_force(engine, pid).items() if g.gold} == {item: AGREED}
    assert world["t2"] in load_metrics_input(engine, pid).adjudicated
    assert [list(i.gold_tags) for i in aware_items(engine, pid, "2")] == [AGREED]
    assert len(load_stat_inputs(engine).hindi) == 0  # no final translation chosen yet: statistics count finals


def test_withdrawn_gold_is_no_gold_for_statistics_and_agreement(engine, world):
    item = withdraw_gold_of_t2(engine, world)
    pid = project_id(engine)
    assert gold_in_force(engine, pid)[item].gold is None
    assert world["t2"] not in load_metrics_input(engine, pid).adjudicated
    (item,) = aware_items(engine, pid, "2")
    assert item.gold_tags is None
    assert sorted(list(a.tags) for a in item.annotations if a.status == "submitted") == sorted([AGREED, CHANGED])


def test_withdrawn_gold_leaves_the_translation_out_of_the_export_as_a_disagreement(engine, world):
    withdraw_gold_of_t2(engine, world)
    dataset = load_export(engine, ExportOptions(all_translations=True))
    assert dataset.sentences == []
    reasons = {(o.sentence_id, o.reason) for o in dataset.left_out}
    assert ("2", "annotators disagree") in reasons


def test_a_lone_version_in_a_one_annotator_project_is_exported_but_not_as_agreed(engine):
    set_project(engine, annotators_per_item=1)
    asha = add_user(engine, "asha", "translator")
    meera = add_user(engine, "meera", "annotator")
    sid = add_sentence(engine, "9", "Food was good.", ["Food"])
    t = add_translation(engine, sid, "aware", asha, "खाना अच्छा था।")
    assign_annotators(engine, project_id(engine))
    submit(engine, meera, t, ["B", "O", "O", "O"])
    with Session(reader(engine)) as session:
        assert session.scalar(select(TaggingItem.id).where(TaggingItem.translation_id == t)) is not None
    dataset = load_export(engine, ExportOptions(all_translations=True))
    assert [s.sentence_id for s in dataset.sentences] == ["9"]
    assert load_export(engine, ExportOptions(all_translations=True, agreed_only=True)).sentences == []
