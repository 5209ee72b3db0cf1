"""Only the app's own origin reaches its websocket and routes (issue 31, N1, N11): another port of the
same host, another site and a client that says nothing are refused before anything is read; a session
cookie planted beside the app's own logs nobody in; the login code works only in the browser that asked
for it, and only for the app's own navigation."""

from __future__ import annotations

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import HTMLResponse, JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from db.auth import issue_login_code, resume_session
from db.models import User
from ui import auth_routes
from ui.auth_routes import (
    AUTH_ROUTES,
    NONCE_COOKIE,
    SESSION_COOKIE,
    LoginNonce,
    OriginGuard,
    SecurityHeaders,
    bind_login_code,
    configured_origin,
    cookie_name,
    foreign_request,
    normalize_origin,
    unbind_login_code,
    without_shadowed_cookies,
)

APP = "http://testserver"


async def _stream(websocket):
    await websocket.accept()
    await websocket.send_text(f"hello {websocket.cookies.get(SESSION_COOKIE)}")
    await websocket.close()


async def _page(request):
    return HTMLResponse("<html>app</html>")


async def _whoami(request):
    return JSONResponse({"session": request.cookies.get(SESSION_COOKIE)})


def _app(environ=None):
    routes = [Route("/", _page), Route("/api/whoami", _whoami), WebSocketRoute("/_stcore/stream", _stream),
              *AUTH_ROUTES]
    return Starlette(routes=routes, middleware=[Middleware(OriginGuard, environ=environ or {}),
                                                Middleware(LoginNonce), Middleware(SecurityHeaders)])


@pytest.fixture
def client():
    return TestClient(_app(), base_url=APP)


def _uid(engine, username: str) -> int:
    with Session(engine) as s:
        return s.scalars(select(User.id).where(User.username == username)).one()


# --- the websocket ---------------------------------------------------------------------------------

def test_the_websocket_opens_for_the_apps_own_origin(client):
    client.cookies.set(SESSION_COOKIE, "token-1")
    with client.websocket_connect("/_stcore/stream", headers={"Origin": APP}) as ws:
        assert ws.receive_text() == "hello token-1"


@pytest.mark.parametrize("origin", [
    "http://testserver:8722",  # another port of the same host
    "https://testserver",  # another scheme
    "http://localhost",  # another name of this machine
    "https://evil.example",
    "null",
])
def test_a_websocket_from_another_origin_is_refused_before_it_opens(client, origin):
    client.cookies.set(SESSION_COOKIE, "token-1")
    with pytest.raises(WebSocketDisconnect) as refused:
        with client.websocket_connect("/_stcore/stream", headers={"Origin": origin}) as ws:
            ws.receive_text()
    assert refused.value.code == 1008


def test_a_websocket_without_an_origin_is_refused(client):
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect("/_stcore/stream") as ws:
            ws.receive_text()


def test_behind_a_proxy_only_the_configured_public_origin_opens_the_websocket():
    client = TestClient(_app({"CORPUS_PUBLIC_ORIGIN": "https://corpus.example.org"}), base_url=APP)
    with client.websocket_connect("/_stcore/stream", headers={"Origin": "https://corpus.example.org"}) as ws:
        assert ws.receive_text().startswith("hello")
    with pytest.raises(WebSocketDisconnect):  # the server's own address is not the public origin
        with client.websocket_connect("/_stcore/stream", headers={"Origin": APP}) as ws:
            ws.receive_text()


# --- the routes --------------------------------------------------------------------------------------

@pytest.mark.parametrize("headers", [
    {"Sec-Fetch-Site": "same-site"},  # what a page on another port of this host sends
    {"Sec-Fetch-Site": "cross-site"},
    {"Origin": "http://testserver:8722"},
    {"Origin": "http://testserver:8722", "Sec-Fetch-Site": "same-site"},
    {"Origin": "null", "Sec-Fetch-Site": "cross-site"},
])
def test_a_route_refuses_a_request_from_another_origin_with_403(client, headers):
    client.cookies.set(SESSION_COOKIE, "token-1")
    for method, path in (("GET", "/api/whoami"), ("POST", "/auth/logout"), ("GET", "/auth/session?code=x")):
        response = client.request(method, path, headers=headers, follow_redirects=False)
        assert response.status_code == 403, (method, path)
        assert "token-1" not in response.text and "set-cookie" not in response.headers


@pytest.mark.parametrize("headers", [{}, {"Sec-Fetch-Site": "same-origin"}, {"Origin": APP},
                                     {"Sec-Fetch-Site": "none"}])
def test_a_route_answers_its_own_page_and_clients_that_are_no_browser_page(client, headers):
    client.cookies.set(SESSION_COOKIE, "token-1")
    assert client.get("/api/whoami", headers=headers).json() == {"session": "token-1"}


def test_a_link_to_a_page_from_elsewhere_still_opens_the_page(client):
    assert client.get("/", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 200


def test_the_origin_rules_read_ports_schemes_and_default_ports():
    assert normalize_origin("HTTP://127.0.0.1:80") == "http://127.0.0.1"
    assert normalize_origin("https://Corpus.Example.org:443/") == "https://corpus.example.org"
    assert normalize_origin("http://127.0.0.1:8501") == "http://127.0.0.1:8501"
    for bad in ("ftp://x", "http://x/path", "http://user@x", "http://x:99999", "", None, "null"):
        assert normalize_origin(bad) is None
    scope = {"type": "websocket", "scheme": "ws", "path": "/_stcore/stream",
             "headers": [(b"host", b"127.0.0.1:8501"), (b"origin", b"http://127.0.0.1:8501")]}
    assert not foreign_request(scope, {})
    scope["headers"][1] = (b"origin", b"http://127.0.0.1:8722")
    assert foreign_request(scope, {})


def test_a_malformed_public_origin_stops_the_server_instead_of_admitting_everyone():
    with pytest.raises(ValueError, match="CORPUS_PUBLIC_ORIGIN"):
        configured_origin({"CORPUS_PUBLIC_ORIGIN": "corpus.example.org/app"})
    with pytest.raises(ValueError):
        OriginGuard(None, environ={"CORPUS_PUBLIC_ORIGIN": "*"})


def test_over_https_the_cookies_take_the_host_prefix():
    assert cookie_name("corpus_session", {"CORPUS_PUBLIC_ORIGIN": "https://corpus.example.org"}) \
        == "__Host-corpus_session"
    assert cookie_name("corpus_session", {"CORPUS_PUBLIC_ORIGIN": "http://127.0.0.1:8501"}) == "corpus_session"
    assert cookie_name("corpus_session", {}) == "corpus_session"


# --- cookies planted by another port -------------------------------------------------------------------

def test_a_session_cookie_that_arrives_twice_logs_nobody_in(client):
    planted = f"{SESSION_COOKIE}=victims-token; {SESSION_COOKIE}=attackers-token; other=1"
    assert client.get("/api/whoami", headers={"Cookie": planted}).json() == {"session": None}
    with client.websocket_connect("/_stcore/stream", headers={"Origin": APP, "Cookie": planted}) as ws:
        assert ws.receive_text() == "hello None"


def test_dropping_a_doubled_cookie_keeps_the_others():
    header = f"a=1; {SESSION_COOKIE}=x; b=2; {SESSION_COOKIE}=y"
    assert without_shadowed_cookies(header, (SESSION_COOKIE,)) == ("a=1; b=2", True)
    assert without_shadowed_cookies("a=1; b=2", (SESSION_COOKIE,)) == ("a=1; b=2", False)


# --- the pre-login nonce and the login code (N11) --------------------------------------------------------

def test_a_page_sets_a_pre_login_nonce_once(client):
    first = client.get("/")
    cookie = first.headers["set-cookie"]
    assert cookie.startswith(f"{NONCE_COOKIE}=") and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "set-cookie" not in client.get("/").headers  # the browser holds it now
    assert "set-cookie" not in TestClient(_app(), base_url=APP).get("/api/whoami").headers  # JSON: none


def test_the_masked_code_unmasks_only_with_the_same_nonce():
    bound = bind_login_code("the-code_0123456789", "nonce-a")
    assert bound != "the-code_0123456789"
    assert unbind_login_code(bound, "nonce-a") == "the-code_0123456789"
    assert unbind_login_code(bound, "nonce-b") != "the-code_0123456789"
    for bad in (None, "", "!!!", "a" * 300):
        assert unbind_login_code(bad, "nonce-a") is None
    assert unbind_login_code(bound, None) is None


@pytest.fixture
def logins(demo_db):
    auth_routes._engine.cache_clear()
    yield demo_db
    auth_routes._engine.cache_clear()


def _session_cookie(response) -> str | None:
    for value in response.headers.get_list("set-cookie"):
        attributes = [part.strip() for part in value.split(";")]
        if attributes[0].startswith(f"{SESSION_COOKIE}=") and "Path=/" in attributes and "Max-Age=0" not in value:
            return attributes[0].split("=", 1)[1]
    return None


def test_the_login_code_logs_in_the_browser_whose_page_asked_for_it(logins, client):
    client.get("/")  # the login page: the browser receives its nonce
    nonce = client.cookies.get(NONCE_COOKIE)
    code = bind_login_code(issue_login_code(logins, _uid(logins, "asha")), nonce)
    response = client.get(f"/auth/session?code={code}", headers={"Sec-Fetch-Site": "same-origin"},
                          follow_redirects=False)
    assert response.status_code == 303
    assert resume_session(logins, _session_cookie(response)).username == "asha"


def test_a_client_sending_neither_sec_fetch_site_nor_origin_gets_no_session(logins, client):
    client.get("/")
    code = bind_login_code(issue_login_code(logins, _uid(logins, "asha")), client.cookies.get(NONCE_COOKIE))
    response = client.get(f"/auth/session?code={code}", follow_redirects=False)
    assert response.status_code == 403 and _session_cookie(response) is None
    # the browser that asked for the code can still use it
    ok = client.get(f"/auth/session?code={code}", headers={"Sec-Fetch-Site": "same-origin"}, follow_redirects=False)
    assert _session_cookie(ok)


def test_a_login_code_taken_to_another_browser_logs_nobody_in(logins, client):
    client.get("/")
    code = bind_login_code(issue_login_code(logins, _uid(logins, "asha")), client.cookies.get(NONCE_COOKIE))
    other = TestClient(_app(), base_url=APP)
    other.get("/")  # another browser, with its own nonce
    for browser in (other, TestClient(_app(), base_url=APP)):  # and one with none at all
        response = browser.get(f"/auth/session?code={code}", headers={"Sec-Fetch-Site": "same-origin"},
                               follow_redirects=False)
        assert _session_cookie(response) is None
    # the code was never spent: the browser it belongs to still logs in with it
    ok = client.get(f"/auth/session?code={code}", headers={"Sec-Fetch-Site": "same-origin"}, follow_redirects=False)
    assert _session_cookie(ok)


def test_the_raw_code_without_its_mask_logs_nobody_in(logins, client):
    client.get("/")
    raw = issue_login_code(logins, _uid(logins, "asha"))
    response = client.get(f"/auth/session?code={raw}", headers={"Sec-Fetch-Site": "same-origin"},
                          follow_redirects=False)
    assert _session_cookie(response) is None


def test_logging_in_expires_a_session_cookie_planted_with_a_domain(logins, client):
    client.get("/")
    nonce = client.cookies.get(NONCE_COOKIE)
    code = bind_login_code(issue_login_code(logins, _uid(logins, "asha")), nonce)
    planted = f"{NONCE_COOKIE}={nonce}; {SESSION_COOKIE}=a; {SESSION_COOKIE}=b"
    response = client.get(f"/auth/session?code={code}", headers={"Sec-Fetch-Site": "same-origin", "Cookie": planted},
                          follow_redirects=False)
    assert _session_cookie(response)  # logged in: the doubled copies were ignored, not trusted
    expired = [c for c in response.headers.get_list("set-cookie") if "Domain=testserver" in c]
    assert expired and all("Max-Age=0" in c for c in expired)


def test_logging_in_expires_copies_planted_under_the_websockets_and_routes_paths(logins, client):
    client.get("/")
    code = bind_login_code(issue_login_code(logins, _uid(logins, "asha")), client.cookies.get(NONCE_COOKIE))
    response = client.get(f"/auth/session?code={code}", headers={"Sec-Fetch-Site": "same-origin"},
                          follow_redirects=False)
    expired = {part.strip()[5:] for c in response.headers.get_list("set-cookie") if "Max-Age=0" in c
               and c.startswith(f"{SESSION_COOKIE}=") for part in c.split(";") if part.strip().startswith("Path=")}
    assert {"/_stcore", "/_stcore/stream", "/api", "/api/suggest", "/auth/session"} <= expired
    assert "/" not in expired  # the app's own cookie stays


def test_a_refusal_is_plain_text_and_never_cached(client):
    response = client.get("/api/whoami", headers={"Sec-Fetch-Site": "same-site"})
    assert response.status_code == 403 and response.headers["cache-control"] == "no-store"
    assert response.headers["content-type"].startswith("text/plain")  # the refusal, never the route's JSON
