"""Real-browser harness: the app under `streamlit run` on a free port, driven by headless Chromium.

Browsers cannot be downloaded here: Playwright drives Debian's /usr/bin/chromium. Without it the
tests skip with a reason, except in CI (REQUIRE_BROWSER=1), where a missing browser is a failure.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from journey_steps import watch_runs

from bench.chromium import CHROMIUM, launch_options

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"

HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items) -> None:
    """Every test under tests/browser is a browser test, so `-m "not browser"` leaves them all out
    (before the mark filter runs). A conftest's own ``pytestmark`` marks nothing."""
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.browser)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _require_chromium() -> None:
    if not Path(CHROMIUM).exists():
        if os.environ.get("REQUIRE_BROWSER"):
            raise RuntimeError(f"REQUIRE_BROWSER is set but {CHROMIUM} is missing")
        pytest.skip(f"{CHROMIUM} not installed (apt-get install -y chromium)")


class _Zygote:
    """The warm parent that forks this worker's servers (tests/browser/app_zygote.py), started on first use.
    CORPUS_TEST_NO_ZYGOTE=1 starts each server as its own ``python -m streamlit`` instead."""

    process: subprocess.Popen | None = None
    #: One request at a time: a test that starts two servers from two threads (test_several_servers) must not
    #: start two zygotes, nor interleave its requests and read the other's pid (seen: an empty line read as a pid).
    lock = threading.Lock()

    @classmethod
    def fork(cls, argv: list[str], env: dict[str, str], log: Path) -> int | None:
        """The pid of a new server, or None when the zygote is switched off or cannot start."""
        if os.environ.get("CORPUS_TEST_NO_ZYGOTE"):
            return None
        with cls.lock:
            return cls._fork(argv, env, log)

    @classmethod
    def _fork(cls, argv: list[str], env: dict[str, str], log: Path) -> int:
        if cls.process is None or cls.process.poll() is not None:
            cls.process = subprocess.Popen(
                [sys.executable, str(HERE / "app_zygote.py")], cwd=ROOT, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, text=True,
                env={**os.environ, "OPENBLAS_NUM_THREADS": "1", "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"})
            if cls.process.stdout.readline().strip() != "ready":
                cls.process.kill()
                raise RuntimeError("the browser tests' app zygote did not start")
            atexit.register(cls.close)
        cls.process.stdin.write(json.dumps({"argv": argv, "env": env, "cwd": str(ROOT), "log": str(log)}) + "\n")
        cls.process.stdin.flush()
        return int(cls.process.stdout.readline())

    @classmethod
    def close(cls) -> None:
        if cls.process is not None and cls.process.poll() is None:
            cls.process.stdin.close()
            try:
                cls.process.wait(20)
            except subprocess.TimeoutExpired:
                cls.process.kill()
                cls.process.wait()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class AppServer:
    def __init__(self, database_url: str):
        self.database_url = database_url
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = ARTIFACTS / f"streamlit-{self.port}.log"
        self.process: subprocess.Popen | None = None
        self.pid: int | None = None  # a server forked by the zygote (not our child: it is polled by pid)

    def running(self) -> bool:
        if self.process is not None:
            return self.process.poll() is None
        return self.pid is not None and _alive(self.pid)

    def start(self) -> AppServer:
        ARTIFACTS.mkdir(exist_ok=True)
        env = {**os.environ, "DATABASE_URL": self.database_url, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        argv = ["run", str(ROOT / "app.py"), "--server.headless", "true", "--server.port", str(self.port),
                "--server.address", "127.0.0.1", "--server.fileWatcherType", "none"]
        self.pid = _Zygote.fork(argv, env, self.log)
        if self.pid is None:
            self.process = subprocess.Popen([sys.executable, "-m", "streamlit", *argv], cwd=ROOT, env=env,
                                            stdout=self.log.open("w"), stderr=subprocess.STDOUT)
        deadline = time.time() + 60
        while time.time() < deadline and self.running():
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"streamlit did not start; see {self.log}")

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) the server has used so far, from /proc; None once it is gone."""
        pid = self.process.pid if self.process is not None else self.pid
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, TypeError):
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if os.environ.get("CORPUS_TEST_SERVER_CPU_LOG") and self.running():  # measuring: one line per server
            with open(os.environ["CORPUS_TEST_SERVER_CPU_LOG"], "a") as f:
                f.write(f"{os.environ.get('PYTEST_CURRENT_TEST', '?').split(' ')[0]}\t{self.cpu_seconds()}\n")
        if self.process is not None:
            if self.process.poll() is None:
                self.process.terminate()
                try:
                    self.process.wait(10)
                except subprocess.TimeoutExpired:
                    self.process.kill()
            return
        if self.pid is None or not _alive(self.pid):
            return
        os.kill(self.pid, signal.SIGTERM)
        deadline = time.time() + 10
        while time.time() < deadline and _alive(self.pid):
            time.sleep(0.05)
        if _alive(self.pid):
            os.kill(self.pid, signal.SIGKILL)


@pytest.fixture
def database(engine, sqlite_url):
    """A fresh, migrated SQLite database for a server: (its URL, an engine on it)."""
    return sqlite_url, engine


@pytest.fixture(params=["sqlite", "postgresql"])
def any_database(request):
    """``database``, then a fresh PostgreSQL one (skipped with the reason when PostgreSQL is down)."""
    if request.param == "sqlite":
        return request.getfixturevalue("database")
    engine = request.getfixturevalue("postgres_engine")
    return engine.url.render_as_string(hide_password=False), engine


@pytest.fixture(scope="session")
def _zygote_closed_at_end():
    """Closes this worker's app zygote (if one started) when the session ends, waiting for it."""
    yield
    _Zygote.close()


@pytest.fixture
def start_app(_zygote_closed_at_end):
    """Call with a database URL; returns a running AppServer, stopped after the test."""
    servers: list[AppServer] = []

    def start(database_url: str) -> AppServer:
        servers.append(AppServer(database_url).start())
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


@pytest.fixture(scope="module")
def start_module_app(_zygote_closed_at_end):
    """Like ``start_app``, for a server that a module's tests share: stopped after the module's last test."""
    servers: list[AppServer] = []

    def start(database_url: str) -> AppServer:
        servers.append(AppServer(database_url).start())
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


@pytest.fixture(scope="session")
def chromium():
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(**launch_options())
        yield browser
        browser.close()


#: How long an ``expect(...)`` waits for the element it reads when the test names no timeout. Playwright's 5 s
#: default is shorter than a page's first run on a server that has just started while both cores are busy (seen:
#: the tag page of a fresh server under CI's load); an expectation that holds passes at once either way.
EXPECT_TIMEOUT_MS = 20_000


@pytest.fixture
def browser_page(chromium):
    from playwright.sync_api import expect

    expect.set_options(timeout=EXPECT_TIMEOUT_MS)
    context = chromium.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    watch_runs(context)
    page = context.new_page()
    page.set_default_timeout(45000)
    yield page
    context.close()
