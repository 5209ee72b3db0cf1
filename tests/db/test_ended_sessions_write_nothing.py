"""An ended session writes nothing, whatever the service (issue 31, N2): after deactivation, a logout
elsewhere or a demotion, an open tab's account change, assignment or reopening is refused inside the
write's own transaction and leaves every row as it was. On SQLite and PostgreSQL.

The page's session token reaches the services as it does in the app: through the reader ``ui.common``
registers with ``db.access.read_session_tokens_from`` (here, a stand-in that answers this test's token)."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import db.access
from db.assignment import assign_annotators, assign_translations, reassign_tasks
from db.access import SESSION_ENDED, SessionEnded, read_session_tokens_from
from db.auth import end_session, start_session
from db.models import Annotation, AuditEvent, TranslationAssignment, User
from db.workflows import deactivate_user, open_item, reopen_annotation, save_annotation
from db.users import create_account, reset_password, set_roles
from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id

ENDINGS = ("deactivated", "logged out elsewhere", "demoted")


@pytest.fixture
def page_token():
    """Run the services as inside a page run whose browser holds the token set here."""
    previous = db.access._browser_token
    holder: dict[str, str | None] = {"token": None}
    read_session_tokens_from(lambda: holder["token"])  # None: outside a page run
    yield holder
    read_session_tokens_from(previous)


def _end(engine, ending: str, user_id: int, token: str, by: int, keep_role: str) -> None:
    if ending == "deactivated":
        deactivate_user(engine, user_id, by)
    elif ending == "logged out elsewhere":
        end_session(engine, token)
    else:
        set_roles(engine, user_id, {keep_role}, by)


def _count(engine, model, *where) -> int:
    with Session(engine) as session:
        return session.scalar(select(func.count()).select_from(model).where(*where)) or 0


@pytest.mark.parametrize("ending", ENDINGS)
def test_an_ended_admin_session_creates_no_account_and_resets_no_password(any_engine, page_token, ending):
    engine = any_engine
    admin = add_user(engine, "root", "admin")
    other = add_user(engine, "second", "admin")
    lena = add_user(engine, "lena", "lead")
    token = start_session(engine, admin)
    page_token["token"] = token
    create_account(engine, "neha", {"translator"}, "long-enough-pw", None, actor_id=admin)  # live: it works
    page_token["token"] = None  # the other admin acts outside this page
    _end(engine, ending, admin, token, other, "translator")
    page_token["token"] = token
    audit_before = _count(engine, AuditEvent)
    with Session(engine) as session:
        lena_hash = session.get(User, lena).password_hash
    with pytest.raises(SessionEnded, match="session ended"):
        create_account(engine, "mallory", {"lead"}, "known-password-1", None, actor_id=admin)
    with pytest.raises(SessionEnded):
        reset_password(engine, lena, "known-password-2", admin)
    with pytest.raises(SessionEnded):
        set_roles(engine, lena, {"lead", "admin"}, admin)
    assert _count(engine, User, User.username == "mallory") == 0
    with Session(engine) as session:
        assert sorted(session.get(User, lena).role_names) == ["lead"]
        assert session.get(User, lena).password_hash == lena_hash
    assert _count(engine, AuditEvent) == audit_before


def test_a_demoted_writer_is_refused_by_role_even_without_a_page(any_engine):
    """Outside a page run (no token) the role is still checked: a lead made translator assigns nothing."""
    engine = any_engine
    admin = add_user(engine, "root", "admin")
    lena = add_user(engine, "lena", "lead")
    s = add_sentence(engine, "1", "The food was good.", ["food"])
    add_user(engine, "asha", "translator")
    add_user(engine, "ravi", "translator")
    set_roles(engine, lena, {"translator"}, admin)
    with pytest.raises(SessionEnded, match="only an active lead"):
        assign_translations(engine, project_id(engine), [s], lena, per_phase=1)
    assert _count(engine, TranslationAssignment) == 0


@pytest.mark.parametrize("ending", ENDINGS)
def test_an_ended_lead_session_assigns_nothing(any_engine, page_token, ending):
    engine = any_engine
    admin = add_user(engine, "root", "admin", "lead")
    lena = add_user(engine, "lena", "lead")
    for name in ("asha", "ravi", "kiran"):
        add_user(engine, name, "translator")
    sentences = [add_sentence(engine, str(i), f"The food {i} was good.", ["food"], ordinal=i) for i in range(4)]
    token = start_session(engine, lena)
    _end(engine, ending, lena, token, admin, "translator")
    page_token["token"] = token
    with pytest.raises(SessionEnded, match="session ended"):
        assign_translations(engine, project_id(engine), sentences, lena, per_phase=1)
    assert _count(engine, TranslationAssignment) == 0
    page_token["token"] = start_session(engine, admin)  # a live lead's tab still assigns
    assign_translations(engine, project_id(engine), sentences, admin, per_phase=1)
    made = _count(engine, TranslationAssignment)
    assert made > 0
    page_token["token"] = token
    with Session(engine) as session:
        ids = list(session.scalars(select(TranslationAssignment.id)))
    with pytest.raises(SessionEnded):
        reassign_tasks(engine, "translation", ids, lena)
    assert _count(engine, TranslationAssignment) == made


def test_a_page_run_that_names_no_writer_writes_nothing(any_engine, page_token):
    engine = any_engine
    add_user(engine, "asha", "translator")
    s = add_sentence(engine, "1", "The food was good.", ["food"])
    page_token["token"] = "no-such-token"
    with pytest.raises(SessionEnded):
        assign_translations(engine, project_id(engine), [s], None, per_phase=1)
    assert _count(engine, TranslationAssignment) == 0


@pytest.mark.parametrize("ending", ENDINGS)
def test_an_ended_annotator_session_reopens_nothing(any_engine, page_token, ending):
    engine = any_engine
    admin = add_user(engine, "root", "admin")
    asha = add_user(engine, "asha", "translator")
    meera = add_user(engine, "meera", "annotator")
    s = add_sentence(engine, "1", "The food was good.", ["food"])
    t = add_translation(engine, s, "aware", asha, "खाना अच्छा था।")
    assign_annotators(engine, project_id(engine), per_item=1)
    view = open_item(engine, meera, t)
    submitted = save_annotation(engine, meera, view.item_id, ["B", "O", "O", "O"], False, None, "submit")
    token = start_session(engine, meera)
    _end(engine, ending, meera, token, admin, "translator")
    page_token["token"] = token
    with pytest.raises(SessionEnded) as refused:
        reopen_annotation(engine, meera, view.item_id, submitted.version)
    assert str(refused.value) == SESSION_ENDED
    with Session(engine) as session:
        row = session.scalars(select(Annotation).where(Annotation.item_id == view.item_id)).one()
        assert (row.status, row.version) == ("submitted", submitted.version)


@pytest.mark.parametrize("ending", ["deactivated", "logged out elsewhere"])
def test_an_ended_admin_session_restores_nothing_and_a_live_one_restores(any_engine, page_token, tmp_path, ending,
                                                                          migrated_sqlite):
    from db.backup import RestoreRefused, holdings, make_backup, restore_upload
    from db.engine import make_engine
    from tests.support.databases import copy_of

    source = make_engine(copy_of(migrated_sqlite, tmp_path / "source.db"))
    add_user(source, "lena", "lead")
    add_sentence(source, "1", "The food was good.", ["food"])
    archive = make_backup(source)
    engine = any_engine
    admin = add_user(engine, "root", "admin")
    other = add_user(engine, "second", "admin")
    token = start_session(engine, admin)
    _end(engine, ending, admin, token, other, "translator")
    page_token["token"] = token
    before = holdings(engine)
    with pytest.raises(RestoreRefused, match="session ended"):
        restore_upload(engine, archive, "a.zip", actor_id=admin, replace=True)
    assert holdings(engine) == before
    page_token["token"] = start_session(engine, other)  # the other admin's live tab restores
    restore_upload(engine, archive, "a.zip", actor_id=other, replace=True)
    with Session(engine) as session:
        assert sorted(session.scalars(select(User.username))) == ["lena"]


def test_a_translator_logged_out_elsewhere_skips_nothing_and_teaches_no_typed_form(any_engine, page_token):
    from db.models import TypedForm
    from db.translation import skip_task
    from db.typing import record_accepted
    from tests.support.translation_fixtures import assign

    engine = any_engine
    asha = add_user(engine, "asha", "translator")
    s = add_sentence(engine, "1", "The food was good.", ["food"])
    task = assign(engine, asha, s, "blind")
    token = start_session(engine, asha)
    end_session(engine, token)
    page_token["token"] = token
    with pytest.raises(SessionEnded):
        skip_task(engine, asha, task)
    assert record_accepted(engine, project_id(engine), asha, [("khana", "खाना")]) == 0
    with Session(engine) as session:
        assert session.get(TranslationAssignment, task).status == "assigned"
        assert session.scalar(select(func.count()).select_from(TypedForm)) == 0
    page_token["token"] = start_session(engine, asha)
    assert record_accepted(engine, project_id(engine), asha, [("khana", "खाना")]) == 1
