"""Login sessions: a one-use login code becomes an HttpOnly cookie; sessions end on idle, on age, on
logout, password change or reset, role change and deactivation; and every save re-checks its writer."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.responses import PlainTextResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from db.access import DEFAULT_IDLE_HOURS, SESSION_ENDED, SessionEnded
from db.auth import (
    LOGIN_CODE_LIFETIME,
    SESSION_LIFETIME,
    end_session,
    issue_login_code,
    redeem_login_code,
    resume_session,
    set_session_idle_hours,
    start_session,
)
from db.models import Annotation, LoginSession, Translation, User, utcnow
from db.users import reset_password, set_roles
from db.workflows import deactivate_user


def uid(engine, username: str) -> int:
    with Session(engine) as s:
        return s.scalars(select(User.id).where(User.username == username)).one()


# --- login codes ------------------------------------------------------------------------------------

def test_a_login_code_gives_one_session_once(demo_db):
    code = issue_login_code(demo_db, uid(demo_db, "asha"))
    token = redeem_login_code(demo_db, code)
    assert resume_session(demo_db, token).username == "asha"
    assert redeem_login_code(demo_db, code) is None


def test_a_login_code_expires_within_seconds(demo_db):
    now = utcnow()
    code = issue_login_code(demo_db, uid(demo_db, "asha"), now=now)
    assert redeem_login_code(demo_db, code, now=now + LOGIN_CODE_LIFETIME + timedelta(seconds=1)) is None
    assert LOGIN_CODE_LIFETIME <= timedelta(seconds=30)


@pytest.mark.parametrize("end", ["deactivate", "reset"])
def test_a_login_code_of_a_user_deactivated_or_reset_since_is_refused(demo_db, end):
    asha, lead = uid(demo_db, "asha"), uid(demo_db, "lead")
    code = issue_login_code(demo_db, asha)
    if end == "deactivate":
        deactivate_user(demo_db, asha, actor_id=lead)
    else:
        reset_password(demo_db, asha, "a-new-password-1", actor_id=lead)
    assert redeem_login_code(demo_db, code) is None


def test_a_made_up_or_missing_code_is_no_session(demo_db):
    assert redeem_login_code(demo_db, "made-up") is None
    assert redeem_login_code(demo_db, None) is None


def test_logging_in_again_ends_the_session_the_browser_held(demo_db):
    asha = uid(demo_db, "asha")
    old = start_session(demo_db, asha)
    new = redeem_login_code(demo_db, issue_login_code(demo_db, asha), replaces=old)
    assert resume_session(demo_db, old) is None and resume_session(demo_db, new).id == asha


def test_only_the_hash_of_a_token_is_stored(demo_db):
    token = start_session(demo_db, uid(demo_db, "asha"))
    with Session(demo_db) as s:
        stored = s.scalars(select(LoginSession.token_hash)).all()
    assert token not in stored and len(stored) == 1


# --- lifetime ---------------------------------------------------------------------------------------

def test_a_session_idle_longer_than_the_timeout_ends(demo_db):
    start = utcnow()
    token = start_session(demo_db, uid(demo_db, "asha"), now=start)
    idle = timedelta(hours=DEFAULT_IDLE_HOURS)
    assert resume_session(demo_db, token, now=start + idle - timedelta(minutes=1))
    # that use moved the idle clock on
    assert resume_session(demo_db, token, now=start + 2 * idle - timedelta(minutes=2))
    assert resume_session(demo_db, token, now=start + 3 * idle) is None


def test_the_idle_timeout_is_a_project_setting(demo_db):
    start = utcnow()
    token = start_session(demo_db, uid(demo_db, "asha"), now=start)
    set_session_idle_hours(demo_db, 1, actor_id=uid(demo_db, "admin"))
    assert resume_session(demo_db, token, now=start + timedelta(minutes=61)) is None
    with pytest.raises(ValueError):
        set_session_idle_hours(demo_db, 0, actor_id=None)


def test_a_session_in_daily_use_still_ends_after_its_lifetime(demo_db):
    start = utcnow()
    token = start_session(demo_db, uid(demo_db, "asha"), now=start)
    at = start
    while at < start + SESSION_LIFETIME - timedelta(hours=4):
        at += timedelta(hours=4)
        assert resume_session(demo_db, token, now=at)
    assert resume_session(demo_db, token, now=start + SESSION_LIFETIME + timedelta(seconds=1)) is None


def test_the_last_use_is_written_at_most_once_a_minute(demo_db):
    start = utcnow()
    token = start_session(demo_db, uid(demo_db, "asha"), now=start)
    resume_session(demo_db, token, now=start + timedelta(seconds=30))
    with Session(demo_db) as s:
        assert s.scalars(select(LoginSession.last_seen_at)).one() == start
    resume_session(demo_db, token, now=start + timedelta(seconds=90))
    with Session(demo_db) as s:
        assert s.scalars(select(LoginSession.last_seen_at)).one() == start + timedelta(seconds=90)


# --- ending every session of a user -----------------------------------------------------------------

@pytest.mark.parametrize("event", ["logout", "reset", "deactivate", "roles"])
def test_every_session_of_the_user_ends_and_nobody_elses(demo_db, event):
    asha, lead, ravi = uid(demo_db, "asha"), uid(demo_db, "lead"), uid(demo_db, "ravi")
    laptop, phone, other = start_session(demo_db, asha), start_session(demo_db, asha), start_session(demo_db, ravi)
    if event == "logout":
        assert end_session(demo_db, laptop) == asha
    elif event == "reset":
        reset_password(demo_db, asha, "a-new-password-1", actor_id=lead)
    elif event == "deactivate":
        deactivate_user(demo_db, asha, actor_id=lead)
    else:
        set_roles(demo_db, asha, ["translator", "annotator"], actor_id=lead)
    assert resume_session(demo_db, laptop) is None and resume_session(demo_db, phone) is None
    assert resume_session(demo_db, other).id == ravi


def test_saving_the_same_roles_keeps_the_sessions(demo_db):
    asha = uid(demo_db, "asha")
    token = start_session(demo_db, asha)
    set_roles(demo_db, asha, ["translator"], actor_id=uid(demo_db, "lead"))
    assert resume_session(demo_db, token).id == asha


# --- every save re-checks its writer ----------------------------------------------------------------

def _open_translation_task(engine, user_id: int) -> int:
    from db.assignment import my_queue

    return next(q.assignment_id for q in my_queue(engine, user_id) if q.status == "assigned" and not q.locked)


def _translation_rows(engine) -> int:
    with Session(engine) as s:
        return s.scalar(select(func.count()).select_from(Translation))


@pytest.mark.parametrize("end", ["logout", "reset", "deactivate", "none"])
def test_a_translation_save_from_an_ended_session_writes_nothing(demo_db, end):
    from db.translation import Draft, TaskLocked, save_translation

    asha, lead = uid(demo_db, "asha"), uid(demo_db, "lead")
    token = start_session(demo_db, asha)
    task = _open_translation_task(demo_db, asha)
    before = _translation_rows(demo_db)
    if end == "logout":
        end_session(demo_db, token)
    elif end == "reset":
        reset_password(demo_db, asha, "a-new-password-1", actor_id=lead)
    elif end == "deactivate":
        deactivate_user(demo_db, asha, actor_id=lead)
    else:
        save_translation(demo_db, asha, task, Draft("खाना अच्छा था"), expected_version=0, session_token=token)
        assert _translation_rows(demo_db) == before + 1
        return
    with pytest.raises(SessionEnded) as caught:
        save_translation(demo_db, asha, task, Draft("खाना अच्छा था"), expected_version=0, session_token=token)
    assert str(caught.value) == SESSION_ENDED
    assert isinstance(caught.value, TaskLocked)  # the translate page's existing refusal handler shows it
    assert _translation_rows(demo_db) == before


def test_a_deactivated_user_cannot_save_even_without_a_token(demo_db):
    from db.translation import Draft, save_translation

    asha = uid(demo_db, "asha")
    task = _open_translation_task(demo_db, asha)
    deactivate_user(demo_db, asha, actor_id=uid(demo_db, "lead"))
    with pytest.raises(SessionEnded):
        save_translation(demo_db, asha, task, Draft("खाना अच्छा था"), expected_version=0)


def test_someone_elses_live_token_does_not_make_a_save_live(demo_db):
    from db.translation import Draft, save_translation

    asha = uid(demo_db, "asha")
    task = _open_translation_task(demo_db, asha)
    ravis = start_session(demo_db, uid(demo_db, "ravi"))
    with pytest.raises(SessionEnded):
        save_translation(demo_db, asha, task, Draft("खाना अच्छा था"), expected_version=0, session_token=ravis)


def test_a_tagging_save_from_an_ended_session_writes_nothing(demo_db):
    from db.tagging import NotAssigned, my_queue
    from db.workflows import open_item, save_annotation

    meera = uid(demo_db, "meera")
    token = start_session(demo_db, meera)
    row = next(r for r in my_queue(demo_db, meera) if r.status == "assigned")
    item = open_item(demo_db, meera, row.translation_id)
    with Session(demo_db) as s:
        before = s.scalar(select(func.count()).select_from(Annotation))
    end_session(demo_db, token)
    with pytest.raises(SessionEnded) as caught:
        save_annotation(demo_db, meera, item.item_id, ["O"] * len(item.tokens), True, None, "submit",
                        session_token=token)
    assert isinstance(caught.value, NotAssigned) and isinstance(caught.value, ValueError)
    with Session(demo_db) as s:
        assert s.scalar(select(func.count()).select_from(Annotation)) == before


def test_a_gold_decision_from_an_ended_session_writes_nothing(demo_db):
    from db.adjudication import accept
    from db.disagreement_queue import decisions, disagreement_queue
    from db.schema import ensure_default_project

    lead = uid(demo_db, "lead")
    token = start_session(demo_db, lead)
    entry = disagreement_queue(demo_db, ensure_default_project(demo_db))[0]
    before = decisions(demo_db, entry.item_id)
    reset_password(demo_db, lead, "a-new-password-1", actor_id=lead)
    with pytest.raises(SessionEnded):
        accept(demo_db, entry.item_id, entry.versions[0].annotation_id, lead, expected=None, session_token=token)
    assert decisions(demo_db, entry.item_id) == before


# --- the cookie routes and the headers ----------------------------------------------------------------

@pytest.fixture
def routes(demo_db):
    from ui.auth_routes import AUTH_ROUTES, SecurityHeaders, _engine

    _engine.cache_clear()

    async def home(request):
        return PlainTextResponse("home")

    app = Starlette(routes=[*AUTH_ROUTES, Route("/", home)], middleware=[Middleware(SecurityHeaders)])
    yield app
    _engine.cache_clear()


SAME_ORIGIN = {"Sec-Fetch-Site": "same-origin"}


def _bound(client, code: str) -> str:
    """The code as the login page hands it to this client's browser: masked with its pre-login nonce."""
    from ui.auth_routes import NONCE_COOKIE, bind_login_code

    client.cookies.set(NONCE_COOKIE, "nonce-of-this-browser")
    return bind_login_code(code, "nonce-of-this-browser")


def _set_cookie(response) -> str:
    return response.headers["set-cookie"]


def test_the_session_route_sets_an_httponly_strict_cookie_and_sends_the_browser_home(routes, demo_db):
    client = TestClient(routes, base_url="http://testserver")
    code = _bound(client, issue_login_code(demo_db, uid(demo_db, "asha")))
    response = client.get(f"/auth/session?code={code}", headers=SAME_ORIGIN, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/"
    cookie = _set_cookie(response)
    assert cookie.startswith("corpus_session=") and "HttpOnly" in cookie and "SameSite=strict" in cookie
    assert "Path=/" in cookie and "Secure" not in cookie
    token = cookie.split(";")[0].split("=", 1)[1]
    assert resume_session(demo_db, token).username == "asha"
    assert response.headers["cache-control"] == "no-store"


def test_over_https_the_cookie_is_secure(routes, demo_db):
    client = TestClient(routes, base_url="https://testserver")
    code = _bound(client, issue_login_code(demo_db, uid(demo_db, "asha")))
    response = client.get(f"/auth/session?code={code}", headers=SAME_ORIGIN, follow_redirects=False)
    assert "Secure" in _set_cookie(response)


@pytest.mark.parametrize("site", ["cross-site", "none", "same-site"])
def test_a_code_opened_from_a_link_elsewhere_or_a_pasted_url_logs_nobody_in(routes, demo_db, site):
    client = TestClient(routes)
    code = _bound(client, issue_login_code(demo_db, uid(demo_db, "asha")))
    response = client.get(f"/auth/session?code={code}", headers={"Sec-Fetch-Site": site}, follow_redirects=False)
    assert response.status_code == 403 and "set-cookie" not in response.headers
    # and the code is still unused for the browser that asked for it
    assert client.get(f"/auth/session?code={code}", headers=SAME_ORIGIN, follow_redirects=False).status_code == 303


def test_a_used_code_sets_no_cookie(routes, demo_db):
    client = TestClient(routes)
    code = _bound(client, issue_login_code(demo_db, uid(demo_db, "asha")))
    client.get(f"/auth/session?code={code}", headers=SAME_ORIGIN, follow_redirects=False)
    again = client.get(f"/auth/session?code={code}", headers=SAME_ORIGIN, follow_redirects=False)
    assert again.status_code == 303 and "set-cookie" not in again.headers


def test_logout_ends_the_users_sessions_and_clears_the_cookie(routes, demo_db):
    asha = uid(demo_db, "asha")
    token, other_tab = start_session(demo_db, asha), start_session(demo_db, asha)
    client = TestClient(routes)
    assert client.get("/auth/logout", follow_redirects=False).status_code in (404, 405)
    response = client.post("/auth/logout", headers={**SAME_ORIGIN, "Cookie": f"corpus_session={token}"},
                           follow_redirects=False)
    assert response.status_code == 303
    assert _set_cookie(response).startswith('corpus_session=""') or "Max-Age=0" in _set_cookie(response)
    assert resume_session(demo_db, token) is None and resume_session(demo_db, other_tab) is None


def test_a_logout_posted_from_another_site_is_refused(routes, demo_db):
    token = start_session(demo_db, uid(demo_db, "asha"))
    response = TestClient(routes).post("/auth/logout", headers={"Origin": "https://evil.example",
                                                                "Cookie": f"corpus_session={token}"},
                                       follow_redirects=False)
    assert response.status_code == 403 and resume_session(demo_db, token)


def test_every_response_carries_the_security_headers(routes):
    response = TestClient(routes).get("/")
    csp = response.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "frame-ancestors 'self'" in csp and "object-src 'none'" in csp
    assert "http" not in csp.replace("'self'", "")  # no other host named anywhere
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"
