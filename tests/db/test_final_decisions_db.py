"""The final-translation decision view's storage, on SQLite and PostgreSQL: the lead's "untranslatable"
decision (a final choice without a translation), and the filters read with the Home page's own rules."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from db.final_choice import (
    StaleChoice,
    choose,
    compare,
    decision_overview,
    mark_untranslatable,
    override_stats,
    record_auto_choices,
)
from db.models import FinalChoice, Revision
from db.work_queue import lead_work_queue
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id


def build(engine) -> dict:
    """Five sentences in corpus order s1..s5 (s5 has no translation):

    - s1: two aware translations -> the rule picks one; the lead overrides it -> overridden;
    - s2: one aware translation, the rule's pick recorded -> decided, not overridden;
    - s3: one aware translation and one untranslatable blind one, nothing in force -> undecided and to review;
    - s4: only an untranslatable translation -> to review, not undecided (no candidate to choose).
    """
    ids = {name: add_user(engine, name, "translator") for name in ("asha", "ravi", "dev")}
    ids["lead"] = add_user(engine, "lena", "lead")
    s = [add_sentence(engine, str(n), f"The food number {n} was good.", ["food"], ordinal=n) for n in range(1, 6)]
    ids["s"] = s
    ids["s1a"] = add_translation(engine, s[0], "aware", ids["asha"], "खाना अच्छा था।")
    ids["s1b"] = add_translation(engine, s[0], "aware", ids["ravi"], "भोजन बढ़िया था।", minutes=1)
    ids["s2a"] = add_translation(engine, s[1], "aware", ids["asha"], "खाना ठीक था।")
    ids["s3a"] = add_translation(engine, s[2], "aware", ids["asha"], "खाना स्वादिष्ट था।")
    ids["s3u"] = add_translation(engine, s[2], "blind", ids["dev"], None, untranslatable=True)
    ids["s4u"] = add_translation(engine, s[3], "blind", ids["dev"], None, untranslatable=True)
    record_auto_choices(engine, project_id(engine))  # s1, s2, s3 get the rule's pick
    with Session(engine) as session:  # s3's recorded pick is removed again: nothing in force for it
        session.query(FinalChoice).filter(FinalChoice.sentence_id == s[2]).delete()
        session.commit()
    auto_s1 = compare(engine, s[0])
    other = ids["s1b"] if auto_s1.pick.candidate.translation_id == ids["s1a"] else ids["s1a"]
    choose(engine, s[0], other, ids["lead"], expected=auto_s1.in_force.id)
    return ids


@pytest.fixture
def world(any_engine):
    ids = build(any_engine)
    ids["engine"] = any_engine
    return ids


def test_each_filter_lists_what_the_home_page_counts(world):
    engine, s = world["engine"], world["s"]
    view = decision_overview(engine, project_id(engine))
    assert view.order == s[:4]
    assert view.keys[s[0]] == "restaurant/train/1"
    assert view.lists == {"undecided": [s[2]], "untranslatable": [s[2], s[3]], "overridden": [s[0]],
                          "all": s[:4]}
    queue = lead_work_queue(engine, project_id(engine), count_disagreements=False)
    assert (queue.without_final, queue.untranslatable) == (len(view.lists["undecided"]),
                                                           len(view.lists["untranslatable"]))


def test_the_lead_marks_a_sentence_untranslatable_and_it_leaves_both_lists(world):
    engine, s, lead = world["engine"], world["s"], world["lead"]
    choice = mark_untranslatable(engine, s[2], lead, expected=None, note="an idiom with no Hindi match")
    assert (choice.translation_id, choice.auto_translation_id, choice.overridden, choice.chosen_by) == (
        None, world["s3a"], True, "lena")  # the rule would have kept s3's translation
    view = decision_overview(engine, project_id(engine))
    assert view.lists["undecided"] == [] and view.lists["untranslatable"] == [s[3]]
    assert view.lists["overridden"] == [s[0], s[2]]
    with Session(engine) as session:
        revision = session.scalars(select(Revision).where(Revision.entity == "final_choice")
                                   .order_by(Revision.id.desc())).first()
    assert revision.action == "untranslatable" and revision.payload["translation_id"] is None
    # The rule never replaces the lead's decision.
    assert record_auto_choices(engine, project_id(engine)) == 0
    assert compare(engine, s[2]).in_force.translation_id is None


def test_a_sentence_with_only_untranslatable_translations_is_decided_without_an_override(world):
    engine, s = world["engine"], world["s"]
    choice = mark_untranslatable(engine, s[3], world["lead"], expected=None)
    assert (choice.translation_id, choice.auto_translation_id, choice.overridden) == (None, None, False)
    assert decision_overview(engine, project_id(engine)).lists["untranslatable"] == [s[2]]
    assert override_stats(engine, project_id(engine)).decisions == 2  # s1's override and this one


def test_marking_untranslatable_on_a_stale_view_is_refused_with_the_choice_in_force(world):
    engine, s = world["engine"], world["s"]
    omar = add_user(engine, "omar", "lead")
    theirs = choose(engine, s[2], world["s3a"], omar, expected=None)
    with pytest.raises(StaleChoice) as refused:
        mark_untranslatable(engine, s[2], world["lead"], expected=None)
    assert refused.value.theirs.id == theirs.id and refused.value.mine is None
    with pytest.raises(ValueError, match="no submitted translation"):
        mark_untranslatable(engine, s[4], world["lead"], expected=None)


def test_the_comparison_carries_the_source_aspects_and_untranslatable_reasons(world):
    engine, s = world["engine"], world["s"]
    shown = compare(engine, s[2])
    assert shown.source_aspects == [(4, 8)]  # "food" in "The food number 3 was good."
    assert {c.translation_id: c.reason for c in shown.candidates} == {world["s3a"]: None, world["s3u"]: "idiom"}
