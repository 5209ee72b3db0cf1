"""The real app under ``streamlit run`` for the benchmarks that measure it served (capacity, look-up flood, CPU
per visit): one way to start it, to find a port and to read a process's CPU."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int, children: bool = False) -> float:
    """User + system CPU seconds a process has used so far (/proc); with ``children``, also those of its children it
    has waited for (Chromium's zygote reaps each closed page's renderer)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15 if children else 13]) / os.sysconf("SC_CLK_TCK")


class Served(NamedTuple):
    process: subprocess.Popen
    port: int

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def start_app(database_url: str, log: Path, env: dict[str, str] | None = None, wait_s: float = 90) -> Served:
    """``streamlit run app.py`` on ``database_url`` on a free local port, its output in ``log``, with ``env`` added to
    this process's environment; returns once it answers its health check."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--server.fileWatcherType", "none"],
        cwd=ROOT, env={**os.environ, "DATABASE_URL": database_url, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
                       **(env or {})},
        stdout=log.open("w"), stderr=subprocess.STDOUT)
    served = Served(server, port)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            with urllib.request.urlopen(f"{served.base}/_stcore/health", timeout=2):
                return served
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise SystemExit(f"the app server did not start; see {log}") from None
            time.sleep(0.2)
