"""Users (lead): create accounts, set roles, reset passwords, deactivate (their open work is reassigned).

Resetting a password, changing roles and deactivating end every login session of that user; so does
the sessions' idle timeout, set at the bottom. User names are shown as text, never as Markdown.
"""

from __future__ import annotations

import streamlit as st

from corpus.passwords import MIN_PASSWORD_LENGTH
from corpus.records import ROLES
from db.auth import create_user, session_idle_hours, set_session_idle_hours
from db.users import deactivate_user, list_users, reactivate_user, reset_password, set_roles
from ui.common import get_engine, require_role
from ui.text import md_escape

user = require_role("lead")
engine = get_engine()

st.title("Users")
users = list_users(engine)
st.dataframe(
    [{"username": u.username, "name": u.display_name, "roles": ", ".join(u.roles), "active": u.active,
      "can log in": u.can_log_in, "failed logins (last hour)": u.recent_failures} for u in users],
    hide_index=True, width="stretch",
)

st.subheader("New user")
with st.form("new_user", clear_on_submit=True):
    c1, c2 = st.columns(2)
    username = c1.text_input("Username")
    display = c2.text_input("Display name")
    roles = st.multiselect("Roles", ROLES, default=["translator"])
    password = st.text_input(f"Password (at least {MIN_PASSWORD_LENGTH} characters, not a common one; "
                             "leave empty to set later)", type="password")
    created = st.form_submit_button("Create user", type="primary")
if created:
    try:
        create_user(engine, username, set(roles), password or None, display or None, actor_id=user.id)
    except ValueError as exc:
        st.error(md_escape(str(exc)))
    else:
        st.success(f"Created {md_escape(username.strip())}.")
        st.rerun()

with st.expander("Login sessions"):
    with st.form("sessions"):
        idle = st.number_input("Log out after this many hours without use", min_value=0.25, max_value=168.0,
                               value=float(session_idle_hours(engine)), step=0.5, key="users_idle_hours",
                               help="A login also ends after 7 days, at logout, and when a password or the "
                                    "user's roles change.")
        if st.form_submit_button("Save idle timeout"):
            try:
                set_session_idle_hours(engine, idle, user.id)
            except ValueError as exc:
                st.error(md_escape(str(exc)))
            else:
                st.success("Saved.")

st.subheader("Change a user")
by_id = {u.id: u for u in users}
chosen = st.selectbox("User", list(by_id), format_func=lambda i: by_id[i].username, index=None,
                      key="users_pick", placeholder="Choose a user")
if chosen is None:
    st.stop()
target = by_id[chosen]

with st.form("roles"):
    new_roles = st.multiselect("Roles", ROLES, default=list(target.roles))
    if st.form_submit_button("Save roles"):
        try:
            set_roles(engine, target.id, new_roles, user.id)
        except ValueError as exc:
            st.error(md_escape(str(exc)))
        else:
            st.success("Roles saved; the user's open sessions are logged out.")
            st.rerun()

with st.form("password", clear_on_submit=True):
    new_password = st.text_input("New password", type="password")
    if st.form_submit_button("Reset password"):
        try:
            reset_password(engine, target.id, new_password, user.id)
        except ValueError as exc:
            st.error(md_escape(str(exc)))
        else:
            st.success(f"Password reset; {md_escape(target.username)}'s open sessions are logged out.")

if target.active:
    st.caption("Deactivating logs the user out everywhere and moves their unfinished translation tasks "
               "to other translators. Their submitted work stays.")
    if st.button(f"Deactivate {md_escape(target.username)}", key="users_deactivate", disabled=target.id == user.id):
        try:
            summary = deactivate_user(engine, target.id, user.id)
        except ValueError as exc:
            st.error(md_escape(str(exc)))
        else:
            st.success(f"Deactivated {md_escape(target.username)}. Reassigned work: {md_escape(summary)}.")
else:
    if st.button(f"Reactivate {md_escape(target.username)}", key="users_reactivate"):
        reactivate_user(engine, target.id, user.id)
        st.success(f"Reactivated {md_escape(target.username)}.")
