"""PostgreSQL test databases, reused between tests of one worker.

``CREATE DATABASE ... TEMPLATE`` costs the server about 0.3 s of CPU per test (PostgreSQL 15 WAL-logs every
block of the template, its catalogs included); giving a finished test's database the template's rows back
costs about 20 ms. So a finished test's database is renamed first (nothing that still holds its old name,
a leftover connection, thread or cache keyed by the URL, can reach it again), then checked to hold exactly the
template's schema, emptied and given the template's rows and sequence positions back, all in one transaction.
Anything unexpected on the way, and it is dropped instead, as every database was before.
"""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import Future, ThreadPoolExecutor

import psycopg

#: Everything a test could change in a database's schema, as one checksum.
_SCHEMA_FINGERPRINT = """
SELECT md5(string_agg(item, E'\\n' ORDER BY item)) FROM (
    SELECT 'namespace ' || nspname AS item FROM pg_namespace
    WHERE nspname NOT LIKE 'pg_temp%' AND nspname NOT LIKE 'pg_toast_temp%'
  UNION ALL SELECT 'relation ' || n.nspname || '.' || c.relname || ' ' || c.relkind::text
    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
    WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND c.relpersistence <> 't'
  UNION ALL SELECT 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
                   || ' ' || a.attnotnull || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), '')
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = 'public'::regnamespace AND a.attnum > 0 AND NOT a.attisdropped
  UNION ALL SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid)
    FROM pg_constraint WHERE connamespace = 'public'::regnamespace
  UNION ALL SELECT 'index ' || pg_get_indexdef(indexrelid)
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE c.relnamespace = 'public'::regnamespace
  UNION ALL SELECT 'function ' || oid::regprocedure::text FROM pg_proc WHERE pronamespace = 'public'::regnamespace
  UNION ALL SELECT 'trigger ' || tgrelid::regclass::text || ' ' || tgname FROM pg_trigger WHERE NOT tgisinternal
  UNION ALL SELECT 'type ' || typname FROM pg_type WHERE typnamespace = 'public'::regnamespace
  UNION ALL SELECT 'extension ' || extname FROM pg_extension
) AS everything
"""


class SchemaChanged(Exception):
    """The test changed the schema: its database is dropped, not reused."""


class PostgresDatabases:
    """Copies of one migrated template for one pytest worker: ``take`` one, ``give_back`` it when done."""

    def __init__(self, admin_url: str, template: str):
        self._admin = admin_url.replace("+psycopg", "")
        self._base = admin_url.rsplit("/", 1)[0]
        self._template = template
        self._free: list[str] = []
        self._lock = threading.Lock()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recycle-test-db")
        self._pending: list[Future] = []
        self._fingerprint, self._tables, self._rows, self._sequences = self._snapshot(template)

    def _plain(self, name: str) -> str:
        return f"{self._base}/{name}".replace("+psycopg", "")

    def _snapshot(self, name: str) -> tuple[str, list[str], dict[str, list[str]], dict[str, tuple[int, bool]]]:
        with psycopg.connect(self._plain(name), autocommit=True) as conn:
            fingerprint = conn.execute(_SCHEMA_FINGERPRINT).fetchone()[0]
            tables = [r[0] for r in conn.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
            rows = {t: [r[0] for r in conn.execute(f'SELECT row_to_json(t)::text FROM "{t}" AS t')] for t in tables}
            sequences = {}
            for (sequence,) in conn.execute("SELECT sequencename FROM pg_sequences WHERE schemaname = 'public'").fetchall():
                sequences[sequence] = conn.execute(f'SELECT last_value, is_called FROM "{sequence}"').fetchone()
        return fingerprint, tables, {t: r for t, r in rows.items() if r}, sequences

    def take(self) -> str:
        """A database holding exactly the template (a new copy when none is free); its URL."""
        with self._lock:
            name = self._free.pop() if self._free else None
        if name is None:
            name = f"corpus_test_{uuid.uuid4().hex[:10]}"
            with psycopg.connect(self._admin, autocommit=True) as admin:
                admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{self._template}"')
        return f"{self._base}/{name}"

    def give_back(self, url: str) -> None:
        """Recycle a finished test's database in the background (the next test need not wait)."""
        self._pending.append(self._worker.submit(self._recycle, url.rsplit("/", 1)[1]))

    def _recycle(self, old: str) -> None:
        new = f"corpus_test_{uuid.uuid4().hex[:10]}"
        try:
            with psycopg.connect(self._admin, autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                              "WHERE datname = %s AND pid <> pg_backend_pid()", (old,))
                admin.execute(f'ALTER DATABASE "{old}" RENAME TO "{new}"')
        except psycopg.Error:
            self._drop(old)
            return
        try:
            with psycopg.connect(self._plain(new)) as conn:  # one transaction, committed on leaving
                if conn.execute(_SCHEMA_FINGERPRINT).fetchone()[0] != self._fingerprint:
                    raise SchemaChanged(new)
                conn.execute("SET LOCAL session_replication_role = replica")  # no foreign-key order to follow
                for table in self._tables:
                    conn.execute(f'DELETE FROM "{table}"')
                for table, rows in self._rows.items():
                    for row in rows:
                        conn.execute(f'INSERT INTO "{table}" SELECT * FROM json_populate_record(NULL::"{table}", %s)',
                                     (row,))
                for sequence, (value, called) in self._sequences.items():
                    conn.execute("SELECT setval(%s::regclass, %s, %s)", (f'"{sequence}"', value, called))
        except (psycopg.Error, SchemaChanged):
            self._drop(new)
            return
        with self._lock:
            self._free.append(new)

    def _drop(self, name: str) -> None:
        with psycopg.connect(self._admin, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def close(self) -> None:
        """Finish every recycling, then drop every database (a drop that failed fails here)."""
        self._worker.shutdown(wait=True)
        for done in self._pending:
            done.result()
        for name in self._free:
            self._drop(name)
        self._free.clear()
