"""Model work off the server's threads: a picklable function run in a worker process of its own.

CRFsuite keeps the GIL while it trains (python-crfsuite issue 119), so a CRF trained in any thread of the
Streamlit server stalls every session the server is serving until training ends. ``in_worker`` runs the
function in a fresh ``python -m db.worker`` (function and arguments in by stdin, result out by stdout, both
pickled) and waits for it with the GIL released, so the other sessions keep being served. A fresh interpreter,
not a fork of a threaded server, and not ``multiprocessing``'s spawn, which re-runs the host's main script.
"""

from __future__ import annotations

import logging
import os
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

log = logging.getLogger(__name__)

ROOT = Path(__file__).resolve().parents[1]
T = TypeVar("T")


class WorkerFailed(RuntimeError):
    """The worker process died without an answer (killed, out of memory, a crash in C code)."""


def in_worker(fn: Callable[..., T], *args: object) -> T:
    """``fn(*args)`` computed in a worker process (``fn`` must be a module-level function; it and the arguments
    must pickle). An exception raised by ``fn`` is raised here as it is; a worker that dies raises
    ``WorkerFailed`` with the end of its stderr. Only when no process can be started does it compute here,
    after logging why."""
    payload = pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
           PARENT_ENV: str(os.getpid())}
    try:
        done = subprocess.run([sys.executable, "-m", "db.worker"], input=payload, capture_output=True, env=env,
                              cwd=ROOT, check=False)
    except OSError as exc:
        log.warning("no worker process (%s): computing %s in this process", exc, fn.__name__)
        return fn(*args)
    if done.returncode != 0 or not done.stdout:
        tail = done.stderr.decode("utf-8", "replace")[-2000:]
        raise WorkerFailed(f"the worker process for {fn.__name__} exited with {done.returncode}: {tail}")
    ok, value = pickle.loads(done.stdout)
    if not ok:
        raise value
    return value


PARENT_ENV = "CORPUS_WORKER_PARENT"


def _die_with_parent() -> None:
    """On Linux, have the kernel kill this process when the one that started it dies: a job runner killed in
    the middle of a job (``db.jobs``: its job is retried elsewhere) leaves no training behind that nobody reads."""
    try:
        import ctypes
        import signal

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the worker ends when it has answered, as before
        return
    if os.environ.get(PARENT_ENV) not in (None, str(os.getppid())):  # the parent died before the line above
        os._exit(1)


def _serve() -> None:
    """The worker's side: read ``(fn, args)``, answer ``(True, result)`` or ``(False, exception)``."""
    _die_with_parent()
    answer = sys.stdout.buffer
    sys.stdout = sys.stderr  # anything fn prints must not mix with the answer
    fn, args = pickle.load(sys.stdin.buffer)
    try:
        result = (True, fn(*args))
    except Exception as exc:  # handed back to the caller, who raises it
        result = (False, exc)
    answer.write(pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    answer.flush()


if __name__ == "__main__":
    _serve()
