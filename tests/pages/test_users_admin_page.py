"""The admin's Users page under AppTest: a refused form keeps what was typed, every change is confirmed
after its rerun, and deactivating asks first and says how many open tasks will move."""

from __future__ import annotations

import pytest
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.auth import authenticate
from db.models import User
from db.assignment import assign_annotators
from tests.support.app_pages import open_page
from tests.support.tagging_fixtures import add_translation
from tests.support.translation_fixtures import (
    add_sentence,
    add_user,
    assign,
    project_id,
)


@pytest.fixture
def team(app_engine):
    engine = app_engine
    return {
        "engine": engine,
        "admin": add_user(engine, "root", "admin"),
        "asha": add_user(engine, "asha", "translator", "annotator"),
        "ravi": add_user(engine, "ravi", "translator"),
        "meera": add_user(engine, "meera", "annotator"),
    }


def users_page(team) -> AppTest:
    return open_page(team["engine"], team["admin"], "pages/users.py")


def field(at: AppTest, label_start: str):
    return next(t for t in at.text_input if t.label.startswith(label_start))


def messages(at: AppTest) -> list[str]:
    return [m.value for kind in ("success", "error", "warning") for m in getattr(at, kind)]


def test_a_refused_new_user_keeps_what_was_typed_and_a_created_one_is_confirmed(team):
    at = users_page(team)
    field(at, "Username").input("neha")
    field(at, "Display name").input("Neha S.")
    at.multiselect(key="new_roles").set_value(["translator", "annotator"])
    field(at, "Password").input("short")
    next(b for b in at.button if b.label == "Create user").click().run()
    assert any("at least 10" in m for m in messages(at))
    assert (field(at, "Username").value, field(at, "Display name").value, field(at, "Password").value) == (
        "neha", "Neha S.", "short")
    assert at.multiselect(key="new_roles").value == ["translator", "annotator"]
    field(at, "Password").input("long-enough-pw")
    next(b for b in at.button if b.label == "Create user").click().run()
    assert "Created neha." in [s.value for s in at.success]
    assert field(at, "Username").value == "" and field(at, "Password").value == ""  # ready for the next one
    assert authenticate(team["engine"], "neha", "long-enough-pw").roles == frozenset({"translator", "annotator"})
    assert "neha" in at.dataframe[0].value["username"].tolist()
    at.run()
    assert "Created neha." not in [s.value for s in at.success]  # said once


def test_role_changes_and_reactivation_are_confirmed(team):
    at = users_page(team)
    at.selectbox(key="users_pick").select(team["ravi"]).run()
    at.multiselect(key=f"users_roles_{team['ravi']}").set_value(["translator", "lead"])
    next(b for b in at.button if b.label == "Save roles").click().run()
    assert "Roles of ravi saved; their open sessions are logged out." in messages(at)


def test_deactivating_asks_first_and_says_how_many_open_tasks_move(team):
    e = team["engine"]
    s1 = add_sentence(e, "1", "The food was fine.", ["food"], ordinal=1)
    s2 = add_sentence(e, "2", "The staff was rude.", ["staff"], ordinal=2)
    assign(e, team["asha"], s1, "blind")
    assign(e, team["asha"], s2, "blind", "draft")
    assign(e, team["asha"], s2, "aware", "submitted")  # handed in: stays hers
    s3 = add_sentence(e, "3", "The food was fine too.", ["food"], ordinal=3)
    add_translation(e, s3, "aware", team["ravi"], "खाना भी ठीक था।")
    assign_annotators(e, project_id(e), per_item=2)  # asha and meera tag ravi's translation
    at = users_page(team)
    at.selectbox(key="users_pick").select(team["asha"]).run()
    at.button(key="users_deactivate").click().run()
    (warning,) = at.warning
    assert "2 open translation tasks and 1 open tagging task move to other people" in warning.value
    with Session(e) as s:
        assert s.get(User, team["asha"]).active  # nothing done yet
    at.button(key="users_deactivate_cancel").click().run()
    assert not at.warning and at.button(key="users_deactivate")
    at.button(key="users_deactivate").click().run()
    at.button(key="users_deactivate_yes").click().run()
    assert any(m.startswith("Deactivated asha. Reassigned work:") for m in messages(at))
    with Session(e) as s:
        assert not s.get(User, team["asha"]).active
    assert at.button(key="users_reactivate")
