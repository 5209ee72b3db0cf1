"""Alembic environment. Runs against the connection handed in by ``db.schema.upgrade``.

On SQLite, batch migrations recreate tables, so they run with foreign keys off.
"""

from alembic import context
from sqlalchemy import create_engine, pool

from db.models import Base

config = context.config
target_metadata = Base.metadata


def _run(connection) -> None:  # noqa: ANN001
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    engine = create_engine(config.get_main_option("sqlalchemy.url"), poolclass=pool.NullPool)
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        _run(conn)
