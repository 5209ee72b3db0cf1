"""`python -m corpus init --demo` never joins the demo (and its published passwords) to a real project."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from db.auth import create_user
from db.engine import make_engine
from db.models import User
from db.schema import upgrade

ROOT = Path(__file__).resolve().parents[2]


def init(url: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "corpus", "init", *flags], cwd=ROOT, capture_output=True,
                          text=True, env={**os.environ, "DATABASE_URL": url}, timeout=300)


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
