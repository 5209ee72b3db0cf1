"""`python -m corpus ARGS` run inside the test's process: what it prints on stdout and stderr and its exit
status, as the process gives them, without a new interpreter (about a second of CPU each).

For tests whose subject is a command's output or effect. What only a process shows (an end by a signal, what
a fresh interpreter imports, a reader that closes the pipe) stays with real processes. The command goes
through the entry point `python -m corpus` runs (``cli.commands.main`` with ``sys.argv`` as that process has
it); its output is taken from file descriptors 1 and 2, so whatever writes there directly is caught too, on
the side the process would show it; an uncaught exception prints its traceback and exits 1 as Python does,
and an interrupted run (130) is reported as the end by SIGINT that ``corpus/__main__.py`` gives it.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import tempfile
import traceback
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENTRY = ROOT / "corpus" / "__main__.py"


@contextmanager
def _descriptors_captured(read: dict):
    """Points file descriptors 1 and 2 (and sys.stdout, sys.stderr) at files; ``read`` gets their text after."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = {fd: os.dup(fd) for fd in (1, 2)}
    files = {fd: tempfile.TemporaryFile() for fd in (1, 2)}
    streams = sys.stdout, sys.stderr
    try:
        for fd, file in files.items():
            os.dup2(file.fileno(), fd)
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)
        yield
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        sys.stdout, sys.stderr = streams
        for fd in (1, 2):
            os.dup2(saved[fd], fd)
            os.close(saved[fd])
            files[fd].seek(0)
            data = files[fd].read().decode("utf-8", errors="replace")
            read[fd] = data.replace("\r\n", "\n").replace("\r", "\n")  # as text=True reads a pipe
            files[fd].close()


def _exit_status(code: object) -> int:
    """The exit status ``raise SystemExit(code)`` gives a process (a message is printed by the caller)."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def run_corpus(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    """What ``subprocess.run([python, "-m", "corpus", *args], cwd=ROOT, capture_output=True, text=True)`` gives,
    with CORPUS_TRACEBACK unset (as the process tests run it) and ``env`` added to the environment."""
    from cli.commands import EXIT_INTERRUPTED, main

    read: dict[int, str] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        for name, value in {"CORPUS_TRACEBACK": "", **(env or {})}.items():
            patch.setenv(name, value)
        patch.setattr(sys, "argv", [str(ENTRY), *args])
        with _descriptors_captured(read):
            try:
                code = main()
            except SystemExit as exc:  # argparse: --help, a usage error
                if exc.code is not None and not isinstance(exc.code, int):
                    print(exc.code, file=sys.stderr)
                code = _exit_status(exc.code)
            except BaseException:  # noqa: BLE001 - what the interpreter does with an uncaught exception
                traceback.print_exc()
                code = 1
    returncode = -signal.SIGINT if code == EXIT_INTERRUPTED else code
    return subprocess.CompletedProcess([sys.executable, "-m", "corpus", *args], returncode, read[1], read[2])
