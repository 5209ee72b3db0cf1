"""Only an admin grants or removes the admin role or changes an admin's account, whatever page calls the
service (a lead who could reset an admin's password could log in as one)."""

from __future__ import annotations

import pytest

from db.access import SessionEnded
from db.auth import authenticate
from db.users import AdminOnly, create_account, list_users, open_work, reactivate_user, reset_password, set_roles
from db.workflows import deactivate_user
from tests.support.translation_fixtures import add_sentence, add_user, assign


@pytest.fixture
def people(engine):
    return {
        "engine": engine,
        "admin": add_user(engine, "root", "admin"),
        "lead": add_user(engine, "lena", "lead"),
        "asha": add_user(engine, "asha", "translator"),
    }


def roles_of(engine, username: str) -> tuple[str, ...]:
    return {u.username: u.roles for u in list_users(engine)}[username]


def test_a_lead_cannot_create_an_admin_or_grant_the_admin_role(people):
    e, lead = people["engine"], people["lead"]
    with pytest.raises(AdminOnly, match="only an admin can grant"):
        create_account(e, "mallory", {"lead", "admin"}, "long-enough-pw", None, actor_id=lead)
    assert "mallory" not in {u.username for u in list_users(e)}
    with pytest.raises(AdminOnly, match="only an admin can grant"):
        set_roles(e, people["asha"], {"translator", "admin"}, lead)
    with pytest.raises(AdminOnly, match="only an admin can grant"):
        set_roles(e, lead, {"lead", "admin"}, lead)
    assert roles_of(e, "asha") == ("translator",) and roles_of(e, "lena") == ("lead",)


def test_a_lead_cannot_change_an_admins_account(people):
    e, lead, admin = people["engine"], people["lead"], people["admin"]
    with pytest.raises(AdminOnly, match="grant or remove the admin role"):
        set_roles(e, admin, {"lead"}, lead)
    with pytest.raises(AdminOnly, match="change an admin's account"):
        set_roles(e, admin, {"admin", "translator"}, lead)
    with pytest.raises(AdminOnly, match="change an admin's account"):
        reset_password(e, admin, "taken-over-pw-1", lead)
    with pytest.raises(AdminOnly, match="change an admin's account"):
        deactivate_user(e, admin, lead)
    assert roles_of(e, "root") == ("admin",)
    assert {u.username: u.active for u in list_users(e)}["root"]


def test_a_lead_still_manages_people_who_are_not_admins(people):
    e = people["engine"]
    create_account(e, "neha", {"translator"}, "long-enough-pw", "Neha", actor_id=people["lead"])
    assert authenticate(e, "neha", "long-enough-pw").roles == frozenset({"translator"})


def test_an_admin_grants_and_removes_the_admin_role_but_keeps_their_own(people):
    e, admin = people["engine"], people["admin"]
    create_account(e, "second", {"admin"}, "long-enough-pw", None, actor_id=admin)
    set_roles(e, people["lead"], {"lead", "admin"}, admin)
    assert roles_of(e, "lena") == ("admin", "lead")
    set_roles(e, people["lead"], {"lead"}, admin)
    assert roles_of(e, "lena") == ("lead",)
    with pytest.raises(ValueError, match="own admin role"):
        set_roles(e, admin, {"lead"}, admin)
    deactivate_user(e, people["lead"], admin)
    reactivate_user(e, people["lead"], admin)


def test_a_deactivated_admin_grants_nothing(people):
    e, admin = people["engine"], people["admin"]
    other = add_user(e, "other", "admin")
    deactivate_user(e, admin, other)
    with pytest.raises(SessionEnded):  # the one writer check refuses before the admin-only rule is asked
        set_roles(e, people["asha"], {"admin"}, admin)
    assert "admin" not in {u.username: u.roles for u in list_users(e)}["asha"]


def test_open_work_counts_what_deactivating_moves(people):
    e = people["engine"]
    ravi = add_user(e, "ravi", "translator")
    sentences = [add_sentence(e, str(i), f"The food {i} was fine.", ["food"], ordinal=i) for i in range(4)]
    for sentence, status in zip(sentences, ("assigned", "draft", "skipped", "submitted")):
        assign(e, people["asha"], sentence, "blind", status)
    assert open_work(e, people["asha"]).translation == 3  # the submitted task stays hers
    summary = deactivate_user(e, people["asha"], people["admin"])
    assert summary.translation.sentences == 3 and open_work(e, people["asha"]).translation == 0
    assert open_work(e, ravi).translation == 3  # the free translator took them
