"""Create or upgrade the schema with Alembic, and make sure the default project exists.

A database already at head costs two plain queries and imports neither Alembic nor the ORM and its models
(``db.models``): every command starts with this check, most of them before they map a row."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, column, create_engine, pool, select, table
from sqlalchemy.exc import DBAPIError

if TYPE_CHECKING:
    from alembic.config import Config
    from sqlalchemy.orm import Session

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
DEFAULT_PROJECT = "Hindi aspect extraction"
#: PostgreSQL advisory lock key that serialises schema upgrades between processes ("corpus-migrate").
MIGRATION_LOCK = 0x636F7270_6D69


def alembic_config(url: str) -> Config:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


_REVISION = re.compile(r"""^revision\s*=\s*['"]([^'"]+)['"]\s*$""", re.M)
_DOWN_REVISION = re.compile(r"""^down_revision\s*=\s*(?:None|['"]([^'"]+)['"])\s*$""", re.M)


def script_head() -> str | None:
    """The head revision of the migration scripts, read from their text (``revision = '...'``,
    ``down_revision = ...``); None when that is not one plain chain, and then Alembic decides."""
    revisions, parents = set(), set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        revision, down = _REVISION.findall(text), _DOWN_REVISION.findall(text)
        if len(revision) != 1 or len(down) != 1 or revision[0] in revisions:
            return None
        revisions.add(revision[0])
        parents.add(down[0])
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 and parents - {""} <= revisions else None


def at_head(engine: Engine) -> bool:
    """True when the database already stands at the scripts' head (one read, no Alembic import)."""
    return _current(engine) is not None


def _current(engine: Engine) -> bool | None:
    """None unless the database stands at the scripts' head; then whether it holds a project. One read-only
    connection (on SQLite a deferred BEGIN: never the write lock, so a command does not wait for another
    process's import to check the schema), plain SQL: no Alembic, no mapper set-up."""
    from db.engine import reader

    head = script_head()
    if head is None:
        return None
    try:
        with reader(engine).connect() as conn:
            if list(conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalars()) != [head]:
                return None
            return conn.exec_driver_sql("SELECT 1 FROM projects LIMIT 1").first() is not None
    except DBAPIError:  # no schema yet
        return None


def upgrade(engine: Engine) -> None:
    """Bring the schema to head. SQLite migrations use their own connection with foreign keys off.
    A database already at head with its project costs one read of two plain queries: Alembic (a fifth of
    a second of CPU to import and load the scripts) is only imported when there is something to migrate,
    and the project is written only when there is none."""
    current = _current(engine)
    if current is not None:
        if not current:
            ensure_default_project(engine)
        return
    from alembic import command

    url = engine.url.render_as_string(hide_password=False)
    cfg = alembic_config(url)
    migration_engine = create_engine(url, poolclass=pool.NullPool)
    with migration_engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("PRAGMA journal_mode=WAL")
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        elif conn.dialect.name == "postgresql":
            # Several app servers (and workers) may start together on one database: the first to take the
            # lock migrates, the others wait for it and then find the schema at head (Alembic reads it anew).
            conn.exec_driver_sql(f"SELECT pg_advisory_lock({MIGRATION_LOCK})")
            conn.commit()
        try:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
            conn.commit()
            ensure_default_project(engine)
        finally:
            if conn.dialect.name == "postgresql":
                conn.rollback()
                conn.exec_driver_sql(f"SELECT pg_advisory_unlock({MIGRATION_LOCK})")
                conn.commit()
    migration_engine.dispose()


#: The projects' table as far as the default project's id needs it (``db.models.Project``'s table).
PROJECTS = table("projects", column("id"))


def ensure_default_project(engine: Engine) -> int:
    """The first project's id, written if there is none. On PostgreSQL two starting processes can both find none:
    one that migrated writes the project after committing the schema, and one that starts in between finds the
    schema at head without taking the migration lock. The one whose insert the name's uniqueness refuses takes
    the other's project (a worker that started beside two servers died of it)."""
    from sqlalchemy.exc import IntegrityError
    from sqlalchemy.orm import Session

    from db.models import Project

    with Session(engine) as session:
        project = session.scalars(select(Project).order_by(Project.id)).first()
        if project is not None:
            return project.id
        project = Project(name=DEFAULT_PROJECT)
        session.add(project)
        try:
            session.commit()
        except IntegrityError:
            session.rollback()
            written = session.scalars(select(Project.id).order_by(Project.id)).first()
            if written is None:
                raise
            return written
        return project.id


def default_project(engine: Engine) -> int:
    """The project a single-project install works on (the first one), read without taking a write lock."""
    from db.engine import read

    return read(engine, default_project_id)


def default_project_id(session: Session | Connection) -> int:
    # a plain query by the table's name: no models, no mapper set-up for a command that maps no rows
    project_id = session.scalars(select(PROJECTS.c.id).order_by(PROJECTS.c.id).limit(1)).first()
    if project_id is None:
        raise RuntimeError("no project: run `python -m corpus init` first")
    return project_id
