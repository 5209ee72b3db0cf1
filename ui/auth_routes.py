"""The session cookie's two routes and the security headers, served beside the Streamlit app (st.App).

Streamlit talks to the browser over a websocket and cannot set a cookie, so the login form hands the
browser a single-use login code and sends it to ``/auth/session?code=...``; that route trades the
code for a session and sets the ``corpus_session`` cookie (HttpOnly, SameSite=Strict, Path=/, Secure
over HTTPS), then sends the browser to ``/`` (303), leaving no credential in the address bar or the
history. ``POST /auth/logout`` ends the user's sessions and clears the cookie.

The login code is bound to this browser: every page of the app sets a pre-login nonce cookie
(``corpus_login_nonce``, HttpOnly) when the browser has none; the code the page hands the browser is the
database's code masked with that nonce (``bind_login_code``), so ``/auth/session`` can unmask it only
with the same browser's cookie, and only for a same-origin navigation (``Sec-Fetch-Site: same-origin``).

``OriginGuard`` answers 403 to a websocket or a request to the app's own routes that comes from another
origin (another site, or another port of this host): the app's own origin is ``scheme://host:port`` of
the request, or ``CORPUS_PUBLIC_ORIGIN`` when set (behind a reverse proxy). It also drops a session
cookie that arrives twice (a shadow set by another port of the same host, see SECURITY.md).

``SecurityHeaders`` adds a Content-Security-Policy that names no other host, and the usual
nosniff / referrer / framing headers, to every HTTP response.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import re
import secrets
from collections.abc import Mapping
from functools import cache
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from db.auth import end_session, redeem_login_code
from db.engine import default_url, make_engine

PUBLIC_ORIGIN = "CORPUS_PUBLIC_ORIGIN"
SESSION_PATH = "/auth/session"
LOGOUT_PATH = "/auth/logout"
TRUSTED_PROXIES = "CORPUS_TRUSTED_PROXIES"
DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_origin(value: str | None) -> str | None:
    """``scheme://host[:port]`` as a browser writes it in ``Origin`` (lower case, default port left out),
    or None when ``value`` is not an http(s) origin (a path, a query, user info or a bad port)."""
    if not value:
        return None
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in DEFAULT_PORTS or not parts.hostname or parts.username or parts.password \
            or parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{parts.scheme}://{host}" + (f":{port}" if port and port != DEFAULT_PORTS[parts.scheme] else "")


def configured_origin(environ: Mapping[str, str]) -> str | None:
    """The public origin from CORPUS_PUBLIC_ORIGIN (behind a reverse proxy), or None when unset.
    A value that is not an origin stops the server rather than silently accepting every origin."""
    raw = environ.get(PUBLIC_ORIGIN, "").strip()
    if not raw:
        return None
    origin = normalize_origin(raw)
    if origin is None:
        raise ValueError(f"{PUBLIC_ORIGIN}={raw!r} is not an origin such as https://corpus.example.org")
    return origin


def cookie_name(base: str, environ: Mapping[str, str]) -> str:
    """Over HTTPS (a public origin starting https://) the cookies carry the ``__Host-`` prefix: the
    browser then takes them only with Secure, Path=/ and no Domain, so a sibling host name cannot
    plant one. Plain-HTTP loopback (the Quickstart) cannot use the prefix."""
    origin = configured_origin(environ)
    return f"__Host-{base}" if origin and origin.startswith("https://") else base


# The one name of the login cookie; ui.common and ui.api_routes read it from here.
SESSION_COOKIE = cookie_name("corpus_session", os.environ)
NONCE_COOKIE = cookie_name("corpus_login_nonce", os.environ)


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


def _secure_cookies(request: Request) -> bool:
    """Secure over HTTPS, and always for the ``__Host-`` names (the browser refuses them otherwise)."""
    return _is_https(request) or SESSION_COOKIE.startswith("__Host-")


def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


def _same_origin_navigation(request: Request) -> bool:
    """A navigation the app's own page made: the browser says ``Sec-Fetch-Site: same-origin`` (every
    current browser sends it), and an ``Origin``, if any, is the app's. A client that sends neither
    header is not a browser following the app's own page, and is refused."""
    if request.headers.get("sec-fetch-site") != "same-origin":
        return False
    origin = request.headers.get("origin")
    return origin is None or origin == "null" or normalize_origin(origin) == app_origin(request.scope)


def _login_mask(nonce: str, length: int) -> bytes:
    return hashlib.shake_256(b"corpus-login-code\0" + nonce.encode("utf-8", "replace")).digest(length)


def bind_login_code(code: str, nonce: str) -> str:
    """The login code as this browser receives it: masked with the browser's pre-login nonce, so that
    only a request carrying the same nonce cookie can turn it back into the code."""
    raw = code.encode("ascii")
    masked = bytes(a ^ b for a, b in zip(raw, _login_mask(nonce, len(raw)), strict=True))
    return base64.urlsafe_b64encode(masked).decode("ascii").rstrip("=")


def unbind_login_code(bound: str | None, nonce: str | None) -> str | None:
    """The code behind ``bound`` for this nonce (None when either is missing or malformed). A wrong nonce
    gives a code that matches nothing."""
    if not bound or not nonce or len(bound) > 200 or not re.fullmatch(r"[A-Za-z0-9_-]+", bound):
        return None
    try:
        masked = base64.urlsafe_b64decode(bound + "=" * (-len(bound) % 4))
    except (binascii.Error, ValueError):
        return None
    raw = bytes(a ^ b for a, b in zip(masked, _login_mask(nonce, len(masked)), strict=True))
    try:
        return raw.decode("ascii")
    except UnicodeDecodeError:
        return None


def _cross_site(request: Request) -> bool:
    """A request another site or a typed/pasted URL made: browsers say so in Sec-Fetch-Site (and Origin)."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site != "same-origin":
        return True
    origin = request.headers.get("origin")
    return origin is not None and origin not in (f"{request.url.scheme}://{request.url.netloc}", "null")


async def start_session_from_code(request: Request) -> Response:
    """GET /auth/session?code=...: the code becomes a session cookie, once, within seconds of the login.

    A code in a link from elsewhere, a bookmark, a pasted URL or a client that does not say where the
    request comes from is refused (Sec-Fetch-Site), and the code only unmasks with the nonce cookie of
    the browser whose login page asked for it: nobody can log a victim's browser into their own account
    by sending them a link, and a code seen in a log or a history is useless elsewhere."""
    if not _same_origin_navigation(request):
        return _no_store(PlainTextResponse("This link does not log anyone in. Open the app and log in.",
                                           status_code=403))
    code = unbind_login_code(request.query_params.get("code"), request.cookies.get(NONCE_COOKIE))
    token = await run_in_threadpool(redeem_login_code, _engine(), code, request.cookies.get(SESSION_COOKIE))
    response = _no_store(RedirectResponse("/", status_code=303))
    if token:
        response.set_cookie(SESSION_COOKIE, token, path="/", httponly=True, samesite="strict",
                            secure=_secure_cookies(request))
        _clear_shadows(request, response)
    return response


# The paths under which a page on another port of this host could plant a copy of the app's cookies that
# the browser sends beside the app's own (a longer Path that matches the websocket or a route).
SHADOW_PATHS = ("/_stcore", "/_stcore/", "/_stcore/stream", "/api", "/api/", "/api/suggest", "/auth", "/auth/",
                SESSION_PATH, LOGOUT_PATH, "/download", "/download/")


def _clear_shadows(request: Request, response: Response) -> None:
    """At every login and logout, expire any copy of the app's cookies planted under a longer Path (which
    OriginGuard would otherwise keep ignoring, leaving the user logged out), and, when one arrived, under
    this host's Domain."""
    for name in (SESSION_COOKIE, NONCE_COOKIE):
        for path in SHADOW_PATHS:
            response.delete_cookie(name, path=path)
        if request.scope.get("corpus_shadowed_cookies") and not name.startswith("__Host-"):
            response.delete_cookie(name, path="/", domain=request.url.hostname)


async def logout(request: Request) -> Response:
    """POST /auth/logout: every session of the cookie's user ends, and the cookie is cleared."""
    if _cross_site(request):
        return _no_store(PlainTextResponse("Log out from the app itself.", status_code=403))
    await run_in_threadpool(end_session, _engine(), request.cookies.get(SESSION_COOKIE))
    response = _no_store(RedirectResponse("/", status_code=303))
    response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict", secure=_secure_cookies(request))
    _clear_shadows(request, response)
    return response


AUTH_ROUTES = [
    Route(SESSION_PATH, start_session_from_code, methods=["GET"]),
    Route(LOGOUT_PATH, logout, methods=["POST"]),
]


# --- the app's own origin only ----------------------------------------------------------------------

# The app's own HTTP routes and Streamlit's endpoints that act or serve data; pages and static files
# stay reachable by a link from anywhere (they carry nothing until the websocket, which is checked).
GUARDED_PREFIXES = ("/api/", "/auth/", "/download/", "/_stcore/", "/media/")
_REFUSED = b"This request came from another site or another port of this host; the app answers only its own pages."


def _header(scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def app_origin(scope, environ: Mapping[str, str] = os.environ) -> str | None:
    """The origin the browser sees the app at: CORPUS_PUBLIC_ORIGIN when set, else the request's own
    ``scheme://host:port`` (the Host header; https when uvicorn took X-Forwarded-Proto from a trusted proxy)."""
    configured = configured_origin(environ)
    if configured:
        return configured
    scheme = {"ws": "http", "wss": "https"}.get(scope.get("scheme", "http"), scope.get("scheme", "http"))
    host = _header(scope, b"host")
    return normalize_origin(f"{scheme}://{host}") if host else None


def foreign_request(scope, environ: Mapping[str, str] = os.environ) -> bool:
    """True when a websocket or a guarded HTTP request does not come from the app's own origin.

    A websocket must name the app's origin exactly (browsers always send ``Origin`` on a websocket).
    An HTTP request is foreign when the browser says another site or another port of this host sent it
    (``Sec-Fetch-Site: cross-site`` or ``same-site``, which ignores ports) or its ``Origin`` is another."""
    own = app_origin(scope, environ)
    origin = _header(scope, b"origin")
    if scope["type"] == "websocket":
        return own is None or normalize_origin(origin) != own
    if scope["type"] != "http" or not scope.get("path", "").startswith(GUARDED_PREFIXES):
        return False
    site = _header(scope, b"sec-fetch-site")
    if site in ("cross-site", "same-site"):
        return True
    if origin is None:
        return False
    if origin == "null":
        return site != "same-origin"
    return normalize_origin(origin) != own


def without_shadowed_cookies(cookie_header: str, names: tuple[str, ...]) -> tuple[str, bool]:
    """The Cookie header without every copy of a cookie in ``names`` that arrives more than once.

    The app sets each of its cookies once (host-only, Path=/). Two copies mean someone else planted one
    beside it (a page or server on another port of the same host can set a cookie with a Domain or a
    longer Path, which the browser then sends too): neither copy is trusted, so the request is logged out
    rather than logged in as whoever planted it. Returns (header, whether anything was dropped)."""
    pairs = [part.strip() for part in cookie_header.split(";") if part.strip()]
    seen: dict[str, int] = {}
    for pair in pairs:
        name = pair.split("=", 1)[0].strip()
        seen[name] = seen.get(name, 0) + 1
    doubled = {name for name in names if seen.get(name, 0) > 1}
    if not doubled:
        return cookie_header, False
    kept = [pair for pair in pairs if pair.split("=", 1)[0].strip() not in doubled]
    return "; ".join(kept), True


class OriginGuard:
    """Pure ASGI middleware, outermost: a websocket or a request to the app's routes from another origin
    is answered 403 before anything else reads it (a websocket is closed before it is accepted, which the
    server answers with HTTP 403); the app's cookies that arrive twice are dropped from the request."""

    def __init__(self, app, environ: Mapping[str, str] | None = None):
        self.app = app
        self.environ = os.environ if environ is None else environ
        configured_origin(self.environ)  # a malformed CORPUS_PUBLIC_ORIGIN stops the server at start

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        if foreign_request(scope, self.environ):
            import logging

            logging.getLogger("corpus").warning("refused a %s to %s from origin %r", scope["type"],
                                                scope.get("path"), _header(scope, b"origin"))
            if scope["type"] == "websocket":
                await receive()  # websocket.connect
                await send({"type": "websocket.close", "code": 1008})
            else:
                response = PlainTextResponse(_REFUSED.decode("ascii"), status_code=403,
                                             headers={"Cache-Control": "no-store"})
                await response(scope, receive, send)
            return
        cookie = _header(scope, b"cookie")
        if cookie is not None:
            cleaned, dropped = without_shadowed_cookies(cookie, (SESSION_COOKIE, NONCE_COOKIE))
            if dropped:
                headers = [(k, v) for k, v in scope["headers"] if k.lower() != b"cookie"]
                scope = {**scope, "headers": [*headers, (b"cookie", cleaned.encode("latin-1"))],
                         "corpus_shadowed_cookies": True}
        await self.app(scope, receive, send)


class LoginNonce:
    """Pure ASGI middleware: a page (an HTML response) sent to a browser without the pre-login nonce
    cookie sets one (random, HttpOnly, SameSite=Strict, Path=/), for ``bind_login_code``."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http" or scope.get("method") != "GET" \
                or NONCE_COOKIE in Request(scope).cookies:
            await self.app(scope, receive, send)
            return
        secure = scope.get("scheme") == "https" or NONCE_COOKIE.startswith("__Host-")

        async def send_with_nonce(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                kind = next((v for k, v in headers if k.lower() == b"content-type"), b"")
                if kind.startswith(b"text/html"):
                    cookie = SimpleCookie()
                    cookie[NONCE_COOKIE] = secrets.token_urlsafe(32)
                    cookie[NONCE_COOKIE].update({"path": "/", "httponly": True, "samesite": "Strict",
                                                 "secure": secure})
                    headers.append((b"set-cookie", cookie.output(header="").strip().encode("latin-1")))
                    message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_nonce)


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
