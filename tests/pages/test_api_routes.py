"""The JSON routes served beside the app: a look-up needs a live login, and answers without a page rerun."""

from __future__ import annotations

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from corpus import transliterate
from db.auth import end_session
from db.typing import record_accepted
from ui import api_routes as _api
from tests.support.translation_fixtures import add_user, project_id, token_for


@pytest.fixture
def client(app_engine, monkeypatch):
    _api._engine_for.cache_clear()

    def suggest(roman, k=5, *, lexicon_extra=None, prefer=()):
        return {"mera": ["मेरा", "मीरा", "मेर"]}.get(roman, [])[:k]

    monkeypatch.setattr(transliterate, "suggest", suggest, raising=False)
    with TestClient(Starlette(routes=_api.ROUTES)) as c:
        yield c
    _api._engine_for.cache_clear()


def test_suggest_answers_a_logged_in_translator(engine, client):
    token = token_for(engine, add_user(engine, "asha", "translator"))
    r = client.get("/api/suggest", params={"q": "mera", "k": 2}, headers={"X-Corpus-Session": token})
    assert r.status_code == 200
    assert r.json() == {"q": "mera", "candidates": ["मेरा", "मीरा"]}
    assert r.headers["cache-control"] == "no-store"


def test_suggest_puts_the_projects_learned_form_first(engine, client):
    token = token_for(engine, add_user(engine, "asha", "translator"))
    record_accepted(engine, project_id(engine), None, [("mera", "मेर")])
    r = client.get("/api/suggest", params={"q": "mera"}, headers={"X-Corpus-Session": token})
    assert r.json()["candidates"] == ["मेर", "मेरा", "मीरा"]


def test_suggest_accepts_the_session_cookie(engine, client):
    token = token_for(engine, add_user(engine, "asha", "translator"))
    client.cookies.set("corpus_session", token)
    assert client.get("/api/suggest", params={"q": "mera"}).status_code == 200


@pytest.mark.parametrize("headers", [{}, {"X-Corpus-Session": ""}, {"X-Corpus-Session": "not-a-token"}])
def test_suggest_refuses_a_caller_without_a_valid_session(engine, client, headers):
    add_user(engine, "asha", "translator")
    r = client.get("/api/suggest", params={"q": "mera"}, headers=headers)
    assert r.status_code == 401
    assert "candidates" not in r.json()


def test_suggest_refuses_a_logged_out_session(engine, client):
    token = token_for(engine, add_user(engine, "asha", "translator"))
    end_session(engine, token)
    assert client.get("/api/suggest", params={"q": "mera"}, headers={"X-Corpus-Session": token}).status_code == 401


def test_suggest_refuses_a_user_who_does_not_translate(engine, client):
    token = token_for(engine, add_user(engine, "tara", "annotator"))
    assert client.get("/api/suggest", params={"q": "mera"}, headers={"X-Corpus-Session": token}).status_code == 403


def test_suggest_refuses_an_admin_who_does_not_translate(engine, client):
    token = token_for(engine, add_user(engine, "root", "admin"))
    assert client.get("/api/suggest", params={"q": "mera"}, headers={"X-Corpus-Session": token}).status_code == 403


def test_suggest_serves_an_admin_who_also_translates(engine, client):
    token = token_for(engine, add_user(engine, "root", "admin", "translator"))
    assert client.get("/api/suggest", params={"q": "mera"}, headers={"X-Corpus-Session": token}).status_code == 200


def test_suggest_refuses_bad_parameters(engine, client):
    token = token_for(engine, add_user(engine, "asha", "translator"))
    h = {"X-Corpus-Session": token}
    assert client.get("/api/suggest", params={"q": "mera", "k": "x"}, headers=h).status_code == 400
    assert client.get("/api/suggest", params={"q": "m" * 201}, headers=h).status_code == 400
    assert client.get("/api/suggest", params={"q": "मेरा"}, headers=h).json()["candidates"] == []


def test_health_needs_no_login(client):
    assert client.get("/api/health").json() == {"status": "ok"}
