"""What every page shares: the engine, the logged-in user, and the role check.

Pages call ``require_role`` first: navigation hides pages a role may not use, and this check
stops a direct URL or a stale session from reaching them anyway.

The login session travels only in the HttpOnly cookie ``corpus_session`` (set by ``/auth/session``,
see ``ui/auth_routes.py``); a URL never logs anyone in. Every save re-checks this browser's
session in its own transaction: the service layer reads the token through ``_token_of_this_run``.
"""

from __future__ import annotations

import streamlit as st
from sqlalchemy import Engine

from corpus.vocabulary import Role
from db.access import SESSION_ENDED, read_session_tokens_from
from db.auth import CurrentUser, resume_session
from db.engine import default_url, make_engine
from db.schema import upgrade
from ui.auth_routes import SESSION_COOKIE
from ui.jobs import start_app_runner

# Server-side state only (never set by the app from anything a browser sends): AppTest cannot send
# cookies, so page tests put a token here.
TEST_TOKEN_STATE = "session_token"
OLD_URL_PARAM = "session"  # the URL token of earlier versions: ignored, and removed from the address bar
LEAD = (Role.LEAD,)
ADMIN = (Role.ADMIN,)
EVERYONE = tuple(Role)

# The router's page table, here so tests can check every page against every role. A page opens for
# exactly the roles listed (an admin is no lead unless given the lead role too), and each page's
# ``require_role`` call names the same roles.
# (file, title, icon, roles that may open it, section)
PAGES = [
    ("pages/home.py", "Home", ":material/home:", EVERYONE, "Work"),
    ("pages/translate.py", "Translate", ":material/translate:", (Role.TRANSLATOR,), "Work"),
    ("pages/tag.py", "Tag aspects", ":material/label:", (Role.ANNOTATOR,), "Work"),
    ("pages/dashboard.py", "Dashboard", ":material/monitoring:", LEAD, "Lead"),
    ("pages/assign.py", "Assignments", ":material/assignment_ind:", LEAD, "Lead"),
    ("pages/adjudicate.py", "Adjudication", ":material/gavel:", LEAD, "Lead"),
    ("pages/final.py", "Final translations", ":material/done_all:", LEAD, "Lead"),
    ("pages/reopen.py", "Reopen requests", ":material/lock_open:", LEAD, "Lead"),
    ("pages/export.py", "Export", ":material/download:", LEAD, "Lead"),
    ("pages/dataset_check.py", "Dataset check", ":material/model_training:", LEAD, "Lead"),
    ("pages/import_semeval.py", "Import", ":material/upload:", LEAD, "Corpus"),
    ("pages/sentences.py", "Sentences", ":material/list:", LEAD, "Corpus"),
    ("pages/statistics.py", "Statistics", ":material/table_chart:", LEAD, "Corpus"),
    ("pages/audit.py", "Audit a dataset", ":material/fact_check:", LEAD, "Corpus"),
    ("pages/users.py", "Users", ":material/group:", ADMIN, "Admin"),
    ("pages/settings.py", "Project settings", ":material/settings:", ADMIN, "Admin"),
    ("pages/backup.py", "Backup", ":material/backup:", ADMIN, "Admin"),
    ("pages/account.py", "My account", ":material/key:", EVERYONE, "Account"),
]


def may_open(roles: frozenset[str] | set[str], page_roles: tuple[str, ...]) -> bool:
    """A person opens a page when one of their roles is one the page is for (no role implies another)."""
    return bool(set(roles) & set(page_roles))


def pages_for(roles: frozenset[str] | set[str]) -> list[tuple]:
    """The rows of ``PAGES`` a person with ``roles`` may open, in the table's order."""
    return [row for row in PAGES if may_open(roles, row[3])]


@st.cache_resource(show_spinner=False)
def _engine_for(url: str) -> Engine:
    engine = make_engine(url)
    upgrade(engine)
    start_app_runner(engine)  # an app server runs jobs too, unless CORPUS_APP_RUNS_JOBS=0 (ui/jobs.py)
    return engine


def get_engine() -> Engine:
    return _engine_for(default_url())


def session_token() -> str | None:
    """This browser's session token: the cookie its page was loaded with."""
    for token in (st.context.cookies.get(SESSION_COOKIE), st.session_state.get(TEST_TOKEN_STATE)):
        if isinstance(token, str) and token:  # (AppTest's stand-in client answers with a mock)
            return token
    return None


def _token_of_this_run() -> str | None:
    """For the service layer's save checks: None outside a page run, else this browser's token ("" if none)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    if get_script_run_ctx(suppress_warning=True) is None:
        return None
    return session_token() or ""


read_session_tokens_from(_token_of_this_run)


def current_user() -> CurrentUser | None:
    """The user of this browser session, re-checked against the database on every run so a
    logout in another tab, a password change or reset, or a deactivation ends it at once."""
    if OLD_URL_PARAM in st.query_params:
        del st.query_params[OLD_URL_PARAM]
    token = session_token()
    user = resume_session(get_engine(), token)
    if user is None:
        if token and "user" in st.session_state:
            st.session_state["session_ended"] = True  # the login form says why
            ended = st.session_state["user"]  # whose kept text this browser may hold (N10)
            st.session_state["ended_user_id"] = ended.id
            st.session_state["ended_user_name"] = ended.username
            st.session_state.pop("kept_text_choice", None)
        st.session_state.pop("user", None)
        return None
    st.session_state["user"] = user
    for key in ("ended_user_id", "ended_user_name", "kept_text_choice"):  # logged in again: nothing to ask
        st.session_state.pop(key, None)
    return user


def client_address() -> str | None:
    """The browser's address, for throttling failed logins per client; None on this machine or when
    unknown. Behind a reverse proxy it is the proxy's, unless the proxy is listed in
    CORPUS_TRUSTED_PROXIES (then the server reads X-Forwarded-For from it; see SECURITY.md)."""
    address = st.context.ip_address
    return address if isinstance(address, str) else None


def require_role(*roles: str) -> CurrentUser:
    user = current_user()
    if user is None:  # a click in a tab whose session ended elsewhere was refused by its service: say why
        st.warning(SESSION_ENDED if st.session_state.get("session_ended") else "Please log in.")
        if st.session_state.get("session_ended"):
            from ui.translation_editor import kept_text_question

            kept_text_question()  # discard this browser's kept copies of unsaved text, or keep them
        st.stop()
    if not may_open(user.roles, roles):
        st.error("You do not have access to this page.")
        st.stop()
    return user


def project_id() -> int:
    from db.schema import default_project

    return default_project(get_engine())
