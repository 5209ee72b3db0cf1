"""What every page shares: the engine, the logged-in user, and the role check.

Pages call ``require_role`` first: navigation hides pages a role may not use, and this check
stops a direct URL or a stale session from reaching them anyway.
"""

from __future__ import annotations

import streamlit as st
from sqlalchemy import Engine

from db.auth import CurrentUser, resume_session
from db.engine import default_url, make_engine, reader
from db.schema import upgrade

SESSION_PARAM = "session"
LEAD = ("lead",)

# The router's page table, here so tests can check every page against every role.
# (file, title, icon, roles that may open it, section)
PAGES = [
    ("pages/home.py", "Home", ":material/home:", ("translator", "annotator", "lead"), "Work"),
    ("pages/translate.py", "Translate", ":material/translate:", ("translator",), "Work"),
    ("pages/tag.py", "Tag aspects", ":material/label:", ("annotator",), "Work"),
    ("pages/dashboard.py", "Dashboard", ":material/monitoring:", LEAD, "Lead"),
    ("pages/assign.py", "Assignments", ":material/assignment_ind:", LEAD, "Lead"),
    ("pages/adjudicate.py", "Adjudication", ":material/gavel:", LEAD, "Lead"),
    ("pages/final.py", "Final translations", ":material/done_all:", LEAD, "Lead"),
    ("pages/export.py", "Export", ":material/download:", LEAD, "Lead"),
    ("pages/dataset_check.py", "Dataset check", ":material/model_training:", LEAD, "Lead"),
    ("pages/import_semeval.py", "Import", ":material/upload:", LEAD, "Corpus"),
    ("pages/sentences.py", "Sentences", ":material/list:", LEAD, "Corpus"),
    ("pages/statistics.py", "Statistics", ":material/table_chart:", LEAD, "Corpus"),
    ("pages/audit.py", "Audit a dataset", ":material/fact_check:", LEAD, "Corpus"),
    ("pages/users.py", "Users", ":material/group:", LEAD, "Admin"),
    ("pages/settings.py", "Project settings", ":material/settings:", LEAD, "Admin"),
    ("pages/backup.py", "Backup", ":material/backup:", LEAD, "Admin"),
]


@st.cache_resource(show_spinner=False)
def _engine_for(url: str) -> Engine:
    engine = make_engine(url)
    upgrade(engine)
    return engine


def get_engine() -> Engine:
    return _engine_for(default_url())


def current_user() -> CurrentUser | None:
    """The user of this browser session, re-checked against the database on every run so a
    deactivated user or a reset password logs the session out at once."""
    token = st.session_state.get("session_token") or st.query_params.get(SESSION_PARAM)
    user = resume_session(get_engine(), token)
    if user is None:
        st.session_state.pop("session_token", None)
        st.session_state.pop("user", None)
        if SESSION_PARAM in st.query_params:
            del st.query_params[SESSION_PARAM]
        return None
    st.session_state["session_token"] = token
    st.session_state["user"] = user
    if st.query_params.get(SESSION_PARAM) != token:
        st.query_params[SESSION_PARAM] = token
    return user


def client_address() -> str | None:
    """The browser's address, for throttling failed logins per client; None on localhost or when unknown."""
    address = st.context.ip_address
    return address if isinstance(address, str) else None


def require_role(*roles: str) -> CurrentUser:
    user = current_user()
    if user is None:
        st.warning("Please log in.")
        st.stop()
    if not user.has(*roles):
        st.error("You do not have access to this page.")
        st.stop()
    return user


def project_id() -> int:
    from sqlalchemy.orm import Session

    from db.schema import default_project_id

    with Session(reader(get_engine())) as session:
        return default_project_id(session)
