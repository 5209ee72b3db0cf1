"""Several app servers started together on one PostgreSQL database must not race the schema upgrade."""

import subprocess
import sys
from pathlib import Path

from sqlalchemy import create_engine, text

ROOT = Path(__file__).resolve().parents[2]
START = "import sys; from db.engine import make_engine; from db.schema import upgrade; upgrade(make_engine(sys.argv[1]))"


def test_servers_started_together_migrate_once_and_all_start(pg_url):
    from db.schema import script_head

    starts = [subprocess.Popen([sys.executable, "-c", START, pg_url], cwd=ROOT, stderr=subprocess.PIPE, text=True)
              for _ in range(3)]
    failures = [p.stderr.read() for p in starts if p.wait(timeout=180) != 0]
    assert failures == []
    engine = create_engine(pg_url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [script_head()]
        assert conn.execute(text("SELECT count(*) FROM projects")).scalar() == 1
    engine.dispose()


def test_a_start_between_anothers_schema_and_its_project_takes_that_project(postgres_engine):
    """The schema at head with no project yet: what a process starting just after another one's migration
    committed finds, before that one writes the project. Both write it; the second takes the first's."""
    from sqlalchemy import delete, event, func, select
    from sqlalchemy.orm import Session

    from db.models import Project
    from db.schema import DEFAULT_PROJECT, ensure_default_project

    with postgres_engine.begin() as conn:
        conn.execute(delete(Project.__table__))
    flushes, written_first = [], []

    def the_other_process_writes_it_first(session, flush_context, instances):
        flushes.append(session)
        if len(flushes) > 1:  # once: not again for the other's own flush
            return
        with Session(postgres_engine) as other:  # a connection of its own, committed: as another process's
            project = Project(name=DEFAULT_PROJECT)
            other.add(project)
            other.commit()
            written_first.append(project.id)

    event.listen(Session, "before_flush", the_other_process_writes_it_first)
    try:
        assert ensure_default_project(postgres_engine) == written_first[0]
    finally:
        event.remove(Session, "before_flush", the_other_process_writes_it_first)
    with Session(postgres_engine) as s:
        assert s.scalar(select(func.count()).select_from(Project)) == 1
