"""Real-browser harness: the app under `streamlit run` on a free port, driven by headless Chromium.

Browsers cannot be downloaded here: Playwright drives Debian's /usr/bin/chromium. Without it the
tests skip with a reason, except in CI (REQUIRE_BROWSER=1), where a missing browser is a failure.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]

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


class AppServer:
    def __init__(self, database_url: str):
        self.database_url = database_url
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = ARTIFACTS / f"streamlit-{self.port}.log"
        self.process: subprocess.Popen | None = None

    def start(self) -> AppServer:
        ARTIFACTS.mkdir(exist_ok=True)
        env = {**os.environ, "DATABASE_URL": self.database_url, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
             "--server.port", str(self.port), "--server.address", "127.0.0.1", "--server.fileWatcherType", "none"],
            cwd=ROOT, env=env, stdout=self.log.open("w"), stderr=subprocess.STDOUT,
        )
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"streamlit did not start; see {self.log}")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


@pytest.fixture
def database(engine, sqlite_url):
    """A fresh, migrated SQLite database for a server: (its URL, an engine on it)."""
    return sqlite_url, engine


@pytest.fixture
def start_app():
    """Call with a database URL; returns a running AppServer, stopped after the test."""
    servers: list[AppServer] = []

    def start(database_url: str) -> AppServer:
        servers.append(AppServer(database_url).start())
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


@pytest.fixture(scope="module")
def start_module_app():
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
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def browser_page(chromium):
    context = chromium.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(45000)
    yield page
    context.close()
