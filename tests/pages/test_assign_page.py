"""The Assignments page opened by the Home page's links (AppTest, hand-built project in
tests/support/assign_fixtures.py): the phase's unassigned sentences ready to assign, the overdue tasks ready
to reassign; the counts are the ones Home shows."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.models import TranslationAssignment
from tests.support.app_pages import open_page
from tests.support.assign_fixtures import build


@pytest.fixture
def world(app_engine):
    ids = build(app_engine)
    ids["engine"] = app_engine
    return ids


def assign_page(world, **query: str) -> AppTest:
    return open_page(world["engine"], world["lead"], "pages/assign.py", query=query)


def table(at: AppTest):
    return at.dataframe[0].value


def test_unassigned_link_preselects_the_phase_and_lists_its_sentences(world):
    at = assign_page(world, phase="aware", show="unassigned")
    assert at.radio(key="assign_list_phase").value == "aware"
    assert at.subheader[0].value == "3 sentence(s) not yet assigned in the aware phase"
    assert table(at)["sentence"].tolist() == ["restaurant/train/2", "restaurant/train/3", "restaurant/train/4"]
    at = assign_page(world, phase="blind", show="unassigned")
    assert table(at)["sentence"].tolist() == ["restaurant/train/4"]


def test_the_listed_sentences_are_assigned_in_that_phase_with_one_click(world):
    at = assign_page(world, phase="aware", show="unassigned")
    at.button(key="assign_list_go").click().run()
    assert not at.exception
    assert any("aware phase: 3 new tasks for 3 sentences" in s.value for s in at.success)
    assert at.subheader[0].value == "0 sentence(s) not yet assigned in the aware phase"
    with Session(world["engine"]) as session:
        new = session.scalars(select(TranslationAssignment.phase).where(TranslationAssignment.status == "assigned")
                              .where(TranslationAssignment.sentence_id.in_(world["s"][1:]))).all()
    assert sorted(new) == ["aware", "aware", "aware", "blind", "blind"]  # ravi's two blind tasks were there


def test_changing_the_phase_changes_the_list_and_the_address(world):
    at = assign_page(world, phase="aware", show="unassigned")
    at.radio(key="assign_list_phase").set_value("blind").run()
    assert not at.exception
    assert at.query_params["phase"] == "blind"
    assert table(at)["sentence"].tolist() == ["restaurant/train/4"]


def test_overdue_link_lists_person_sentence_and_date_and_reassigns(world):
    at = assign_page(world, show="overdue", kind="translation")
    assert at.subheader[0].value == "2 overdue translation task(s)"
    rows = table(at)
    assert rows[["person", "sentence", "phase", "status"]].values.tolist() == [
        ["asha", "restaurant/train/1", "aware", "draft"], ["ravi", "restaurant/train/2", "blind", "assigned"]]
    assert all(len(d) == 10 for d in rows["assigned on"])  # YYYY-MM-DD
    at.selectbox(key="assign_overdue_person_translation").set_value("ravi").run()
    assert table(at)["person"].tolist() == ["ravi"]
    assert at.button(key="assign_reassign_go").label == "Reassign these 1 task(s) of ravi to others"
    at.button(key="assign_reassign_go").click().run()
    assert not at.exception
    assert any("1 task(s) moved; 1 new task(s) given to others" in s.value for s in at.success)
    assert at.subheader[0].value == "1 overdue translation task(s)"


def test_overdue_tagging_link(world):
    at = assign_page(world, show="overdue", kind="tagging")
    assert at.radio(key="assign_list_kind").value == "tagging"
    assert table(at)[["person", "sentence"]].values.tolist() == [["meera", "restaurant/train/1"]]
    at.radio(key="assign_list_kind").set_value("translation").run()
    assert at.query_params["kind"] == "translation" and at.subheader[0].value == "2 overdue translation task(s)"


def test_without_a_list_in_the_address_the_page_is_the_assignment_form(world):
    at = assign_page(world)
    assert "Assign" in [b.label for b in at.button]
    assert [r.key for r in at.radio if r.key in ("assign_list_phase", "assign_list_kind")] == []
    assert not any("not yet assigned" in h.value or "overdue" in h.value for h in at.subheader)
