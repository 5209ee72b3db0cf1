"""User administration: service rules and the Users (admin), Assignments, Settings (admin) and Home pages
under AppTest."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.auth import LoginFailed, authenticate, resume_session, start_session
from db.models import AuditEvent, Project, TranslationAssignment, User
from db.users import list_users, reset_password, set_roles
from db.workflows import deactivate_user
from tests.support.app_pages import open_file, open_page
from tests.support.translation_fixtures import PASSWORD, add_sentence, add_user, assign, project_id, set_project


def page(engine, user_id, path):
    return open_page(engine, user_id, path)


@pytest.fixture
def team(app_engine):
    engine = app_engine
    return {
        "engine": engine,
        "lead": add_user(engine, "lead", "lead"),
        "admin": add_user(engine, "root", "admin"),
        "asha": add_user(engine, "asha", "translator"),
        "ravi": add_user(engine, "ravi", "translator"),
        "meera": add_user(engine, "meera", "translator"),
    }


# ----------------------------------------------------------------------------- service


def test_reset_password_ends_old_sessions(team):
    e = team["engine"]
    token = start_session(e, team["asha"])
    reset_password(e, team["asha"], "new-password-9", team["lead"])
    assert resume_session(e, token) is None
    assert authenticate(e, "asha", "new-password-9").username == "asha"
    with pytest.raises(ValueError, match="at least 10"):
        reset_password(e, team["asha"], "short", team["lead"])


def test_deactivate_ends_sessions_and_reassigns_open_work_only(team):
    e = team["engine"]
    set_project(e, translators_per_phase=2)
    s1 = add_sentence(e, "1", "The food was fine.", ["food"])
    s2 = add_sentence(e, "2", "The staff was rude.", ["staff"])
    assign(e, team["asha"], s1, "blind", "submitted")
    assign(e, team["asha"], s2, "blind", "draft")
    assign(e, team["ravi"], s2, "blind")
    token = start_session(e, team["asha"])
    summary = deactivate_user(e, team["asha"], team["lead"])
    assert resume_session(e, token) is None
    assert summary.translation.created == 1 and summary.tagging.created == 0
    with Session(e) as session:
        rows = {(r.user_id, r.sentence_id): r.status for r in session.scalars(select(TranslationAssignment))}
        assert not session.get(User, team["asha"]).active
        assert session.scalars(select(AuditEvent.action).where(AuditEvent.action == "deactivate-user")).one()
    assert rows[(team["asha"], s1)] == "submitted"
    assert rows[(team["asha"], s2)] == "reassigned"
    assert rows[(team["meera"], s2)] == "assigned"  # the free translator takes over


def test_lead_cannot_lock_themselves_out(team):
    e = team["engine"]
    with pytest.raises(ValueError, match="yourself"):
        deactivate_user(e, team["lead"], team["lead"])
    with pytest.raises(ValueError, match="own lead role"):
        set_roles(e, team["lead"], {"translator"}, team["lead"])
    set_roles(e, team["asha"], {"translator", "annotator"}, team["lead"])
    assert {u.username: u.roles for u in list_users(e)}["asha"] == ("annotator", "translator")


# ----------------------------------------------------------------------------- pages


def test_users_page_creates_a_user_who_can_log_in(team):
    at = page(team["engine"], team["admin"], "pages/users.py")
    form_inputs = at.text_input
    form_inputs[0].input("neha")
    form_inputs[1].input("Neha S.")
    form_inputs[2].input("long-enough-pw")
    at.button[0].click()  # "Create user" is the first button on the page
    at.run()
    assert not at.error, [x.value for x in at.error]
    assert authenticate(team["engine"], "neha", "long-enough-pw").roles == frozenset({"translator"})


def test_users_page_deactivates_and_reports_reassignment(team):
    e = team["engine"]
    s = add_sentence(e, "1", "The food was fine.", ["food"])
    assign(e, team["asha"], s, "blind")
    at = page(e, team["admin"], "pages/users.py")
    at.selectbox(key="users_pick").select(team["asha"]).run()
    at.button(key="users_deactivate").click().run()
    at.button(key="users_deactivate_yes").click().run()
    assert any("Deactivated asha" in x.value for x in at.success)
    with Session(e) as session:
        assert not session.get(User, team["asha"]).active


def test_translator_cannot_open_lead_pages(team):
    for path in ("pages/users.py", "pages/assign.py", "pages/settings.py"):
        at = open_file(team["engine"], team["asha"], path)
        assert any("do not have access" in x.value for x in at.error), path
        assert not at.dataframe


def test_a_lead_cannot_open_the_admins_pages(team):
    for path in ("pages/users.py", "pages/settings.py"):
        at = open_file(team["engine"], team["lead"], path)
        assert any("do not have access" in x.value for x in at.error), path
        assert not at.dataframe and not at.text_input


def test_assign_page_assigns_and_is_idempotent(team):
    e = team["engine"]
    for i in range(3):
        add_sentence(e, str(i), f"Sentence {i} about the food.", ["food"], ordinal=i)
    set_project(e, translators_per_phase=2)
    at = page(e, team["lead"], "pages/assign.py")
    at.button[0].click().run()
    assert any("12 new tasks for 3 sentences" in x.value for x in at.success), [x.value for x in at.success]
    at.button[0].click().run()
    assert any("0 new tasks" in x.value for x in at.success)
    with Session(e) as session:
        assert len(session.scalars(select(TranslationAssignment)).all()) == 12


def test_settings_page_saves_settings_and_glossary(team):
    e = team["engine"]
    at = page(e, team["admin"], "pages/settings.py")
    at.number_input[0].set_value(3)
    at.selectbox[1].select("hk")
    at.button[0].click().run()
    assert any("Saved" in x.value for x in at.success)
    with Session(e) as session:
        p = session.get(Project, project_id(e))
        assert (p.translators_per_phase, p.transliteration_scheme) == (3, "hk")
    english = next(t for t in at.text_input if t.label == "English term")
    english.input("keyboard")
    next(t for t in at.text_input if t.label == "Written as").input("कीबोर्ड")
    next(b for b in at.button if b.label == "Add or update term").click().run()
    assert not at.error, [x.value for x in at.error]
    assert "कीबोर्ड" in at.dataframe[0].value.to_string()


def test_home_shows_only_my_counts(team):
    e = team["engine"]
    s = add_sentence(e, "1", "The food was fine.", ["food"])
    assign(e, team["asha"], s, "blind")
    assign(e, team["asha"], s, "aware")
    assign(e, team["ravi"], s, "blind", "submitted")
    at = page(e, team["asha"], "pages/home.py")
    assert at.get("progress")[0].proto.text == "0 of 2 submitted"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["To do"] == "1" and metrics["Waiting (locked)"] == "1"
    assert PASSWORD  # fixtures' password is shared with the browser journey


def _pick(at: AppTest, user_id: int) -> AppTest:
    at.selectbox(key="users_pick").select(user_id).run()
    assert not at.exception, at.exception
    return at


def test_users_page_changes_a_users_roles(team):
    e = team["engine"]
    at = _pick(page(e, team["admin"], "pages/users.py"), team["asha"])
    roles = at.multiselect[1]  # the first is the new-user form's
    assert roles.value == ["translator"]
    roles.set_value(["translator", "annotator"])
    next(b for b in at.button if b.label == "Save roles").click().run()
    assert not at.error, [x.value for x in at.error]
    assert {u.username: u.roles for u in list_users(e)}["asha"] == ("annotator", "translator")
    assert "annotator, translator" in at.dataframe[0].value.to_string()
    with Session(e) as session:
        assert session.scalars(select(AuditEvent.detail).where(AuditEvent.action == "set-roles")).one() == {
            "user": "asha", "roles": ["annotator", "translator"]}


def test_users_page_refuses_to_remove_the_admins_own_admin_role(team):
    e = team["engine"]
    at = _pick(page(e, team["admin"], "pages/users.py"), team["admin"])
    at.multiselect[1].set_value(["lead"])
    next(b for b in at.button if b.label == "Save roles").click().run()
    assert any("own admin role" in x.value for x in at.error)
    assert {u.username: u.roles for u in list_users(e)}["root"] == ("admin",)


def test_users_page_resets_a_password_and_logs_the_user_out(team):
    e = team["engine"]
    token = start_session(e, team["asha"])
    at = _pick(page(e, team["admin"], "pages/users.py"), team["asha"])
    new_password = next(t for t in at.text_input if t.label == "New password")
    new_password.input("short")
    next(b for b in at.button if b.label == "Reset password").click().run()
    assert any("at least 10" in x.value for x in at.error)
    assert resume_session(e, token) is not None  # refused: nothing changed
    next(t for t in at.text_input if t.label == "New password").input("brand-new-pw-7")
    next(b for b in at.button if b.label == "Reset password").click().run()
    assert any("Password reset; asha's open sessions are logged out" in x.value for x in at.success)
    assert resume_session(e, token) is None
    assert authenticate(e, "asha", "brand-new-pw-7").username == "asha"
    with pytest.raises(LoginFailed):
        authenticate(e, "asha", PASSWORD)
