"""A writer killed with SIGKILL in the middle of a batch loses nothing it acknowledged, and the SQLite
file stays sound: every acknowledged save is there after restart, no half-written batch is visible,
and ``PRAGMA integrity_check`` says ok."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from bench.load import save_text, seed_load_data
from db.models import Revision, Translation

ROOT = Path(__file__).resolve().parents[2]
BATCH_ROWS = 200

# Saves one at a time (each acknowledged after commit), and now and then a multi-row batch in one
# transaction, announcing "BEGIN" while it is half written so the test can kill it right there.
_WRITER = """
import sys
sys.path.insert(0, {root!r})
from sqlalchemy import select
from sqlalchemy.orm import Session
from bench.load import TranslationTask, save_text
from db.engine import make_engine, transaction
from db.models import Revision, Translation
engine = make_engine({url!r})
user, tasks, run = {user}, [TranslationTask(*t) for t in {tasks!r}], {run}
versions = {{}}
with Session(engine) as s:
    for task in tasks:
        versions[task] = s.scalars(select(Translation.version).where(Translation.sentence_id == task.sentence_id,
            Translation.phase == task.phase, Translation.translator_id == user)).first()
n = 0
while True:
    for task in tasks:
        text = f"run {{run}} save {{n}}"
        saved = save_text(engine, user, task, text, versions[task])
        row_id, versions[task] = saved.translation_id, saved.version
        print(f"ACK {{row_id}} {{saved.version}} {{text}}", flush=True)
        n += 1
    if n % 12 == 0:
        batch = f"{{run}}-{{n}}"
        with transaction(engine) as s:
            for i in range({batch_rows}):
                s.add(Revision(entity="translation", entity_id=row_id, version=0, author_id=user, action="batch",
                               payload={{"batch": batch, "i": i}}))
                s.flush()
                if i == {batch_rows} // 2:
                    print(f"BEGIN {{batch}}", flush=True)
        print(f"BATCH {{batch}}", flush=True)
"""


def _start_writer(url: str, user: int, tasks: list, run: int) -> subprocess.Popen:
    tasks = [(t.assignment_id, t.sentence_id, str(t.phase)) for t in tasks]
    code = _WRITER.format(root=str(ROOT), url=url, user=user, tasks=tasks, run=run, batch_rows=BATCH_ROWS)
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _run_until_killed(url: str, user: int, tasks: list, run: int, min_acks: int) -> tuple[list, list]:
    """Read acknowledgements until ``min_acks`` are in, then SIGKILL as soon as a batch is half written."""
    writer = _start_writer(url, user, tasks, run)
    acks, batches = [], []
    killed_mid_batch = False
    try:
        for line in writer.stdout:
            kind, _, rest = line.rstrip("\n").partition(" ")
            if kind == "ACK":
                row_id, version, text = rest.split(" ", 2)
                acks.append((int(row_id), int(version), text))
            elif kind == "BATCH":
                batches.append(rest)
            elif kind == "BEGIN" and len(acks) >= min_acks:
                os.kill(writer.pid, signal.SIGKILL)
                killed_mid_batch = True
                break
    finally:
        if writer.poll() is None and not killed_mid_batch:
            writer.kill()
        writer.wait(timeout=30)
    assert killed_mid_batch, writer.stderr.read()
    assert writer.returncode == -signal.SIGKILL
    return acks, batches


def _integrity(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        conn.close()


@pytest.mark.timeout(180)
def test_sigkill_mid_batch_keeps_every_acknowledged_save_and_a_sound_file(engine, tmp_path):
    path = Path(engine.url.database)
    url = engine.url.render_as_string(hide_password=False)
    seed = seed_load_data(engine, users=1, tasks_per_user=2)
    user = seed.users[0]
    tasks = [t for t in seed.translation_tasks[user] if t.phase == "blind"]  # aware ones open after submission
    for task in tasks:
        save_text(engine, user, task, "आरंभ", 0)
    engine.dispose()

    all_acks, all_batches = [], []
    for run in range(3):  # kill, restart, kill again: recovery must hold every time
        acks, batches = _run_until_killed(url, user, tasks, run, min_acks=30)
        assert Path(f"{path}-wal").exists()  # the kill left a write-ahead log to recover from
        all_acks += acks
        all_batches += batches
        assert _integrity(path) == "ok"

    with Session(engine) as session:
        stored = {(r.entity_id, r.version): r.payload.get("text") for r in session.scalars(
            select(Revision).where(Revision.entity == "translation", Revision.action != "batch"))}
        for row_id, version, text in all_acks:
            assert stored.get((row_id, version)) == text, f"acknowledged save lost: {row_id} v{version}"
        latest: dict[int, tuple[int, str]] = {}
        for row_id, version, text in all_acks:
            latest[row_id] = max(latest.get(row_id, (0, "")), (version, text))
        for row_id, (version, text) in latest.items():
            row = session.get(Translation, row_id)
            assert row.version >= version
            if row.version == version:
                assert row.text == text

        batch_rows: dict[str, int] = {}
        for rev in session.scalars(select(Revision).where(Revision.action == "batch")):
            batch_rows[rev.payload["batch"]] = batch_rows.get(rev.payload["batch"], 0) + 1
    assert all(batch_rows.get(b) == BATCH_ROWS for b in all_batches), "an acknowledged batch is incomplete"
    assert set(batch_rows.values()) <= {BATCH_ROWS}, "a killed batch is partly visible"

    # The database keeps working after the crashes: saves continue from the stored versions.
    for task in tasks:
        with Session(engine) as session:
            version = session.scalars(select(Translation.version).where(
                Translation.sentence_id == task.sentence_id, Translation.phase == task.phase,
                Translation.translator_id == user)).one()
        save_text(engine, user, task, "पुनः आरंभ के बाद", version)
    assert _integrity(path) == "ok"
