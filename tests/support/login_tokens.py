"""Login tokens for AppTest pages (a module, not conftest: two conftest modules would collide on import)."""

from __future__ import annotations


def session_token(engine, username: str) -> str:
    """A login token for ``username`` (what the login form creates), for AppTest and browser tests."""
    from sqlalchemy import select
    from sqlalchemy.orm import Session

    from db.auth import start_session
    from db.models import User

    with Session(engine) as s:
        user_id = s.scalars(select(User.id).where(User.username == username)).one()
    return start_session(engine, user_id)
