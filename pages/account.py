"""My account: change my own password (the current one is required). Every session of mine ends,
in every tab and browser; this browser is logged in again at once with the new password."""

from __future__ import annotations

import streamlit as st

from corpus.passwords import MIN_PASSWORD_LENGTH
from db.access import SessionEnded
from db.auth import change_password, issue_login_code
from ui.common import EVERYONE, get_engine, require_role
from ui.text import md_escape

user = require_role(*EVERYONE)
engine = get_engine()

st.title("My account")
st.text(f"Logged in as {user.username} ({', '.join(sorted(user.roles))})")

st.subheader("Change my password")
with st.form("account_password", clear_on_submit=True):
    old = st.text_input("Current password", type="password", key="account_old")
    new = st.text_input(f"New password (at least {MIN_PASSWORD_LENGTH} characters, not a common one)",
                        type="password", key="account_new")
    again = st.text_input("New password again", type="password", key="account_again")
    changed = st.form_submit_button("Change password", type="primary")
if changed:
    if new != again:
        st.error("The two new passwords differ.")
        st.stop()
    try:
        change_password(engine, user.id, old, new)
    except (ValueError, SessionEnded) as exc:
        st.error(md_escape(exc))
        st.stop()
    # Every session ended, this one too: a fresh one for this browser, as at a login.
    from ui.session_nav import open_session

    open_session(issue_login_code(engine, user.id))
    st.success("Password changed. Your other sessions are logged out.")
