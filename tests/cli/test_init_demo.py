"""`python -m corpus init --demo` never joins the demo (and its published passwords) to a real project. The
command runs in this process, on DATABASE_URL as the README's Quickstart gives it."""

from __future__ import annotations

import hashlib
import io
from contextlib import redirect_stderr, redirect_stdout
from types import SimpleNamespace

import pytest

from sqlalchemy import select
from sqlalchemy.orm import Session

from db.users import create_user
from db.engine import make_engine
from db.models import User
from cli import main
from db.schema import upgrade


def init(url: str, *flags: str) -> SimpleNamespace:
    """What `DATABASE_URL=URL python -m corpus init FLAGS` returns and prints."""
    out, err = io.StringIO(), io.StringIO()
    with pytest.MonkeyPatch.context() as env, redirect_stdout(out), redirect_stderr(err):
        env.setenv("DATABASE_URL", url)
        code = main(["init", *flags])
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def test_init_demo_on_a_database_with_a_project_exits_non_zero_and_changes_nothing(tmp_path):
    path = tmp_path / "real.db"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    create_user(engine, "admin", {"lead"}, None)  # a real team's password-less admin
    engine.dispose()
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    result = init(f"sqlite:///{path}", "--demo")
    assert result.returncode != 0 and "refused" in result.stderr
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def test_force_demo_adds_the_demo_but_never_changes_an_existing_account(tmp_path):
    url = f"sqlite:///{tmp_path / 'real.db'}"
    engine = make_engine(url)
    upgrade(engine)
    create_user(engine, "admin", {"lead"}, None)
    result = init(url, "--force-demo")
    assert result.returncode == 0, result.stderr
    with Session(engine) as s:
        admin = s.scalars(select(User).where(User.username == "admin")).one()
        assert admin.password_hash is None and admin.role_names == {"lead"}
        assert s.scalars(select(User).where(User.username == "asha")).one().password_hash
    engine.dispose()


def test_init_demo_on_a_new_database_loads_it(tmp_path):
    result = init(f"sqlite:///{tmp_path / 'new.db'}", "--demo")
    assert result.returncode == 0 and "demo project loaded" in result.stdout
