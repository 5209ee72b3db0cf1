"""Router: login, then the pages the user's roles allow (st.navigation).

``streamlit run app.py`` finds the ``st.App`` below and serves this same file as the script, next to
the small routes of ``ui/api_routes.py`` (typing suggestions that must not rerun the script) and of
``ui/auth_routes.py`` (the session cookie), behind the security-headers middleware.
Streamlit runs the script as ``__main__``; the server imports this module under its own name.
"""

from __future__ import annotations

import logging
import os
import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from db.auth import LoginFailed, authenticate, end_session, issue_login_code  # noqa: E402
from ui.common import (  # noqa: E402
    TEST_TOKEN_STATE,
    client_address,
    current_user,
    get_engine,
    pages_for,
    session_token,
)

HERE = Path(__file__).resolve().parent
ENDED = "Your session ended (logged out, password changed, or account changed by an admin); log in again."


def login_page() -> None:
    st.title("Hindi aspect corpus")
    st.caption("Translate SemEval-2014 reviews into Hindi, tag aspect terms, and measure agreement.")
    if st.session_state.pop("logging_out", False):
        from ui.session_nav import close_session

        close_session()
        st.caption("Logging out…")
        return
    if st.session_state.pop("session_ended", False):
        st.warning(ENDED)
    from ui.translation_editor import kept_text_question

    kept_text_question()  # N10: this browser's kept copies of the ended session's unsaved text: discard or keep
    with st.form("login"):
        username = st.text_input("Username", key="login_username")
        password = st.text_input("Password", type="password", key="login_password")
        submitted = st.form_submit_button("Log in", type="primary")
    if submitted:
        try:
            user = authenticate(get_engine(), username, password, client=client_address())
        except LoginFailed as exc:
            st.error(str(exc))
            return
        from ui.session_nav import login_nonce, open_session

        if login_nonce() is None:
            st.error("This browser did not send back the cookie this page set: allow cookies for this site, "
                     "reload the page and log in again.")
            return
        # The browser trades this one-use code (masked with its own pre-login nonce cookie, so no other
        # browser can use it) for the HttpOnly session cookie and reloads at /.
        open_session(issue_login_code(get_engine(), user.id))
        st.caption("Logging in…")


def logout() -> None:
    end_session(get_engine(), session_token())
    for key in (TEST_TOKEN_STATE, "user"):
        st.session_state.pop(key, None)
    st.session_state["logging_out"] = True
    st.rerun()


def main() -> None:
    # An emoji icon: a Material icon as favicon would be fetched from a third-party host.
    st.set_page_config(page_title="Hindi review corpus", page_icon="📝", layout="wide")
    user = current_user()
    if user is None:
        st.navigation([st.Page(login_page, title="Log in", icon=":material/login:")]).run()
        return
    sections: dict[str, list] = {}
    for file, title, icon, _, section in pages_for(user.roles):
        if (HERE / file).exists():
            sections.setdefault(section, []).append(st.Page(file, title=title, icon=icon))
    with st.sidebar:
        st.text(f"{user.display_name} · {', '.join(sorted(user.roles))}")
        if st.button("Log out", key="logout"):
            logout()
    # Every page the person may open stays listed (a collapsed list hid the admin's pages behind "View more").
    st.navigation(sections, expanded=True).run()


def show_error_without_details(exc: Exception) -> bool:
    """A visitor sees a message, never a traceback; the traceback goes to the server's log."""
    logging.getLogger("corpus").error("page error", exc_info=exc)
    st.error("Something went wrong on this page. Reload it; if it happens again, tell your lead "
             "(the details are in the server's log).")
    return True


if __name__ == "__main__":
    main()
else:
    from starlette.middleware import Middleware  # noqa: E402
    from streamlit.runtime.pages_manager import PagesManager  # noqa: E402

    # The pages live in pages/, the folder Streamlit's first multipage version serves by itself until a run
    # of this router calls st.navigation: a fresh server's first request on a deep link (/tag) would run
    # pages/tag.py alone, with every file listed in the sidebar and no Log out. This router is the only way
    # in, from the first request on.
    PagesManager.uses_pages_directory = False

    from ui.api_routes import ROUTES  # noqa: E402
    from ui.auth_routes import (  # noqa: E402
        AUTH_ROUTES,
        LoginNonce,
        OriginGuard,
        SecurityHeaders,
        trust_only_configured_proxies,
    )

    # X-Forwarded-For / X-Forwarded-Proto count only from CORPUS_TRUSTED_PROXIES (none by default).
    trust_only_configured_proxies(os.environ)

    # OriginGuard first: a websocket or a route request from another origin (another port of this host
    # included) is refused before anything reads it (SECURITY.md, N1).
    from ui.downloads import DOWNLOAD_ROUTES  # noqa: E402

    app = st.App(__file__, routes=ROUTES + AUTH_ROUTES + DOWNLOAD_ROUTES,
                 middleware=[Middleware(OriginGuard), Middleware(LoginNonce), Middleware(SecurityHeaders)],
                 on_script_error=show_error_without_details)
    from ui.jobs import serve_jobs_here  # noqa: E402

    serve_jobs_here()  # background jobs run in this server too, unless CORPUS_APP_RUNS_JOBS=0 (db/jobs.py)
    from ui.warmup import preload_in_background  # noqa: E402

    preload_in_background(Path(__file__).resolve().parent / "pages")
