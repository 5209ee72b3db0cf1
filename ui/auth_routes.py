"""The session cookie's two routes and the security headers, served beside the Streamlit app (st.App).

Streamlit talks to the browser over a websocket and cannot set a cookie, so the login form hands the
browser a single-use login code and sends it to ``/auth/session?code=...``; that route trades the
code for a session and sets the ``corpus_session`` cookie (HttpOnly, SameSite=Strict, Path=/, Secure
over HTTPS), then sends the browser to ``/`` (303), leaving no credential in the address bar or the
history. ``POST /auth/logout`` ends the user's sessions and clears the cookie.

``SecurityHeaders`` adds a Content-Security-Policy that names no other host, and the usual
nosniff / referrer / framing headers, to every HTTP response.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from db.auth import end_session, redeem_login_code
from db.engine import default_url, make_engine

# The one name of the login cookie; ui.common and ui.api_routes read it from here.
SESSION_COOKIE = "corpus_session"
SESSION_PATH = "/auth/session"
LOGOUT_PATH = "/auth/logout"
TRUSTED_PROXIES = "CORPUS_TRUSTED_PROXIES"


def forwarded_allow_ips(environ: Mapping[str, str]) -> str:
    """What uvicorn may trust for X-Forwarded-For / X-Forwarded-Proto: the proxies named in
    CORPUS_TRUSTED_PROXIES (addresses or networks, comma-separated), and nobody when it is unset.
    (Uvicorn's own default trusts any local process, which could then pose as any client.)"""
    return environ.get(TRUSTED_PROXIES, "").strip()


def trust_only_configured_proxies(environ: Mapping[str, str]) -> None:
    """Make the server read X-Forwarded-For / X-Forwarded-Proto only from CORPUS_TRUSTED_PROXIES.

    Uvicorn wraps the app in its ProxyHeadersMiddleware right after importing it, with the
    FORWARDED_ALLOW_IPS it read before (default: loopback, so any local process or a proxy on this
    host could pose as any client). Streamlit offers no setting for it, so the module that builds the
    app, imported in between, swaps in a subclass that trusts exactly the configured proxies.
    (tests/browser/test_login_journey.py checks this end to end, should uvicorn change.)"""
    import os

    import uvicorn.config
    from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

    trusted = forwarded_allow_ips(environ)

    class ConfiguredProxyHeaders(ProxyHeadersMiddleware):
        def __init__(self, app, trusted_hosts=None):
            super().__init__(app, trusted_hosts=trusted)

    uvicorn.config.ProxyHeadersMiddleware = ConfiguredProxyHeaders
    os.environ["FORWARDED_ALLOW_IPS"] = trusted


@cache
def _engine():
    return make_engine(default_url())


def _is_https(request: Request) -> bool:
    """HTTPS as the browser sees it. Uvicorn applies X-Forwarded-Proto only from a proxy listed in
    CORPUS_TRUSTED_PROXIES (app.py hands that list to uvicorn as FORWARDED_ALLOW_IPS)."""
    return request.url.scheme in ("https", "wss")


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _cross_site(request: Request) -> bool:
    """A request another site or a typed/pasted URL made: browsers say so in Sec-Fetch-Site (and Origin)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        return True
    origin = request.headers.get("origin")
    return origin is not None and origin not in (f"{request.url.scheme}://{request.url.netloc}", "null")


async def start_session_from_code(request: Request) -> Response:
    """GET /auth/session?code=...: the code becomes a session cookie, once, within seconds of the login.

    A code in a link from elsewhere, a bookmark or a pasted URL is refused (Sec-Fetch-Site), so nobody
    can log a victim's browser into their own account by sending them a link."""
    if _cross_site(request):
        return _no_store(PlainTextResponse("This link does not log anyone in. Open the app and log in.",
                                           status_code=403))
    token = await run_in_threadpool(redeem_login_code, _engine(), request.query_params.get("code"),
                                    request.cookies.get(SESSION_COOKIE))
    response = _no_store(RedirectResponse("/", status_code=303))
    if token:
        response.set_cookie(SESSION_COOKIE, token, path="/", httponly=True, samesite="strict",
                            secure=_is_https(request))
    return response


async def logout(request: Request) -> Response:
    """POST /auth/logout: every session of the cookie's user ends, and the cookie is cleared."""
    if _cross_site(request):
        return _no_store(PlainTextResponse("Log out from the app itself.", status_code=403))
    await run_in_threadpool(end_session, _engine(), request.cookies.get(SESSION_COOKIE))
    response = _no_store(RedirectResponse("/", status_code=303))
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict", secure=_is_https(request))
    return response


AUTH_ROUTES = [
    Route(SESSION_PATH, start_session_from_code, methods=["GET"]),
    Route(LOGOUT_PATH, logout, methods=["POST"]),
]


# --- security headers -------------------------------------------------------------------------------

@cache
def _inline_script_hashes() -> tuple[str, ...]:
    """CSP hashes of the inline scripts in Streamlit's own index.html (one line setting a flag), so the
    policy allows exactly those and no other inline script."""
    import streamlit

    index = Path(streamlit.__file__).resolve().parent / "static" / "index.html"
    try:
        html = index.read_text(encoding="utf-8")
    except OSError:
        return ()
    return tuple(
        "'sha256-" + base64.b64encode(hashlib.sha256(body.encode("utf-8")).digest()).decode("ascii") + "'"
        for body in re.findall(r"<script>(.*?)</script>", html, flags=re.S)
    )


def content_security_policy() -> str:
    """Everything from this server only. Styles may be inline (Streamlit's CSS-in-JS writes style
    tags) and components' scripts come as blob: URLs built in the page; images may be data:/blob:
    URLs (charts, icons); the websocket is same-origin ('self')."""
    scripts = " ".join(("'self'", *_inline_script_hashes()))
    return "; ".join((
        "default-src 'self'",
        f"script-src {scripts} blob: 'wasm-unsafe-eval'",
        "style-src 'self' 'unsafe-inline'",
        "img-src 'self' data: blob:",
        "font-src 'self' data:",
        "media-src 'self' data: blob:",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "frame-src 'self'",
        "object-src 'none'",
        "base-uri 'self'",
        "form-action 'self'",
        "frame-ancestors 'self'",
    ))


class SecurityHeaders:
    """Pure ASGI middleware: the headers go on every HTTP response (websockets pass untouched)."""

    def __init__(self, app):
        self.app = app
        self.headers = [
            (b"content-security-policy", content_security_policy().encode("ascii")),
            (b"x-content-type-options", b"nosniff"),
            (b"referrer-policy", b"same-origin"),
            (b"x-frame-options", b"SAMEORIGIN"),
            (b"cross-origin-opener-policy", b"same-origin"),
        ]

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in self.headers if name not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)
