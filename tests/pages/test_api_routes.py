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


# --- one user cannot slow another (issue 31, N4) -----------------------------------------------------

@pytest.fixture
def held_lookups(client, monkeypatch):
    """Look-ups for "slow" hold their worker until released; any other answers at once."""
    import threading

    release, started = threading.Event(), threading.Semaphore(0)
    real = _api._suggest

    def suggest(token, q, *rest):
        if q == "slow":
            started.release()
            release.wait(10)
        return real(token, q, *rest)

    monkeypatch.setattr(_api, "_suggest", suggest)
    yield release, started
    release.set()


def _in_thread(fn):
    import threading

    box = {}
    thread = threading.Thread(target=lambda: box.setdefault("r", fn()))
    thread.start()
    return thread, box


def _wait_until(condition, seconds: float = 5.0) -> None:
    import time

    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_session_runs_one_look_up_at_a_time_and_gets_429_beyond_its_queue(engine, client, held_lookups):
    release, started = held_lookups
    token = token_for(engine, add_user(engine, "asha", "translator"))
    h = {"X-Corpus-Session": token}
    first, first_box = _in_thread(lambda: client.get("/api/suggest", params={"q": "slow"}, headers=h))
    assert started.acquire(timeout=5)  # running
    waiting = [_in_thread(lambda: client.get("/api/suggest", params={"q": "slow"}, headers=h))
               for _ in range(_api.PER_SESSION - 1)]
    _wait_until(lambda: _api._ration.admitted.get(token) == _api.PER_SESSION)
    assert not started.acquire(timeout=0.3)  # the others wait their turn: one look-up of a session runs
    refused = client.get("/api/suggest", params={"q": "mera"}, headers=h)
    assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
    assert "candidates" not in refused.json()
    release.set()
    for thread, _ in [(first, first_box), *waiting]:
        thread.join(10)
    assert all(box["r"].status_code == 200 for _, box in [(first, first_box), *waiting])
    assert _api._ration.admitted == {} and _api._ration.total == 0  # nothing left behind
    assert client.get("/api/suggest", params={"q": "mera"}, headers=h).status_code == 200


def test_another_session_is_served_while_one_floods(engine, client, held_lookups):
    release, started = held_lookups
    flooder = {"X-Corpus-Session": token_for(engine, add_user(engine, "asha", "translator"))}
    other = {"X-Corpus-Session": token_for(engine, add_user(engine, "ravi", "translator"))}
    held, _ = _in_thread(lambda: client.get("/api/suggest", params={"q": "slow"}, headers=flooder))
    assert started.acquire(timeout=5)
    flood = [_in_thread(lambda: client.get("/api/suggest", params={"q": "mera"}, headers=flooder))
             for _ in range(10)]
    answered = len(flood) - (_api.PER_SESSION - 1)  # the rest wait their turn
    _wait_until(lambda: sum("r" in box for _, box in flood) == answered)
    refused = [box for _, box in flood if "r" in box]
    assert len(refused) == answered and all(box["r"].status_code == 429 for box in refused)
    answer = client.get("/api/suggest", params={"q": "mera"}, headers=other)  # while the flooder's runs
    assert answer.status_code == 200 and answer.json()["candidates"] == ["मेरा", "मीरा", "मेर"]
    release.set()
    held.join(10)
    for thread, _ in flood:
        thread.join(10)


def test_a_caller_without_a_session_is_refused_before_any_worker_is_used(client, monkeypatch):
    def never(*args):
        raise AssertionError("a worker ran for a caller without a session")

    monkeypatch.setattr(_api, "_suggest", never)
    assert client.get("/api/suggest", params={"q": "mera"}).status_code == 401


def test_the_server_refuses_look_ups_beyond_its_queue(engine, client, monkeypatch):
    monkeypatch.setattr(_api._ration, "total", _api.MAX_SUGGEST_QUEUE)
    token = token_for(engine, add_user(engine, "asha", "translator"))
    r = client.get("/api/suggest", params={"q": "mera"}, headers={"X-Corpus-Session": token})
    assert r.status_code == 503 and r.headers["retry-after"] == "1"


def test_a_session_asking_faster_than_typing_gets_429_and_the_next_second_is_served(engine, client, monkeypatch):
    now = [1000.0]  # the bucket's clock stands still unless the test moves it: a slow machine refills nothing
    monkeypatch.setattr(_api, "_ration", _api.SuggestRation(rate=3, clock=lambda: now[0]))
    monkeypatch.setattr(_api, "REFUSAL_DELAY_S", 0)
    h = {"X-Corpus-Session": token_for(engine, add_user(engine, "asha", "translator"))}
    other = {"X-Corpus-Session": token_for(engine, add_user(engine, "ravi", "translator"))}
    statuses = [client.get("/api/suggest", params={"q": "mera"}, headers=h).status_code for _ in range(6)]
    assert statuses == [200, 200, 200, 429, 429, 429]
    assert client.get("/api/suggest", params={"q": "mera"}, headers=other).status_code == 200  # its own bucket
    now[0] += 0.2  # 0.6 of a look-up refilled: still refused
    assert client.get("/api/suggest", params={"q": "mera"}, headers=h).status_code == 429
    now[0] += 0.3  # 1.5 look-ups' worth refilled since the refusals
    assert client.get("/api/suggest", params={"q": "mera"}, headers=h).status_code == 200
