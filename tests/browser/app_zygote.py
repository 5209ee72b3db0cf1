"""A warm parent for the browser tests' `streamlit run` servers: it imports Streamlit and the app's
libraries once, then forks one server per request, so a test's server skips those imports (about 2 s of CPU
each, and far more wall time on a loaded machine).

Protocol (one JSON line per request on stdin, one line back on stdout):
    {"argv": [...], "env": {...}, "cwd": "...", "log": "..."}  ->  "<child pid>"
The child replaces its whole environment with ``env`` before Streamlit reads anything from it, so each
server sees exactly what a fresh ``python -m streamlit`` given that environment would. Only modules that
read nothing from the environment at import are loaded here: Streamlit, the libraries, and db/ and corpus/
(pure, or Engine-taking functions), and the shipped typing model is read; ui/, pages/ and app.py are
imported by each server itself, as before.
Children stay in the test run's process group and are stopped by their test; the parent reaps them (so their
CPU time counts in the run's, as with one subprocess each) and exits when its stdin closes.
"""

from __future__ import annotations

import importlib
import json
import os
import pkgutil
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def preload() -> None:
    sys.path.insert(0, str(ROOT))
    import streamlit.web.bootstrap  # noqa: F401
    import streamlit.web.cli  # noqa: F401
    import streamlit.web.server.starlette.starlette_app  # noqa: F401

    for package in ("db", "corpus"):
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, package + "."):
            if info.name.rsplit(".", 1)[-1] == "__main__":
                continue
            try:
                importlib.import_module(info.name)
            except Exception:  # noqa: BLE001 - a module that fails here fails in the server, with its message
                sys.modules.pop(info.name, None)
    # The typing model (read-only once loaded; about 1.5 s of CPU per server that opens a translate page,
    # which loads it in the background at first): loaded here once, every server shares the loaded copy.
    from corpus.romanization import load_model

    load_model()
    # The libraries the pages import (Altair, pandas, …): each server imports them in a background thread at
    # start (ui/warmup.py), about 0.5 s of CPU per server, visited or not. Imported here once from the same
    # list; ui itself is left to each server, as before.
    from ui.warmup import page_imports
    from ui.warmup import preload as import_modules

    import_modules(page_imports(ROOT / "pages"))
    # Each server's Streamlit would scan every installed package for components: scanned here once for all.
    from tests.support.streamlit_once import scan_components_once

    scan_components_once()
    for name in [name for name in sys.modules if name == "ui" or name.startswith("ui.")]:
        del sys.modules[name]
    sys.path.remove(str(ROOT))  # the server puts the script's folder on the path itself


def serve_child(request: dict) -> None:
    """In the forked child: become ``python -m streamlit <argv>`` with ``env``; never returns."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.environ.clear()
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        sys.argv = ["streamlit", *request["argv"]]
        from streamlit.web.cli import main

        main(prog_name="streamlit")
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001
        import traceback

        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def reap(signum=None, frame=None) -> None:
    """Collect finished servers, so their CPU time counts in this process's children (and the run's)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def main() -> None:
    preload()
    signal.signal(signal.SIGCHLD, reap)
    print("ready", flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            serve_child(request)
        print(pid, flush=True)
    while True:  # stdin closed: wait for the servers still stopping
        try:
            os.wait()
        except ChildProcessError:
            break


if __name__ == "__main__":
    main()
