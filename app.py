"""Router: login, then the pages the user's roles allow (st.navigation).

``streamlit run app.py`` finds the ``st.App`` below and serves this same file as the script, next to
the small JSON routes of ``pages/_api.py`` (typing suggestions that must not rerun the script).
Streamlit runs the script as ``__main__``; the server imports this module under its own name.
"""

from __future__ import annotations

import sys
from pathlib import Path

import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parent))

from db.auth import LoginFailed, authenticate, end_session, start_session  # noqa: E402
from pages._common import PAGES, SESSION_PARAM, client_address, current_user, get_engine  # noqa: E402

HERE = Path(__file__).resolve().parent


def login_page() -> None:
    st.title("Hindi aspect corpus")
    st.caption("Translate SemEval-2014 reviews into Hindi, tag aspect terms, and measure agreement.")
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
        token = start_session(get_engine(), user.id)
        st.session_state["session_token"] = token
        st.session_state["user"] = user
        st.query_params[SESSION_PARAM] = token
        st.rerun()


def logout() -> None:
    end_session(get_engine(), st.session_state.get("session_token"))
    for key in ("session_token", "user"):
        st.session_state.pop(key, None)
    st.query_params.clear()
    st.rerun()


def main() -> None:
    st.set_page_config(page_title="Hindi review corpus", page_icon=":material/translate:", layout="wide")
    user = current_user()
    if user is None:
        st.navigation([st.Page(login_page, title="Log in", icon=":material/login:")]).run()
        return
    sections: dict[str, list] = {}
    for file, title, icon, roles, section in PAGES:
        if user.has(*roles) and (HERE / file).exists():
            sections.setdefault(section, []).append(st.Page(file, title=title, icon=icon))
    with st.sidebar:
        st.write(f"**{user.display_name}** · {', '.join(sorted(user.roles))}")
        if st.button("Log out", key="logout"):
            logout()
    st.navigation(sections).run()


if __name__ == "__main__":
    main()
else:
    from pages._api import ROUTES  # noqa: E402

    app = st.App(__file__, routes=ROUTES)
