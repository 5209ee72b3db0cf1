"""db.sentence_view on SQLite and PostgreSQL: one sentence with its translations, figures, tags and gold."""

from __future__ import annotations

import pytest

from db.final_choice import choose, compare, record_auto_choices
from db.sentence_view import sentence_detail
from tests.support import sentence_world as w
from tests.support.databases import built_copy, replace_with_copy
from tests.support.tagging_fixtures import add_sentence, project_id


@pytest.fixture(scope="module")
def built_world(migrated_sqlite, tmp_path_factory):
    """``sentence_world.build`` run once per module on SQLite; each SQLite test's world is a copy of it."""
    return built_copy(migrated_sqlite, tmp_path_factory.mktemp("world"), w.build)


@pytest.fixture
def world(any_engine, request):
    if any_engine.dialect.name == "sqlite":
        path, built = request.getfixturevalue("built_world")
        replace_with_copy(any_engine, path)
        ids = dict(built)
    else:
        ids = w.build(any_engine)
    ids["engine"] = any_engine
    ids["project"] = project_id(any_engine)
    return ids


def detail(world, row_id):
    return sentence_detail(world["engine"], row_id, world["project"])


def test_the_sentence_its_aspects_and_its_neighbours_in_corpus_order(world):
    d = detail(world, world["s1"])
    assert (d.row_id, d.key, d.text) == (world["s1"], "restaurant/train/11", "The sushi was great.")
    assert [(a.term, a.start, a.end, a.polarity) for a in d.aspects] == [("sushi", 4, 9, "positive")]
    assert (d.previous_id, d.next_id) == (world["s0"], world["s2"])
    assert detail(world, world["s0"]).previous_id is None
    assert detail(world, world["s2"]).next_id is None


def test_every_translation_with_its_state_and_mean_rouge_l_within_its_phase(world):
    d = detail(world, world["s1"])
    rows = [(t.phase, t.translator, t.text, t.status, t.untranslatable) for t in d.translations]
    assert rows == [
        ("aware", "asha", w.ASHA, "submitted", False),
        ("aware", "ravi", w.RAVI, "submitted", False),
        ("blind", "asha", None, "submitted", True),
        ("blind", "uma", w.UMA, "submitted", False),
    ]
    means = {t.translation_id: t.mean_rouge_l for t in d.translations}
    assert means[world["asha_aware"]] == pytest.approx(4 / 7)
    assert means[world["ravi_aware"]] == pytest.approx(4 / 7)
    assert means[world["uma_blind"]] is None and means[world["asha_blind"]] is None
    assert d.translations[2].reason == "idiom"
    assert d.not_started == [("blind", "ravi", "assigned")] and d.has_submitted


def test_the_kept_translation_is_the_automatic_pick_until_a_choice_is_in_force(world):
    d = detail(world, world["s1"])
    assert d.kept.translation_id == world["asha_aware"] and d.kept.reason.startswith("automatic pick, not recorded")
    assert d.kept_row.translator == "asha"
    record_auto_choices(world["engine"], world["project"])
    d = detail(world, world["s1"])
    assert (d.kept.translation_id, d.kept.reason) == (
        world["asha_aware"], "final choice in force (recorded by the automatic rule)")
    recorded = compare(world["engine"], world["s1"]).in_force.id
    choose(world["engine"], world["s1"], world["ravi_aware"], world["lead"], expected=recorded)
    d = detail(world, world["s1"])
    assert (d.kept.translation_id, d.kept.reason) == (world["ravi_aware"], "final choice in force (chosen by lena)")


def test_every_annotators_tags_and_the_gold_in_force_per_item(world):
    d = detail(world, world["s1"])
    items = {i.item_id: i for i in d.items}
    assert set(items) == {world["disputed_item"], world["agreed_item"]}
    disputed, agreed = items[world["disputed_item"]], items[world["agreed_item"]]
    assert (disputed.phase, disputed.translator, disputed.tokens) == ("aware", "asha", ["सुशी", "बहुत", "अच्छी", "थी", "।"])
    assert [(a.annotator, a.status, a.tags, a.no_aspects) for a in disputed.annotations] == [
        ("kiran", "submitted", w.KIRAN_TAGS, True), ("meera", "submitted", w.MEERA_TAGS, False)]
    assert disputed.disagree and disputed.gold_tags is None and disputed.gold_source is None
    assert not agreed.disagree
    assert (agreed.gold_source, agreed.gold_tags) == ("agreed", w.AGREED_TAGS)
    assert [i.item_id for i in d.items] == [world["disputed_item"], world["agreed_item"]]  # translation order


def test_a_sentence_without_translations_has_nothing_kept_and_no_items(world):
    d = detail(world, world["s0"])
    assert d.translations == [] and d.items == [] and d.kept is None and d.kept_row is None
    assert d.not_started == [("aware", "uma", "skipped")] and not d.has_submitted


def test_an_unknown_id_or_another_projects_sentence_is_none(world):
    assert detail(world, 10**6) is None
    assert detail(world, 2**31) is None  # beyond an INTEGER id: no query, no database error
    assert sentence_detail(world["engine"], world["s1"], world["project"] + 1) is None


def test_the_corpus_order_goes_by_domain_split_then_position(world):
    laptop = add_sentence(world["engine"], "1", "The screen is dim.", ["screen"], ordinal=-5)
    # restaurant sentences keep their order; "laptop" sorts before "restaurant" whatever the position
    assert detail(world, world["s0"]).previous_id == laptop
    assert detail(world, laptop).next_id == world["s0"]
