"""What the save functions share about a refused write.

Each record kind has one save function that checks the version its author loaded
(``db.translation.save_translation``, ``db.tagging.save_annotation``, ...) and raises its member of the
``db.conflicts.SavedFirst`` family. Two saves racing to create the same record meet at a unique key:
the loser's ``IntegrityError`` is a conflict only if it is a unique violation, which this tells apart.
"""

from __future__ import annotations

from sqlalchemy.exc import IntegrityError


def is_unique_violation(exc: IntegrityError) -> bool:
    """A unique key was taken (SQLSTATE 23505 on PostgreSQL, the UNIQUE message on SQLite)."""
    code = getattr(exc.orig, "sqlstate", None) or getattr(exc.orig, "pgcode", None)
    if code is not None:
        return code == "23505"
    return "UNIQUE constraint failed" in str(exc.orig)
