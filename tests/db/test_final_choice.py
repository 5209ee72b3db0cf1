"""Final translation: best per phase by mean ROUGE-L, aware vs blind by policy, overrides counted."""

from __future__ import annotations

from datetime import datetime

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from corpus.final_choice import (
    DEFAULT_POLICY,
    POLICIES,
    Candidate,
    choose_between,
    choose_final,
    mean_scores,
    override_rate,
    phase_winner,
)
from corpus.rouge import rouge_l_f_text
from db.access import SessionEnded
from db.engine import transaction
from db.final_choice import (
    StaleChoice,
    choose,
    compare,
    override_stats,
    record_auto_choices,
)
from db.models import FinalChoice, Revision, User
from tests.support.tagging_fixtures import (
    add_sentence,
    add_translation,
    add_user,
    project_id,
    set_project,
)
from tests.support.databases import built_copy, replace_with_copy


def cand(tid, phase="aware", mean=0.5, kept=1, minute=0, untranslatable=False, text="कुछ"):
    return Candidate(tid, phase, f"t{tid}", None if untranslatable else text, untranslatable, kept, mean,
                     datetime(2026, 1, 1, 12, minute))


def test_mean_scores_average_each_text_against_the_others():
    means = mean_scores({1: "a b c", 2: "a b c", 3: "x y z"}, rouge_l_f_text)
    assert means == {1: 0.5, 2: 0.5, 3: 0.0}
    assert mean_scores({1: "a"}, rouge_l_f_text) == {1: None}


@pytest.mark.parametrize(
    ("candidates", "winner"),
    [
        ([cand(1, mean=0.4), cand(2, mean=0.6)], 2),
        ([cand(1, mean=0.6, kept=1), cand(2, mean=0.6, kept=2)], 2),
        ([cand(1, mean=0.6, kept=2, minute=5), cand(2, mean=0.6, kept=2, minute=1)], 2),
        ([cand(1, mean=None, untranslatable=True), cand(2, mean=None)], 2),
        ([cand(1, untranslatable=True)], None),
        ([], None),
    ],
    ids=["higher-rouge", "tie-more-aspects", "tie-earlier", "untranslatable-cannot-win", "only-untranslatable",
         "none"],
)
def test_phase_winner(candidates, winner):
    result = phase_winner(candidates)
    assert (result.translation_id if result else None) == winner


@pytest.mark.parametrize(
    ("aware", "blind", "policy", "chosen"),
    [
        # default: blind only when the aware kept no more aspects AND blind scores higher
        (cand(1, mean=0.5, kept=2), cand(2, "blind", mean=0.7, kept=2), DEFAULT_POLICY, 2),
        (cand(1, mean=0.5, kept=3), cand(2, "blind", mean=0.7, kept=2), DEFAULT_POLICY, 1),
        (cand(1, mean=0.7, kept=1), cand(2, "blind", mean=0.5, kept=2), DEFAULT_POLICY, 1),
        (cand(1, mean=0.6, kept=2), cand(2, "blind", mean=0.6, kept=2), DEFAULT_POLICY, 1),
        (cand(1, mean=0.5, kept=3), cand(2, "blind", mean=0.7, kept=2), "blind", 2),
        (cand(1, mean=0.5, kept=0), cand(2, "blind", mean=0.7, kept=2), "aware", 1),
        (cand(1, mean=0.5, kept=3), cand(2, "blind", mean=0.7, kept=2), "higher-rouge", 2),
        (None, cand(2, "blind"), DEFAULT_POLICY, 2),
        (None, None, DEFAULT_POLICY, None),
    ],
)
def test_choice_between_phase_winners_follows_the_policy(aware, blind, policy, chosen):
    pick = choose_between(aware, blind, policy)
    assert (pick.candidate.translation_id if pick.candidate else None) == chosen
    assert pick.reason


def test_an_unknown_policy_is_an_error_not_a_silent_default():
    with pytest.raises(ValueError, match="final policy 'newest'"):
        choose_between(cand(1), cand(2, "blind"), "newest")
    assert DEFAULT_POLICY in POLICIES


def test_choose_final_picks_per_phase_first():
    pick = choose_final([cand(1, mean=0.2), cand(2, mean=0.3), cand(3, "blind", mean=0.9, kept=1)])
    assert (pick.aware.translation_id, pick.blind.translation_id, pick.candidate.translation_id) == (2, 3, 3)


def test_override_rate_counts_every_lead_decision_and_the_sentences_in_force():
    # sentence 1: overridden, then confirmed (in force: no override); sentence 2: overridden; 3: confirmed
    rate = override_rate([(1, True), (2, True), (1, False), (3, False)])
    assert (rate.decisions, rate.overridden, rate.rate) == (4, 2, 0.5)
    assert (rate.sentences, rate.sentences_overridden, rate.in_force_rate) == (3, 1, pytest.approx(1 / 3))
    assert override_rate([]).rate is None and override_rate([]).in_force_rate is None


def make_world(engine):
    ids = {name: add_user(engine, name, "translator") for name in ("asha", "ravi", "uma", "dev")}
    ids["lead"] = add_user(engine, "lena", "lead")
    s = add_sentence(engine, "7", "The sushi and the miso soup were great.", ["sushi", "miso soup"])
    ids["sentence"] = s
    ids["a1"] = add_translation(engine, s, "aware", ids["asha"], "सुशी और मिसो सूप बहुत अच्छे थे।",
                                aspect_map={"sushi": "सुशी", "miso soup": "मिसो सूप"})
    ids["a2"] = add_translation(engine, s, "aware", ids["ravi"], "सुशी और मिसो सूप शानदार थे।",
                                aspect_map={"sushi": "सुशी", "miso soup": "मिसो सूप"}, minutes=1)
    ids["a3"] = add_translation(engine, s, "aware", ids["uma"], "सुशी और सूप बढ़िया थे।",
                                aspect_map={"sushi": "सुशी", "miso soup": None}, minutes=2)
    ids["b1"] = add_translation(engine, s, "blind", ids["dev"], "सुशी और मिसो सूप बहुत अच्छे थे।", minutes=3)
    ids["b2"] = add_translation(engine, s, "blind", ids["uma"], None, untranslatable=True, minutes=4)
    return ids


@pytest.fixture(scope="module")
def built_world(migrated_sqlite, tmp_path_factory):
    """``make_world`` run once per module on SQLite; each test's ``world`` is a copy of it."""
    return built_copy(migrated_sqlite, tmp_path_factory.mktemp("world"), make_world)


@pytest.fixture
def world(engine, built_world):
    path, ids = built_world
    replace_with_copy(engine, path)
    return dict(ids)


@pytest.fixture
def any_world(any_engine):
    ids = make_world(any_engine)
    ids["omar"] = add_user(any_engine, "omar", "lead")
    ids["engine"] = any_engine
    return ids


def test_comparison_shows_every_candidate_its_scores_and_votes(engine, world):
    comparison = compare(engine, world["sentence"])
    by_id = {c.translation_id: c for c in comparison.candidates}
    assert set(by_id) == {world[k] for k in ("a1", "a2", "a3", "b1", "b2")}
    assert by_id[world["a3"]].aspects_kept == 1 and by_id[world["a1"]].aspects_kept == 2
    assert by_id[world["b1"]].mean_rouge_l is None  # the only translated blind candidate
    assert comparison.untranslatable_votes == {"aware": 0, "blind": 1}
    assert comparison.policy == DEFAULT_POLICY and comparison.policy_text == POLICIES[DEFAULT_POLICY]
    expected_a1 = (rouge_l_f_text(by_id[world["a1"]].text, by_id[world["a2"]].text)
                   + rouge_l_f_text(by_id[world["a1"]].text, by_id[world["a3"]].text)) / 2
    assert by_id[world["a1"]].mean_rouge_l == pytest.approx(expected_a1)
    # a2 sits between a1 and a3, so it has the highest mean ROUGE-L in the aware phase
    assert comparison.pick.candidate.translation_id == world["a2"]


def test_automatic_choice_is_recorded_once_and_an_override_is_counted(engine, world):
    pid = project_id(engine)
    assert record_auto_choices(engine, pid) == 1
    assert record_auto_choices(engine, pid) == 0
    assert override_stats(engine, pid).decisions == 0
    auto = compare(engine, world["sentence"]).in_force
    choice = choose(engine, world["sentence"], world["a1"], world["lead"], expected=auto.id, note="more natural")
    assert choice.overridden and choice.auto_translation_id == world["a2"] and choice.chosen_by == "lena"
    assert compare(engine, world["sentence"]).in_force.translation_id == world["a1"]
    stats = override_stats(engine, pid)
    assert (stats.decisions, stats.overridden, stats.rate) == (1, 1, 1.0)
    assert record_auto_choices(engine, pid) == 0  # the rule never replaces a lead's decision
    confirm = choose(engine, world["sentence"], world["a2"], world["lead"], expected=choice.id)
    assert not confirm.overridden
    stats = override_stats(engine, pid)  # the override stays counted though no longer in force
    assert (stats.decisions, stats.overridden, stats.rate) == (2, 1, 0.5)
    assert (stats.sentences, stats.sentences_overridden, stats.in_force_rate) == (1, 0, 0.0)
    with Session(engine) as session:
        rows = session.scalars(select(FinalChoice).order_by(FinalChoice.id)).all()
        actions = session.scalars(select(Revision.action).where(Revision.entity == "final_choice")).all()
    assert [r.overridden for r in rows] == [False, True, False]
    assert actions == ["auto", "override", "confirm"]
    assert compare(engine, world["sentence"]).in_force.translation_id == world["a2"]


def test_untranslatable_or_foreign_translations_cannot_be_chosen(engine, world):
    with pytest.raises(ValueError, match="submitted, translated"):
        choose(engine, world["sentence"], world["b2"], world["lead"], expected=None)
    other = add_sentence(engine, "8", "Nice.")
    with pytest.raises(ValueError, match="does not belong"):
        choose(engine, other, world["a1"], world["lead"], expected=None)
    with pytest.raises(PermissionError):
        choose(engine, world["sentence"], world["a1"], world["asha"], expected=None)


def test_an_admin_without_the_lead_role_chooses_no_final_translation(engine, world):
    with pytest.raises(PermissionError):
        choose(engine, world["sentence"], world["a1"], add_user(engine, "root", "admin"), expected=None)
    chosen = choose(engine, world["sentence"], world["a1"], add_user(engine, "chief", "admin", "lead"), expected=None)
    assert chosen.translation_id == world["a1"]


def test_policy_setting_changes_the_pick(engine, world):
    set_project(engine, final_policy="blind")
    assert compare(engine, world["sentence"]).pick.candidate.translation_id == world["b1"]
    set_project(engine, final_policy="bogus")
    with pytest.raises(ValueError, match="unknown"):
        compare(engine, world["sentence"])


def test_a_second_lead_choosing_on_what_they_loaded_is_refused_with_both_choices(any_world):
    engine, world = any_world["engine"], any_world
    sid = world["sentence"]
    assert compare(engine, sid).in_force is None  # both leads load the sentence with no choice in force
    lenas = choose(engine, sid, world["a1"], world["lead"], expected=None)
    with pytest.raises(StaleChoice, match="changed by lena") as refused:
        choose(engine, sid, world["b1"], world["omar"], expected=None)
    assert refused.value.expected_id is None
    assert (refused.value.current.id, refused.value.current.translation_id, refused.value.current.chosen_by) == (
        lenas.id, world["a1"], "lena"
    )
    assert compare(engine, sid).in_force.id == lenas.id
    omars = choose(engine, sid, world["b1"], world["omar"], expected=lenas.id)  # seen lena's, chooses again
    assert compare(engine, sid).in_force == omars


def test_an_automatic_pick_recorded_meanwhile_also_refuses_a_stale_choice(any_world):
    engine, world = any_world["engine"], any_world
    record_auto_choices(engine, project_id(engine))
    with pytest.raises(StaleChoice, match="the automatic rule"):
        choose(engine, world["sentence"], world["a1"], world["lead"], expected=None)


def test_a_deactivated_lead_choosing_writes_nothing(any_world):
    engine, world = any_world["engine"], any_world
    with transaction(engine) as session:
        session.get(User, world["lead"]).active = False
    with pytest.raises(SessionEnded):
        choose(engine, world["sentence"], world["a1"], world["lead"], expected=None)
    with pytest.raises(SessionEnded):
        record_auto_choices(engine, project_id(engine), by=world["lead"])
    assert compare(engine, world["sentence"]).in_force is None
    with Session(engine) as session:
        assert session.scalars(select(FinalChoice)).all() == []
        assert session.scalars(select(Revision).where(Revision.entity == "final_choice")).all() == []
    assert record_auto_choices(engine, project_id(engine)) == 1  # the command line has no session to check


def test_an_active_user_without_the_lead_role_cannot_choose(any_world):
    engine, world = any_world["engine"], any_world
    with pytest.raises(PermissionError, match="active lead"):
        choose(engine, world["sentence"], world["a1"], world["asha"], expected=None)
    assert compare(engine, world["sentence"]).in_force is None


def test_leads_racing_on_one_sentence_leave_one_choice_and_refuse_the_other(any_world):
    import threading

    engine, world = any_world["engine"], any_world
    barrier = threading.Barrier(2)
    outcomes = {}

    def decide(lead, translation):
        barrier.wait()
        try:
            outcomes[lead] = choose(engine, world["sentence"], world[translation], world[lead], expected=None).id
        except StaleChoice as exc:
            outcomes[lead] = exc

    threads = [threading.Thread(target=decide, args=args) for args in (("lead", "a1"), ("omar", "b1"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    refused = [o for o in outcomes.values() if isinstance(o, StaleChoice)]
    with Session(engine) as session:
        rows = session.scalars(select(FinalChoice.id)).all()
    assert len(refused) == 1 and len(rows) == 1 and refused[0].current.id == rows[0]


def test_withdrawn_gold_gives_no_tags_to_the_candidates_aspect_count(engine, world):
    from db.models import Adjudication, TaggingItem

    with transaction(engine) as session:
        item = TaggingItem(translation_id=world["a3"], tokens=["सुशी", "और", "सूप", "बढ़िया", "थे", "।"],
                           tokenizer="hi-canon/1.0", translation_version=1)
        session.add(item)
        session.flush()
        session.add(Adjudication(item_id=item.id, tags=["B", "O", "B", "O", "O", "O"], source="agreed"))
        session.add(Adjudication(item_id=item.id, tags=None, source="withdrawn"))
    kept = {c.translation_id: c.aspects_kept for c in compare(engine, world["sentence"]).candidates}
    assert kept[world["a3"]] == 1  # from the aspect map, not the withdrawn gold's two spans
