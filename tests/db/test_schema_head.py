"""`db.schema.upgrade` skips Alembic when the database already stands at head: the head it reads from the
migration scripts' text must be Alembic's own, and a database behind it must still be migrated."""

from __future__ import annotations

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import inspect

from db.engine import make_engine
from db.schema import alembic_config, at_head, script_head, upgrade


def test_the_head_read_from_the_scripts_is_alembics_head():
    assert [script_head()] == ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads()


def test_a_database_at_head_is_not_handed_to_alembic(engine, monkeypatch):
    assert at_head(engine)

    def refuse(*args, **kwargs):
        raise AssertionError("Alembic ran on a database already at head")

    monkeypatch.setattr(command, "upgrade", refuse)
    upgrade(engine)


def test_an_empty_database_and_one_behind_head_are_migrated(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'new.db'}")
    assert not at_head(engine)
    upgrade(engine)
    assert at_head(engine) and "suggestion_models" in inspect(engine).get_table_names()

    cfg = alembic_config(engine.url.render_as_string(hide_password=False))
    with engine.connect() as conn:  # as upgrade hands Alembic its connection
        conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "-1")
        conn.commit()
    assert not at_head(engine)
    upgrade(engine)
    assert at_head(engine)
    engine.dispose()


@pytest.mark.parametrize("down", ["None", "'0001'"])
def test_scripts_that_are_not_one_plain_chain_leave_the_decision_to_alembic(tmp_path, monkeypatch, down):
    import db.schema

    versions = tmp_path / "versions"
    versions.mkdir()
    (versions / "a.py").write_text("revision = '0001'\ndown_revision = None\n", encoding="utf-8")
    (versions / "b.py").write_text(f"revision = '0002'\ndown_revision = {down}\n", encoding="utf-8")
    monkeypatch.setattr(db.schema, "MIGRATIONS", tmp_path)
    assert script_head() == (None if down == "None" else "0002")  # two roots: two heads
    (versions / "c.py").write_text("revision = '0003'\ndown_revision = '0002'\n", encoding="utf-8")
    (versions / "d.py").write_text("revision = '0004'\ndown_revision = '0002'\n", encoding="utf-8")
    assert script_head() is None  # a branch
