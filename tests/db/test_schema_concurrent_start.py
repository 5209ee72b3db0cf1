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
