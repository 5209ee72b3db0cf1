"""Sensitive downloads (backups, dataset exports) through a route that checks the session when the file is
fetched, never through Streamlit's media URLs (issue 31, N7).

``st.download_button`` puts the bytes at ``/media/<id>.<ext>``, a capability URL that anyone holding it
can fetch without a cookie for as long as the server keeps it. Here a page *offers* bytes to the person
who prepared them: the server keeps them in memory under a random id (``/download/<id>/<name>``), and
the route hands them out only to a request whose session cookie is live, of that same person, who still
holds one of the page's roles at that moment, with ``Cache-Control: no-store``. A logged-out browser, a
copied link, a demoted or deactivated account get 401/403, never the bytes. Offers expire after
``OFFER_SECONDS`` and the oldest go first beyond ``MAX_OFFERS`` or ``MAX_BYTES``.
"""

from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import quote

import streamlit as st
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from db.auth import resume_session
from ui.api_routes import route_engine
from ui.auth_routes import SESSION_COOKIE

DOWNLOAD_PREFIX = "/download"
OFFER_SECONDS = 30 * 60
MAX_OFFERS = 64
MAX_BYTES = 1024 * 1024 * 1024


@dataclass
class Offer:
    data: bytes
    filename: str
    mime: str
    owner_id: int
    roles: tuple[str, ...]
    created: float = field(default_factory=time.monotonic)


_offers: dict[str, Offer] = {}
_lock = threading.Lock()


def _expire(now: float) -> None:
    for key in [k for k, o in _offers.items() if now - o.created > OFFER_SECONDS]:
        del _offers[key]
    while _offers and (len(_offers) > MAX_OFFERS or sum(len(o.data) for o in _offers.values()) > MAX_BYTES):
        del _offers[min(_offers, key=lambda k: _offers[k].created)]


def offer(data: bytes, filename: str, mime: str, owner_id: int, roles: tuple[str, ...]) -> str:
    """Keep ``data`` for ``owner_id`` (while they hold one of ``roles``); the path that serves it."""
    key = secrets.token_urlsafe(24)
    with _lock:
        _offers[key] = Offer(data, filename, mime, owner_id, tuple(roles))
        _expire(time.monotonic())
    return f"{DOWNLOAD_PREFIX}/{key}/{quote(filename)}"


def _refused(status: int, text: str) -> Response:
    return PlainTextResponse(text, status_code=status, headers={"Cache-Control": "no-store"})


async def serve(request: Request) -> Response:
    """``GET /download/<id>/<name>``: the offered bytes, to their owner's live session only."""
    with _lock:
        _expire(time.monotonic())
        found = _offers.get(request.path_params["key"])
    token = request.cookies.get(SESSION_COOKIE)
    user = await run_in_threadpool(resume_session, route_engine(), token) if token else None
    if user is None:
        return _refused(401, "Log in to download this file (downloads need the session that prepared them).")
    if found is None:
        return _refused(404, "This download has expired; prepare it again on its page.")
    if user.id != found.owner_id or not set(user.roles) & set(found.roles):
        return _refused(403, "This download belongs to another person or role.")
    disposition = f"attachment; filename*=UTF-8''{quote(found.filename)}"
    return Response(found.data, media_type=found.mime,
                    headers={"Content-Disposition": disposition, "Cache-Control": "no-store",
                             "X-Content-Type-Options": "nosniff"})


DOWNLOAD_ROUTES = [Route(DOWNLOAD_PREFIX + "/{key}/{name}", serve, methods=["GET"])]


def download_link(label: str, data: bytes, filename: str, mime: str, *, user, roles: tuple[str, ...],
                  key: str, type: str = "secondary", where=None) -> str:
    """A button that downloads ``data`` through the checked route. The offer is made once per widget key
    and content (a rerun reuses it); returns the path it serves."""
    state_key = f"_download_offer_{key}"
    known = st.session_state.get(state_key)
    with _lock:
        current = _offers.get(known[0]) if known else None
    if current is None or current.owner_id != user.id or current.filename != filename or current.data != data:
        path = offer(data, filename, mime, user.id, roles)
        st.session_state[state_key] = (path.split("/")[2], path)
    path = st.session_state[state_key][1]
    (where or st).link_button(label, path, type=type, key=key)
    return path
