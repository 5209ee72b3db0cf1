"""Backups and exports are fetched through /download/..., which checks the session and the role when the file
is fetched (issue 31, N7): no cookie, a logged-out or another person's session, or a role lost since get
nothing; the admin's (or lead's) live session gets the bytes, never cached."""

from __future__ import annotations

import io
import zipfile

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from db.auth import end_session, start_session
from db.users import create_user
from tests.support.app_pages import open_file
from tests.support.export_factory import Corpus, build_sample
from ui import api_routes as _api
from ui import downloads
from ui.auth_routes import SESSION_COOKIE


@pytest.fixture
def route(app_engine):
    _api._engine_for.cache_clear()
    downloads._offers.clear()
    with TestClient(Starlette(routes=downloads.DOWNLOAD_ROUTES)) as client:
        yield client
    downloads._offers.clear()
    _api._engine_for.cache_clear()


def _fetch(route, path: str, token: str | None):
    route.cookies.clear()
    if token:
        route.cookies.set(SESSION_COOKIE, token)
    return route.get(path)


@pytest.fixture
def admin_backup(app_engine, route):
    """The Backup page as its admin sees it after "Prepare a backup": (the link's path, the bytes, the token)."""
    admin = create_user(app_engine, "root", {"admin"}, "root-password-1")
    create_user(app_engine, "asha", {"translator"}, "asha-password-1")  # a password hash in the backup
    at = open_file(app_engine, admin, "pages/backup.py")
    at.button(key="backup_make").click()
    at.run()
    assert not at.exception, at.exception
    (link,) = at.get("link_button")
    return link.proto.url, at.session_state["backup_zip"], at.session_state["session_token"], admin


def test_a_backup_downloads_with_the_admins_live_session_and_is_never_cached(route, admin_backup):
    path, data, token, _ = admin_backup
    response = _fetch(route, path, token)
    assert response.status_code == 200 and response.content == data
    assert response.headers["cache-control"] == "no-store"
    assert response.headers["content-disposition"].startswith("attachment; filename*=UTF-8''corpus-backup-")
    with zipfile.ZipFile(io.BytesIO(response.content)) as zf:
        assert b"$2" in zf.read("users.jsonl")  # it does hold password hashes: hence the checks


def test_a_backup_link_without_a_cookie_is_refused(route, admin_backup):
    path, data, _, _ = admin_backup
    for token in (None, "not-a-session"):
        response = _fetch(route, path, token)
        assert response.status_code == 401 and data not in response.content
        assert response.headers["cache-control"] == "no-store"


def test_a_backup_link_after_logout_is_refused(route, admin_backup, app_engine):
    path, data, token, _ = admin_backup
    end_session(app_engine, token)
    response = _fetch(route, path, token)
    assert response.status_code == 401 and data not in response.content


def test_a_backup_link_opened_by_another_admin_is_refused(route, admin_backup, app_engine):
    path, data, _, _ = admin_backup
    other = start_session(app_engine, create_user(app_engine, "root2", {"admin"}, "root2-password-1"))
    response = _fetch(route, path, other)
    assert response.status_code == 403 and data not in response.content


def test_an_offer_is_refused_once_its_owner_lost_the_role(route, app_engine):
    lead = create_user(app_engine, "lena", {"lead"}, "lena-password-1")
    path = downloads.offer(b"secret", "backup.zip", "application/zip", lead, ("admin",))
    response = _fetch(route, path, start_session(app_engine, lead))
    assert response.status_code == 403 and b"secret" not in response.content


def test_an_unknown_or_expired_download_says_so_only_to_a_live_session(route, app_engine, monkeypatch):
    lead = create_user(app_engine, "lena", {"lead"}, "lena-password-1")
    token = start_session(app_engine, lead)
    path = downloads.offer(b"labels", "x.zip", "application/zip", lead, ("lead",))
    assert _fetch(route, "/download/nothing-here/x.zip", None).status_code == 401
    assert _fetch(route, "/download/nothing-here/x.zip", token).status_code == 404
    monkeypatch.setattr(downloads, "OFFER_SECONDS", -1)
    assert _fetch(route, path, token).status_code == 404


def test_the_oldest_offers_go_first_beyond_the_memory_bound(route, monkeypatch):
    monkeypatch.setattr(downloads, "MAX_BYTES", 10)
    first = downloads.offer(b"123456", "a", "text/plain", 1, ("lead",))
    second = downloads.offer(b"789012", "b", "text/plain", 1, ("lead",))
    assert first.split("/")[2] not in downloads._offers and second.split("/")[2] in downloads._offers


def test_an_export_with_test_labels_downloads_only_with_the_leads_live_session(route, app_engine):
    build_sample(app_engine)
    from sqlalchemy.orm import Session

    with Session(app_engine) as session:
        lead = Corpus(session).user("lena", "lead").id
        session.commit()
    at = open_file(app_engine, lead, "pages/export.py")
    at.button(key="export_prepare").click()
    at.run()
    assert not at.exception, at.exception
    links = {link.proto.label: link.proto.url for link in at.get("link_button")}
    path = links["Download everything (zip)"]
    token = at.session_state["session_token"]
    response = _fetch(route, path, token)
    assert response.status_code == 200
    with zipfile.ZipFile(io.BytesIO(response.content)) as zf:
        assert any("test" in name for name in zf.namelist())  # the test split's labels are in it
    assert _fetch(route, path, None).status_code == 401
    end_session(app_engine, token)
    assert _fetch(route, path, token).status_code == 401


def test_a_rerun_of_the_page_reuses_its_offer(app_engine, route):
    admin = create_user(app_engine, "root", {"admin"}, "root-password-1")
    at = open_file(app_engine, admin, "pages/backup.py")
    at.button(key="backup_make").click()
    at.run()
    first = at.get("link_button")[0].proto.url
    at.run()
    assert at.get("link_button")[0].proto.url == first and len(downloads._offers) == 1
