"""Dashboard render timing for ``python -m bench.bench_agreement``: kept out of ``corpus/``, which never imports Streamlit.

On its own, over a database that already holds a project (e.g. the benchmarks' paper-scale one)::

    python -m bench.dashboard_render sqlite:///path/to/bench.db

prints each run's wall-clock time and the process's CPU time during it: on a shared machine the CPU figure is
what the render costs, the wall figure what a user waited.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

RUNS = ("first run in a fresh process", "nothing changed", "after a new save (data caches cold)")


def render_report(db_url: str) -> list[tuple[str, float, float]]:
    """Dashboard render (AppTest, through the app's router as a browser gets there: the page links to the
    sentence view need its pages): the first run in a fresh process (imports, engine, schema check, login
    check), a run with nothing changed (warm caches), and a run right after a save (every data cache cold);
    each as (what, wall seconds, CPU seconds of the process)."""
    from sqlalchemy import update
    from streamlit.testing.v1 import AppTest

    from db.auth import create_user, start_session
    from db.engine import make_engine
    from db.models import Translation

    app = Path(__file__).resolve().parents[1] / "app.py"
    os.environ["DATABASE_URL"] = db_url
    engine = make_engine(db_url)
    token = start_session(engine, create_user(engine, f"bench-lead-{os.getpid()}", {"lead"}, "bench-password"))
    at = AppTest.from_file(str(app), default_timeout=300)
    at.session_state["session_token"] = token
    at.switch_page("pages/dashboard.py")  # before the first run: the page is told by its file name

    def run() -> tuple[float, float]:
        t0, c0 = time.perf_counter(), time.process_time()
        at.run()
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        if at.exception:
            raise RuntimeError(f"dashboard raised: {at.exception[0].message}")
        if not [t for t in at.title if t.value == "Agreement dashboard"]:
            raise RuntimeError("the run did not render the dashboard")
        return elapsed, cpu

    first = run()
    warm = run()
    with engine.begin() as conn:
        conn.execute(update(Translation).where(Translation.id == 1).values(text="नया अनुवाद", version=Translation.version + 1))
    cold = run()
    engine.dispose()
    return [(what, *times) for what, times in zip(RUNS, (first, warm, cold))]


def render_times(db_url: str) -> tuple[float, float, float]:
    """Wall-clock seconds of the three runs of ``render_report``: first, nothing changed, after a save."""
    first, warm, cold = (wall for _, wall, _ in render_report(db_url))
    return first, warm, cold


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m bench.dashboard_render DATABASE_URL", file=sys.stderr)
        return 2
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    for what, wall, cpu in render_report(args[0]):
        print(f"dashboard render, {what}: {wall:.2f} s wall, {cpu:.2f} s CPU")
    print(f"load average {load:.2f} at start on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
