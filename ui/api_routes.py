"""Small JSON routes served beside the Streamlit app (``st.App`` custom routes).

A route answers the browser without rerunning a page script, for look-ups made on every keystroke.
Each route checks the caller's session itself: it sits outside Streamlit's page flow. The browser
sends the login token in the ``X-Corpus-Session`` header (or, once logins move to a cookie, the
``corpus_session`` cookie); anything else is answered 401. Blocking work (the database, the model)
runs in a worker thread so the server's event loop keeps serving the app.

Typing look-ups are rationed so that one user cannot slow another (issue 31, N4): a session has at most
one look-up running and up to three waiting for it, without a thread (typing pauses and a word's
conversion overlap a little), and at most ``RATE_PER_S`` a second; beyond either it is answered 429, after
a short pause and without touching the database or a thread. Look-ups run in their own small pool of
``SUGGEST_WORKERS`` threads, never in the server's shared thread pool, with at most ``MAX_SUGGEST_QUEUE``
admitted in all (503 beyond).
"""

from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

from sqlalchemy import Engine
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from corpus.vocabulary import Role
from db.auth import CurrentUser, resume_session
from db.engine import default_url, make_engine
from ui.auth_routes import SESSION_COOKIE

SESSION_HEADER = "X-Corpus-Session"
SUGGEST_PATH = "/api/suggest"
MAX_K = 10
TYPING_ROLES = (Role.TRANSLATOR, Role.LEAD)
SUGGEST_WORKERS = 2  # the model runs under one lock; a second thread checks sessions meanwhile
PER_SESSION = 4  # one look-up running and three waiting their turn (typing pauses overlap); more: 429
RATE_PER_S = 20.0  # a session's sustained look-ups per second (typing makes a few), with a burst of as many
REFUSAL_DELAY_S = 0.5  # a refusal answers after this pause, so a client that asks again at once cannot spin
MAX_SUGGEST_QUEUE = 32  # look-ups admitted across all sessions; more: 503


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


def _no_store(payload: dict, status: int = 200, headers: dict | None = None) -> JSONResponse:
    return JSONResponse(payload, status_code=status, headers={"Cache-Control": "no-store", **(headers or {})})


_warming = threading.Lock()
_warm = {"started": False}


def warm_model() -> None:
    """Load the typing model in the background (a few seconds, once per process), so the first word a
    translator types does not wait for it."""
    with _warming:
        if _warm["started"]:
            return
        _warm["started"] = True

    from db.typing_model import warm_model as load

    threading.Thread(target=load, name="typing-model-warm-up", daemon=True).start()


async def health(request: Request) -> JSONResponse:
    return JSONResponse({"status": "ok"})


class SuggestRation:
    """Per-session admission for look-ups, kept on the event loop (no lock needed: only coroutines touch
    it, between awaits) and a bounded pool of worker threads of their own."""

    def __init__(self, workers: int = SUGGEST_WORKERS, per_session: int = PER_SESSION,
                 queue: int = MAX_SUGGEST_QUEUE, rate: float = RATE_PER_S, clock=time.monotonic):
        self.workers, self.per_session, self.queue, self.rate = workers, per_session, queue, rate
        self.clock = clock  # seconds; a test's own clock makes the bucket's refill independent of the machine's speed
        self.admitted: dict[str, int] = {}
        self.slots: dict[str, asyncio.Lock] = {}
        self.buckets: dict[str, tuple[float, float]] = {}  # key -> (tokens, when)
        self.total = 0
        self._pool: ThreadPoolExecutor | None = None

    def _take(self, key: str) -> bool:
        """One token of the session's bucket (``rate`` per second, at most ``rate`` kept), if it has one."""
        now = self.clock()
        tokens, when = self.buckets.get(key, (self.rate, now))
        tokens = min(self.rate, tokens + (now - when) * self.rate)
        if tokens < 1:
            self.buckets[key] = (tokens, now)
            return False
        self.buckets[key] = (tokens - 1, now)
        if len(self.buckets) > 10_000:  # forget the sessions whose buckets have refilled
            full = [k for k, (t, w) in self.buckets.items() if t + (now - w) * self.rate >= self.rate]
            for k in full:
                del self.buckets[k]
        return True

    @property
    def pool(self) -> ThreadPoolExecutor:
        if self._pool is None:
            self._pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="suggest")
        return self._pool

    async def run(self, key: str, fn, *args) -> tuple[int, dict]:
        """``fn(*args)`` in the pool, once this session's earlier look-up has finished; (429, ...) when the
        session already has ``per_session`` look-ups admitted, (503, ...) when the server has ``queue``."""
        if self.admitted.get(key, 0) >= self.per_session or not self._take(key):
            await asyncio.sleep(REFUSAL_DELAY_S)
            return 429, {"error": "too many look-ups from this session at once; try again"}
        if self.total >= self.queue:
            await asyncio.sleep(REFUSAL_DELAY_S)
            return 503, {"error": "the server is busy; try again"}
        self.admitted[key] = self.admitted.get(key, 0) + 1
        self.total += 1
        slot = self.slots.setdefault(key, asyncio.Lock())
        try:
            async with slot:
                return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)
        finally:
            self.total -= 1
            self.admitted[key] -= 1
            if not self.admitted[key]:
                del self.admitted[key]
                self.slots.pop(key, None)


_ration = SuggestRation()


def _suggest(token: str | None, q: str, k: int, ctx: str = "") -> tuple[int, dict]:
    from db.typing import context_words, suggest_for

    engine = route_engine()
    user = caller(engine, token)
    if user is None:
        return 401, {"error": "not logged in"}
    if not user.has(*TYPING_ROLES):
        return 403, {"error": "typing help is for translators"}
    return 200, {"q": q, "candidates": suggest_for(engine, None, q, k, context=context_words(ctx))}


async def suggest(request: Request) -> JSONResponse:
    """``GET /api/suggest?q=<roman>&k=5[&ctx=<up to 3 preceding Devanagari words, space-separated>]`` →
    ``{"q": ..., "candidates": [...]}`` for the caller's project (``ctx`` ranks by the words typed before)."""
    q = request.query_params.get("q", "")
    try:
        k = min(max(int(request.query_params.get("k", "5")), 1), MAX_K)
    except ValueError:
        return _no_store({"error": "k must be a number"}, 400)
    if len(q) > 200:
        return _no_store({"error": "q is too long"}, 400)
    token = session_token(request)
    if not token:
        return _no_store({"error": "not logged in"}, 401)
    ctx = request.query_params.get("ctx", "")
    status, payload = await _ration.run(token, _suggest, session_token(request), q, k, ctx)
    return _no_store(payload, status, {"Retry-After": "1"} if status in (429, 503) else None)


ROUTES = [Route("/api/health", health), Route(SUGGEST_PATH, suggest, methods=["GET"])]
