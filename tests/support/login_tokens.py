"""Login tokens for AppTest pages and browser tests (a module, not conftest: two conftest modules would
collide on import)."""

from __future__ import annotations


def login_token(engine, user: int | str) -> str:
    """A live login of ``user`` (an id or a username), as the login form makes it."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from db.auth import start_session
    from db.models import User

    if isinstance(user, str):
        with Session(engine) as s:
            user = s.scalars(select(User.id).where(User.username == user)).one()
    return start_session(engine, user)


def session_token(engine, username: str) -> str:
    """A login token for ``username`` (what the login form creates), for AppTest and browser tests."""
    return login_token(engine, username)
