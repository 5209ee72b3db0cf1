"""Dashboard render timing for ``python -m bench.bench_agreement``: kept out of ``corpus/``, which never imports Streamlit.

On its own, over a database that already holds a project (e.g. the benchmarks' paper-scale one)::

    python -m bench.dashboard_render sqlite:///path/to/bench.db [SAVES]

prints each run's wall-clock time and the process's CPU time during it: on a shared machine the CPU figure is
what the render costs, the wall figure what a user waited. After the first run it measures SAVES rounds
(default 5) of a run with nothing changed, then a save, then the run after it, and prints each with the
median: one sample per process said more about the machine's moment than about the page. The saves are of the
first SAVES submitted translations by id; in the synthetic project one of the first five is a sentence's final
translation, the one kind of translation save after which the left-out counts run again (``left_out_basis``),
for the sentences it touched only (``left_out_touched``: one sentence, not ~6,000). Then the reads behind a run
after a save, outside the page, each beside its lower bound and the ratio (``read_report``).
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from statistics import median

RUNS = ("first run in a fresh process", "nothing changed", "after a new save (data caches cold)")
SAVES = 5


def _compile_once_as_served() -> None:
    """A served app compiles each script once: its ScriptCache lives as long as the server. AppTest makes
    a new one for every run, which adds compiling app.py and the page (~0.08 s) to each run, a cost no
    user waits for. The runs measured here share one, as the server does."""
    from streamlit.runtime.scriptrunner.script_cache import ScriptCache
    from streamlit.testing.v1 import app_test, local_script_runner

    shared = ScriptCache()
    app_test.ScriptCache = local_script_runner.ScriptCache = lambda: shared


def render_report(db_url: str, saves: int = SAVES) -> list[tuple[str, float, float]]:
    """Dashboard render (AppTest, through the app's router as a browser gets there: the page links to the
    sentence view need its pages): the first run in a fresh process (imports, engine, schema check, login
    check), then ``saves`` rounds of a run with nothing changed (warm caches) and a run right after a save of
    another submitted translation (every data cache cold); each as (what, wall seconds, CPU seconds of the
    process)."""
    from sqlalchemy import select, update
    from streamlit.testing.v1 import AppTest

    _compile_once_as_served()

    from corpus.vocabulary import Role, Status
    from db.auth import start_session
    from db.users import create_user
    from db.engine import make_engine
    from db.models import Translation

    app = Path(__file__).resolve().parents[1] / "app.py"
    os.environ["DATABASE_URL"] = db_url
    engine = make_engine(db_url)
    token = start_session(engine, create_user(engine, f"bench-lead-{os.getpid()}", {Role.LEAD}, "bench-password"))
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

    report = [(RUNS[0], *run())]
    with engine.connect() as conn:
        submitted = conn.execute(
            select(Translation.id).where(Translation.status == Status.SUBMITTED).order_by(Translation.id).limit(saves)
        ).scalars().all()
    for pk in submitted:
        report.append((RUNS[1], *run()))
        with engine.begin() as conn:
            conn.execute(update(Translation).where(Translation.id == pk).values(
                text=f"नया अनुवाद {pk} {time.time_ns()}", version=Translation.version + 1))  # a change every time
        report.append((RUNS[2], *run()))
    engine.dispose()
    return report


def read_report(db_url: str, project_id: int = 1) -> list[str]:
    """The dashboard's reads after a save, outside the page, each beside its lower bound (``bench.read_bounds``:
    the same columns by plain SELECTs into tuples, in the same run): the metrics snapshot read in full (a
    fresh process) and patched after a save, and the left-out counts (the export's selection without
    records), which rerun when the counted corpus changes."""
    from sqlalchemy import select, update

    from bench.read_bounds import bound_line, left_out_statements, lower_bound, metrics_statements, timed
    from corpus.metrics import paused_gc
    from corpus.vocabulary import Status
    from db.engine import make_engine
    from db.export_data import left_out_counts, left_out_reasons
    from db.metrics_data import left_out_basis, left_out_touched, load_metrics_snapshot
    from db.models import FinalChoice, Translation

    engine = make_engine(db_url)
    lines = []
    full_wall, full_cpu, snapshot = timed(lambda: load_metrics_snapshot(engine, project_id))
    metrics_bound = lower_bound(engine, metrics_statements(project_id))
    lines.append(bound_line("metrics snapshot, full read", full_wall, full_cpu, metrics_bound))
    with engine.connect() as conn:
        pk = conn.execute(select(Translation.id).where(Translation.status == Status.SUBMITTED)
                          .order_by(Translation.id.desc()).limit(1)).scalar_one()
    with engine.begin() as conn:
        conn.execute(update(Translation).where(Translation.id == pk).values(
            text=f"नया अनुवाद {pk} {time.time_ns()}", version=Translation.version + 1))
    with paused_gc():
        t0, c0 = time.perf_counter(), time.process_time()
        load_metrics_snapshot(engine, project_id, snapshot)
        patched = (time.perf_counter() - t0, time.process_time() - c0)
    lines.append(bound_line("metrics snapshot after a save (patched)", *patched, metrics_bound))
    wall, cpu, _ = timed(lambda: left_out_counts(engine, project_id))
    lines.append(bound_line("left-out counts (db.export_data.left_out_counts)", wall, cpu,
                            lower_bound(engine, left_out_statements(project_id))))
    snapshot = load_metrics_snapshot(engine, project_id)
    wall, cpu, basis = timed(lambda: left_out_basis(engine, project_id, snapshot))
    lines.append(f"left-out basis (db.metrics_data.left_out_basis: the counts run again only when it moves, "
                 f"i.e. after a save of a final translation, its annotations or a decision): {wall:.3f} s wall, "
                 f"{cpu:.3f} s CPU")
    reasons = left_out_reasons(engine, project_id)
    with engine.connect() as conn:
        final = conn.execute(select(FinalChoice.translation_id).where(FinalChoice.translation_id.is_not(None))
                             .order_by(FinalChoice.id.desc()).limit(1)).scalar_one()
    with engine.begin() as conn:
        conn.execute(update(Translation).where(Translation.id == final).values(
            text=f"नया अनुवाद {final} {time.time_ns()}", version=Translation.version + 1))
    snapshot = load_metrics_snapshot(engine, project_id, snapshot)

    def patched():
        touched = left_out_touched(engine, basis, left_out_basis(engine, project_id, snapshot))
        return left_out_reasons(engine, project_id, reasons, touched)

    wall, cpu, _ = timed(patched)
    lines.append(f"left-out counts after a save of a final translation (basis, the sentences it touched, those "
                 f"selected again: db.export_data.left_out_reasons): {wall:.3f} s wall, {cpu:.3f} s CPU")
    engine.dispose()
    return lines


def render_times(db_url: str, saves: int = SAVES) -> tuple[float, float, float]:
    """Wall-clock seconds of ``render_report``: the first run, and the medians of the runs with nothing
    changed and of the runs after a save."""
    report = render_report(db_url, saves)
    return report[0][1], *(median(wall for what, wall, _ in report if what == kind) for kind in RUNS[1:])


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) not in (1, 2) or (len(args) == 2 and not args[1].isdigit()):
        print("usage: python -m bench.dashboard_render DATABASE_URL [SAVES]", file=sys.stderr)
        return 2
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    report = render_report(args[0], int(args[1]) if len(args) == 2 else SAVES)
    for what, wall, cpu in report:
        print(f"dashboard render, {what}: {wall:.2f} s wall, {cpu:.2f} s CPU")
    for what in RUNS[1:]:
        walls = sorted(wall for kind, wall, _ in report if kind == what)
        if walls:
            print(f"{what}: median {median(walls):.2f} s wall, {walls[0]:.2f}–{walls[-1]:.2f} s over {len(walls)} runs")
    for line in read_report(args[0]):
        print(line)
    print(f"load average {load:.2f} at start, {os.getloadavg()[0]:.2f} at the end, on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
