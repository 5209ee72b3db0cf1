"""How many saves of this process may talk to the database at once: one per SQLite file, a few on PostgreSQL.

Every SQLite transaction starts with ``BEGIN IMMEDIATE`` (``db.engine``), so writers are serialised
anyway. But when many threads of one process (the Streamlit server) save at once, they all run their
Python work concurrently and fight over the GIL while one of them holds the database's write lock, and
the waiting ones sleep in SQLite's busy handler with growing back-off, so a few unlucky saves take a
second or more. Taking a per-file turn around the whole save hands the database from one save to the
next without either. On PostgreSQL the same convoy appears with 20 threads on 2 cores, and more
concurrent saves than pooled connections make SQLAlchemy open and close overflow connections (a
server process each); a few slots keep both in check.

Measured with ``python -m bench.load`` (20 users, 50 ms think time, 2 shared cores): SQLite p95 87 ms
/ max 1 s without the turn, 22 ms / 56 ms with it; PostgreSQL p95 55-195 ms without slots, 34-47 ms
with 4.

Other processes (the CLI, a second server) still meet SQLite's busy handler and PostgreSQL's row
locks, which stay the safety net; so does a wait longer than ``timeout_s``. A thread that already
holds its turn (a save inside a save) never waits for itself.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine

#: Concurrent saves per PostgreSQL engine in one process; keep at or below the pool size (5 by default).
POSTGRES_SLOTS = 4


class _Gate:
    def __init__(self, slots: int) -> None:
        self._slots = threading.BoundedSemaphore(slots)
        self._held = threading.local()

    def acquire(self, timeout_s: float) -> bool:
        """True if a slot was taken now; False if this thread already holds one or the wait timed out."""
        if getattr(self._held, "depth", 0):
            return False
        if self._slots.acquire(timeout=timeout_s):
            self._held.depth = 1
            return True
        return False

    def release(self) -> None:
        self._held.depth = 0
        self._slots.release()


_sqlite_gates: dict[str, _Gate] = {}  # per file: every engine on it shares the turn
_engine_gates: weakref.WeakKeyDictionary[Engine, _Gate] = weakref.WeakKeyDictionary()
_gates_guard = threading.Lock()


def _gate_for(engine: Engine) -> _Gate:
    with _gates_guard:
        if engine.dialect.name == "sqlite":
            return _sqlite_gates.setdefault(engine.url.database or ":memory:", _Gate(1))
        gate = _engine_gates.get(engine)
        if gate is None:
            gate = _engine_gates[engine] = _Gate(POSTGRES_SLOTS)
        return gate


@contextmanager
def write_turn(engine: Engine, timeout_s: float | None = None) -> Iterator[None]:
    """Hold one of this process's write slots for ``engine`` while saving; re-entrant per thread.

    On SQLite a turn not had within ``timeout_s`` (default ``db.engine.BUSY_TIMEOUT_S``) means another
    thread of this process holds the write lock that long (an import or restore): ``ProjectBusy`` at
    once, rather than a second wait in SQLite's busy handler that would end the same way."""
    from db.engine import BUSY_TIMEOUT_S, ProjectBusy

    gate = _gate_for(engine)
    held_already = getattr(gate._held, "depth", 0)
    taken = gate.acquire(BUSY_TIMEOUT_S if timeout_s is None else timeout_s)
    if not taken and not held_already and engine.dialect.name == "sqlite":
        raise ProjectBusy()
    try:
        yield
    finally:
        if taken:
            gate.release()
