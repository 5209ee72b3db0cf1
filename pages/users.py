"""Users (admin): create accounts, set roles, reset passwords, deactivate (their open work is reassigned).

Every change is confirmed after the rerun it causes (a message kept in session state), a refused one
keeps what was typed, and deactivating asks first and says how many open tasks will move. Resetting a
password, changing roles and deactivating end every login session of that user; so does the sessions'
idle timeout, set at the bottom. User names are shown as text, never as Markdown.
"""

from __future__ import annotations

import streamlit as st

from corpus.passwords import MIN_PASSWORD_LENGTH
from corpus.records import ROLES
from corpus.vocabulary import Role
from db.auth import session_idle_hours, set_session_idle_hours
from db.users import create_account, list_users, open_work, reactivate_user, reset_password, set_roles
from db.workflows import deactivate_user
from ui.common import ADMIN, get_engine, require_role
from ui.text import md_escape

user = require_role(*ADMIN)
engine = get_engine()
FLASH = "users_flash"  # section -> (kind, message), shown once after the rerun
CONFIRM = "users_confirm_deactivate"  # the user id whose deactivation waits for a yes


def _flash(section: str, kind: str, message: str) -> None:
    st.session_state.setdefault(FLASH, {})[section] = (kind, message)


def _show_flash(section: str) -> None:
    kind, message = st.session_state.get(FLASH, {}).pop(section, (None, None))
    if kind:
        getattr(st, kind)(message)


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def on_create() -> None:
    state = st.session_state
    username = state.get("new_username", "")
    try:
        create_account(engine, username, set(state.get("new_roles", [])), state.get("new_password") or None,
                       state.get("new_display") or None, actor_id=user.id)
    except ValueError as exc:  # the form keeps what was typed
        _flash("new", "error", md_escape(str(exc)))
        return
    _flash("new", "success", f"Created {md_escape(username.strip())}.")
    for key, empty in (("new_username", ""), ("new_display", ""), ("new_password", ""),
                       ("new_roles", [str(Role.TRANSLATOR)])):
        state[key] = empty


def on_save_roles(target_id: int, name: str) -> None:
    try:
        set_roles(engine, target_id, st.session_state.get(f"users_roles_{target_id}", []), user.id)
    except ValueError as exc:
        _flash("change", "error", md_escape(str(exc)))
    else:
        _flash("change", "success", f"Roles of {md_escape(name)} saved; their open sessions are logged out.")


def on_reset_password(target_id: int, name: str) -> None:
    key = f"users_password_{target_id}"
    try:
        reset_password(engine, target_id, st.session_state.get(key, ""), user.id)
    except ValueError as exc:
        _flash("change", "error", md_escape(str(exc)))
    else:
        st.session_state[key] = ""
        _flash("change", "success", f"Password reset; {md_escape(name)}'s open sessions are logged out.")


def on_ask_deactivate(target_id: int) -> None:
    st.session_state[CONFIRM] = target_id


def on_cancel_deactivate() -> None:
    st.session_state.pop(CONFIRM, None)


def on_deactivate(target_id: int, name: str) -> None:
    st.session_state.pop(CONFIRM, None)
    try:
        summary = deactivate_user(engine, target_id, user.id)
    except ValueError as exc:
        _flash("change", "error", md_escape(str(exc)))
    else:
        _flash("change", "success", f"Deactivated {md_escape(name)}. Reassigned work: {md_escape(summary)}.")


def on_reactivate(target_id: int, name: str) -> None:
    try:
        reactivate_user(engine, target_id, user.id)
    except ValueError as exc:
        _flash("change", "error", md_escape(str(exc)))
    else:
        _flash("change", "success", f"Reactivated {md_escape(name)}.")


st.title("Users")
users = list_users(engine)
st.dataframe(
    [{"username": u.username, "name": u.display_name, "roles": ", ".join(u.roles), "active": u.active,
      "can log in": u.can_log_in, "failed logins (last hour)": u.recent_failures} for u in users],
    hide_index=True, width="stretch",
)

st.subheader("New user")
st.session_state.setdefault("new_roles", [str(Role.TRANSLATOR)])
with st.form("new_user"):
    c1, c2 = st.columns(2)
    c1.text_input("Username", key="new_username")
    c2.text_input("Display name", key="new_display")
    st.multiselect("Roles", ROLES, key="new_roles",
                   help="admin: users, backups and project settings; lead: the project's work.")
    st.text_input(f"Password (at least {MIN_PASSWORD_LENGTH} characters, not a common one; "
                  "leave empty to set later)", type="password", key="new_password")
    st.form_submit_button("Create user", type="primary", on_click=on_create)
_show_flash("new")

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
_show_flash("change")
if chosen is None:
    st.stop()
target = by_id[chosen]
name = target.username

with st.form(f"roles_{target.id}"):
    st.multiselect("Roles", ROLES, default=list(target.roles), key=f"users_roles_{target.id}")
    st.form_submit_button("Save roles", on_click=on_save_roles, args=(target.id, name))

with st.form(f"password_{target.id}"):
    st.text_input("New password", type="password", key=f"users_password_{target.id}")
    st.form_submit_button("Reset password", on_click=on_reset_password, args=(target.id, name))

if not target.active:
    st.button(f"Reactivate {md_escape(name)}", key="users_reactivate", on_click=on_reactivate, args=(target.id, name))
elif st.session_state.get(CONFIRM) == target.id:
    work = open_work(engine, target.id)
    st.warning(
        f"Deactivate {md_escape(name)}? They are logged out everywhere and can no longer log in. "
        f"{_plural(work.translation, 'open translation task', 'open translation tasks')} and "
        f"{_plural(work.tagging, 'open tagging task', 'open tagging tasks')} move to other people; "
        "their submitted work stays."
    )
    yes, no = st.columns(2)
    yes.button(f"Yes, deactivate {md_escape(name)}", key="users_deactivate_yes", type="primary", on_click=on_deactivate,
               args=(target.id, name))
    no.button("Cancel", key="users_deactivate_cancel", on_click=on_cancel_deactivate)
else:
    st.button(f"Deactivate {md_escape(name)}…", key="users_deactivate", disabled=target.id == user.id,
              on_click=on_ask_deactivate, args=(target.id,),
              help="Asks first, and says how many open tasks would move to others.")
