"""Users (lead): create accounts, set roles, reset passwords, deactivate (their open work is reassigned)."""

from __future__ import annotations

import streamlit as st

from corpus.records import ROLES
from db.auth import create_user
from db.users import deactivate_user, list_users, reactivate_user, reset_password, set_roles
from pages._common import get_engine, require_role

user = require_role("lead")
engine = get_engine()

st.title("Users")
users = list_users(engine)
st.dataframe(
    [{"username": u.username, "name": u.display_name, "roles": ", ".join(u.roles), "active": u.active,
      "can log in": u.can_log_in, "locked out": u.locked} for u in users],
    hide_index=True, width="stretch",
)

st.subheader("New user")
with st.form("new_user", clear_on_submit=True):
    c1, c2 = st.columns(2)
    username = c1.text_input("Username")
    display = c2.text_input("Display name")
    roles = st.multiselect("Roles", ROLES, default=["translator"])
    password = st.text_input("Password (at least 8 characters; leave empty to set later)", type="password")
    created = st.form_submit_button("Create user", type="primary")
if created:
    try:
        create_user(engine, username, set(roles), password or None, display or None, actor_id=user.id)
    except ValueError as exc:
        st.error(str(exc))
    else:
        st.success(f"Created {username.strip()}.")
        st.rerun()

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
            st.error(str(exc))
        else:
            st.success("Roles saved.")
            st.rerun()

with st.form("password", clear_on_submit=True):
    new_password = st.text_input("New password", type="password")
    if st.form_submit_button("Reset password"):
        try:
            reset_password(engine, target.id, new_password, user.id)
        except ValueError as exc:
            st.error(str(exc))
        else:
            st.success(f"Password reset; {target.username}'s open sessions are logged out.")

if target.active:
    st.caption("Deactivating logs the user out everywhere and moves their unfinished translation tasks "
               "to other translators. Their submitted work stays.")
    if st.button(f"Deactivate {target.username}", key="users_deactivate", disabled=target.id == user.id):
        try:
            summary = deactivate_user(engine, target.id, user.id)
        except ValueError as exc:
            st.error(str(exc))
        else:
            st.success(f"Deactivated {target.username}. Reassigned work: {summary}.")
else:
    if st.button(f"Reactivate {target.username}", key="users_reactivate"):
        reactivate_user(engine, target.id, user.id)
        st.success(f"Reactivated {target.username}.")
