"""Sends the browser to the session cookie's routes (``ui/auth_routes.py``) from a page script.

Streamlit cannot set or clear a cookie over its websocket, so after the login form has checked the
password the browser itself must open ``/auth/session?code=...`` (replacing the history entry, so the
one-use code is not kept), and logging out must POST to ``/auth/logout``. Logging out also forgets
the text this browser kept for unsaved work (``ui/translation_editor.py``), so the next person at this
browser does not find it.
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from ui.auth_routes import LOGOUT_PATH, NONCE_COOKIE, SESSION_PATH, bind_login_code
from ui.components import bundle

KEPT_TEXT_PREFIX = "corpus-tool:unsaved-text:"

_JS = bundle("session_nav/index.js")  # ui/components/session_nav/index.js

_component = st.components.v2.component("corpus_tool_session_nav", js=_JS)


def login_nonce() -> str | None:
    """The pre-login nonce cookie this page was loaded with (set by ``ui.auth_routes.LoginNonce``)."""
    nonce = st.context.cookies.get(NONCE_COOKIE)
    return nonce if isinstance(nonce, str) and nonce else None  # (AppTest's stand-in answers with a mock)


def open_session(code: str) -> bool:
    """Trade a login code for the session cookie (the page reloads at ``/``). The code travels masked with
    this browser's pre-login nonce cookie, which ``/auth/session`` needs to unmask it; False (and nothing
    sent) when the page was loaded without that cookie."""
    nonce = login_nonce()
    if nonce is None:
        return False
    bound = bind_login_code(code, nonce)
    _component(key="session_nav_login", data={"method": "GET", "url": f"{SESSION_PATH}?{urlencode({'code': bound})}",
                                              "forget_kept_text": ""})
    return True


def close_session() -> None:
    """Clear the session cookie and the kept unsaved text (the page reloads at ``/``, logged out)."""
    _component(key="session_nav_logout", data={"method": "POST", "url": LOGOUT_PATH,
                                               "forget_kept_text": KEPT_TEXT_PREFIX})
