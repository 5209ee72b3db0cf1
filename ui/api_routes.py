"""Small JSON routes served beside the Streamlit app (``st.App`` custom routes).

A route answers the browser without rerunning a page script, for look-ups made on every keystroke.
Each route checks the caller's session itself: it sits outside Streamlit's page flow. The browser
sends the login token in the ``X-Corpus-Session`` header (or, once logins move to a cookie, the
``corpus_session`` cookie); anything else is answered 401. Blocking work (the database, the model)
runs in a worker thread so the server's event loop keeps serving the app.
"""

from __future__ import annotations

import threading
from functools import lru_cache

from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from db.auth import CurrentUser, resume_session
from db.engine import default_url, make_engine
from ui.auth_routes import SESSION_COOKIE

SESSION_HEADER = "X-Corpus-Session"
SUGGEST_PATH = "/api/suggest"
MAX_K = 10
TYPING_ROLES = ("translator", "lead")


_engine_lock = threading.Lock()


@lru_cache(maxsize=4)
def _engine_for(url: str) -> Engine:
    return make_engine(url)


def route_engine() -> Engine:
    """The app's engine for routes: the same database as the pages, without Streamlit's cache. No schema
    upgrade here: a caller has a session only once a page (which upgrades) has run, and Alembic's
    upgrade must not run in two threads at once (it keeps its context in module globals)."""
    with _engine_lock:
        return _engine_for(default_url())


def session_token(request: Request) -> str | None:
    return request.headers.get(SESSION_HEADER) or request.cookies.get(SESSION_COOKIE)


def caller(engine: Engine, token: str | None) -> CurrentUser | None:
    return resume_session(engine, token)


def _no_store(payload: dict, status: int = 200) -> JSONResponse:
    return JSONResponse(payload, status_code=status, headers={"Cache-Control": "no-store"})


_warming = threading.Lock()
_warm = {"started": False}


def warm_model() -> None:
    """Load the typing model in the background (a few seconds, once per process), so the first word a
    translator types does not wait for it."""
    with _warming:
        if _warm["started"]:
            return
        _warm["started"] = True

    from db.typing import warm_model as load

    threading.Thread(target=load, name="typing-model-warm-up", daemon=True).start()


async def health(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


def _suggest(token: str | None, q: str, k: int) -> tuple[int, dict]:
    from db.typing import suggest_for

    engine = route_engine()
    user = caller(engine, token)
    if user is None:
        return 401, {"error": "not logged in"}
    if not user.has(*TYPING_ROLES):
        return 403, {"error": "typing help is for translators"}
    return 200, {"q": q, "candidates": suggest_for(engine, None, q, k)}


async def suggest(request: Request) -> JSONResponse:
    """``GET /api/suggest?q=<roman>&k=5`` → ``{"q": ..., "candidates": [...]}`` for the caller's project."""
    q = request.query_params.get("q", "")
    try:
        k = min(max(int(request.query_params.get("k", "5")), 1), MAX_K)
    except ValueError:
        return _no_store({"error": "k must be a number"}, 400)
    if len(q) > 200:
        return _no_store({"error": "q is too long"}, 400)
    status, payload = await run_in_threadpool(_suggest, session_token(request), q, k)
    return _no_store(payload, status)


ROUTES = [Route("/api/health", health), Route(SUGGEST_PATH, suggest, methods=["GET"])]
