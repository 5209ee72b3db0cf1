"""A tab left open after its session ended elsewhere (issue 31, N2): its clicks write nothing and the page
says the session ended. The Users tab of a deactivated admin, the Assignments tab of a lead logged out
elsewhere, the Reopen button of a demoted annotator (AppTest through the app's router)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from streamlit.testing.v1 import AppTest

from db.auth import end_session
from db.models import Annotation, TranslationAssignment, User
from db.assignment import assign_annotators
from db.users import set_roles
from db.workflows import deactivate_user
from tests.support.app_pages import open_page
from tests.support.assign_fixtures import build
from tests.support.login_tokens import login_token
from tests.support.span_editor_driver import commit
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id


def says_session_ended(at: AppTest) -> bool:
    return any("session ended" in w.value.lower() for w in at.warning)


def test_a_deactivated_admins_users_tab_creates_no_account_and_says_the_session_ended(app_engine):
    engine = app_engine
    admin = add_user(engine, "root", "admin")
    other = add_user(engine, "second", "admin")
    at = open_page(engine, admin, "pages/users.py")
    at.text_input(key="new_username").input("mallory")
    at.text_input(key="new_password").input("known-password-1")
    at.multiselect(key="new_roles").set_value(["lead"])
    deactivate_user(engine, admin, other)
    at.button[0].click()  # "Create user" is the first button on the page
    at.run()
    assert not at.exception, at.exception
    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(User).where(User.username == "mallory")) == 0
    assert says_session_ended(at), [w.value for w in at.warning]


def test_a_lead_logged_out_elsewhere_assigns_nothing_from_an_open_tab_and_is_told(app_engine):
    world = build(app_engine)
    engine = app_engine
    token = login_token(engine, world["lead"])
    at = open_page(engine, world["lead"], "pages/assign.py", token=token,
                   query={"phase": "aware", "show": "unassigned"})
    with Session(engine) as session:
        before = session.scalar(select(func.count()).select_from(TranslationAssignment))
    end_session(engine, token)  # "log out" in another tab
    at.button(key="assign_list_go").click().run()
    assert not at.exception, at.exception
    with Session(engine) as session:
        assert session.scalar(select(func.count()).select_from(TranslationAssignment)) == before
    assert says_session_ended(at), [w.value for w in at.warning]


@pytest.mark.parametrize("ending", ["demoted", "deactivated"])
def test_an_annotators_reopen_after_her_session_ended_changes_nothing_and_says_so(app_engine, ending):
    engine = app_engine
    admin = add_user(engine, "root", "admin")
    asha = add_user(engine, "asha", "translator")
    meera = add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "s1", "The food was good.", ["food"])
    add_translation(engine, s, "aware", asha, "खाना अच्छा था।")
    assign_annotators(engine, project_id(engine), per_item=1)
    at = open_page(engine, meera, "pages/tag.py")
    tid = int(at.query_params["item"])
    commit(at, "tag_editor", "submit", spans=[(0, 1)])
    at.selectbox(key="tag_filter").set_value("All").run()
    at.selectbox(key="tag_item").set_value(tid).run()
    if ending == "demoted":
        set_roles(engine, meera, {"translator"}, admin)
    else:
        deactivate_user(engine, meera, admin)
    at.button(key=f"tag_reopen_{tid}").click().run()
    assert not at.exception, at.exception
    with Session(engine) as session:
        annotation = session.scalars(select(Annotation).where(Annotation.annotator_id == meera)).one()
    assert annotation.status == "submitted"
    assert says_session_ended(at), [w.value for w in at.warning]
