"""A worker process (``db.worker.in_worker``) dies with the process that started it: a job runner killed in the
middle of a training leaves no CRF training behind (its job is retried by another worker)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def pid_then_sleep(path: str) -> None:
    Path(path).write_text(str(os.getpid()))
    time.sleep(120)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie waiting for its parent's wait() is dead too
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_killing_the_runner_kills_its_worker_process(tmp_path):
    marker = tmp_path / "child.pid"
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from db.worker import in_worker; "
            "from tests.db.test_worker_child import pid_then_sleep; in_worker(pid_then_sleep, sys.argv[2])")
    runner = subprocess.Popen([sys.executable, "-c", code, str(ROOT), str(marker)], cwd=ROOT)
    try:
        deadline = time.time() + 60
        while not marker.exists() or not marker.read_text():
            assert time.time() < deadline, "the worker process never started"
            time.sleep(0.05)
        child = int(marker.read_text())
        assert _alive(child)
        runner.send_signal(signal.SIGKILL)
        runner.wait(10)
        deadline = time.time() + 10
        while _alive(child) and time.time() < deadline:
            time.sleep(0.05)
        assert not _alive(child)
    finally:
        if runner.poll() is None:
            runner.kill()
