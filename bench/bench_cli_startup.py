"""Benchmark: how fast the command line starts, and four SemEval imports as four command-line runs.

``python -m bench.bench_cli_startup [--runs N] [--import-runs M] [--importtime COMMAND]``

Every figure is a fresh ``python -m corpus ...`` process, as a lead runs it (issue #32, part 4):

- start-up (imports, engine, schema check; target <= 0.5 s) of three commands, the median of N runs each:
  ``import-semeval`` of the small fixture (a few sentences) into a fresh copy of a migrated empty SQLite
  database, ``stats`` of that small database, and ``metrics --help``. Wall and CPU (user + sys of the child,
  from ``resource.getrusage(RUSAGE_CHILDREN)``): on a shared machine the wall time depends on the load, the
  CPU time less. Beside them, the floors: ``python -c pass`` (the interpreter and its site-packages
  start-up), SQLAlchemy's Core with the SQLite dialect (what every command that opens a database needs),
  ``+ sqlalchemy.orm`` and ``+ db.models`` (what a command that maps rows adds);
- the four official-size SemEval files (``bench.bench_import``'s synthetic files: 3,041 + 3,045 + 800 + 800
  sentences) imported as four separate runs into a fresh migrated database; the total of the four, median of
  M repeats (target <= 3 s);
- the machine's load average and the reference loop (3M integer additions) before and after;
- ``python -X importtime`` of one command: the ten first-level imports that cost most (cumulative) and the
  ten modules with the largest own time.

Figures are printed, never asserted (tests/cli/test_cli_lazy_imports.py checks what is imported instead).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_import import OFFICIAL, synthetic_file
from bench.read_bounds import reference_loop

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "tests" / "fixtures" / "semeval" / "restaurants_small.xml"
STARTUP_TARGET_S = 0.5
IMPORTS_TARGET_S = 3.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_python(args: list[str], *, env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """One ``python ARGS`` process: (wall s, CPU s of the child, the finished process)."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"python {' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return wall, _children_cpu() - cpu, done


def run_cli(args: list[str], *, env: dict[str, str], python_flags: tuple[str, ...] = ()
            ) -> tuple[float, float, subprocess.CompletedProcess]:
    """One ``python -m corpus ARGS`` process: (wall s, CPU s of the child, the finished process)."""
    return run_python([*python_flags, "-m", "corpus", *args], env=env)


def _copy_db(template: Path, target: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{template}{suffix}")
        if source.exists():
            shutil.copyfile(source, f"{target}{suffix}")


def _url(path: Path) -> str:
    return f"sqlite:///{path}"


def _median(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(w for w, _ in pairs), statistics.median(c for _, c in pairs)


def importtime_top(args: list[str], env: dict[str, str], top: int = 10) -> tuple[list, list, float]:
    """``-X importtime`` of one run: (first-level imports by cumulative µs, modules by own µs, total s)."""
    _, _, done = run_cli(args, env=env, python_flags=("-X", "importtime"))
    rows = []
    for line in done.stderr.splitlines():
        m = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)", line)
        if m:
            rows.append((int(m[1]), int(m[2]), len(m[3]) // 2, m[4]))
    # the interpreter's own start-up (site, encodings) is imported before the command's first module
    first_level = sorted((r for r in rows if r[2] == 0), key=lambda r: -r[1])[:top]
    by_self = sorted(rows, key=lambda r: -r[0])[:top]
    total = sum(r[1] for r in rows if r[2] == 0) / 1e6
    return first_level, by_self, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs of each start-up command (median; default 7)")
    parser.add_argument("--import-runs", type=int, default=3,
                        help="repeats of the four official-size imports (median of the totals; default 3)")
    parser.add_argument("--importtime", default="import-semeval", choices=["import-semeval", "stats", "metrics --help"],
                        help="the command whose -X importtime is shown (default import-semeval)")
    options = parser.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CORPUS_TRACEBACK")}
    load_before = os.getloadavg()
    loop_before = reference_loop()
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp_name:
        tmp = Path(tmp_name)
        template = tmp / "template.db"
        run_cli(["--db", _url(template), "init"], env=env)
        small = tmp / "small.db"
        _copy_db(template, small)
        run_cli(["--db", _url(small), "import-semeval", str(SMALL), "--domain", "restaurant", "--split", "train"],
                env=env)

        def import_small(i: int) -> list[str]:
            target = tmp / f"startup-{i}.db"
            _copy_db(template, target)
            return ["--db", _url(target), "import-semeval", str(SMALL), "--domain", "restaurant", "--split", "train"]

        commands = {
            "import-semeval": import_small,
            "stats": lambda i: ["--db", _url(small), "stats"],
            "metrics --help": lambda i: ["metrics", "--help"],
        }
        print(f"python -m corpus start-up, median of {options.runs} runs (target <= {STARTUP_TARGET_S} s wall)")
        runs = {name: (lambda i, build=build: run_cli(build(i), env=env)) for name, build in commands.items()}
        # the floors: the interpreter with its site-packages start-up; SQLAlchemy's Core and the SQLite dialect
        # (every command that opens a database); its ORM and our mapped classes (a command that maps rows)
        core = "import sqlalchemy, sqlalchemy.dialects.sqlite"
        runs["(python -c pass)"] = lambda i: run_python(["-c", "pass"], env=env)
        runs["(+ sqlalchemy Core, sqlite)"] = lambda i: run_python(["-c", core], env=env)
        runs["(+ sqlalchemy.orm)"] = lambda i: run_python(["-c", f"{core}, sqlalchemy.orm"], env=env)
        runs["(+ db.models)"] = lambda i: run_python(["-c", f"{core}, sqlalchemy.orm, db.models"], env=env)
        for name, run in runs.items():
            run(-1)  # warm the file cache: the runs below measure the start-up, not the disk
            figures = [run(i)[:2] for i in range(options.runs)]
            wall, cpu = _median(figures)
            print(f"  {name:<26} wall {wall:.3f} s  CPU {cpu:.3f} s  (wall min {min(w for w, _ in figures):.3f}, "
                  f"max {max(w for w, _ in figures):.3f})")

        files = []
        for seed, (name, domain, split, n, a) in enumerate(OFFICIAL, start=1):
            path = tmp / name
            path.write_text(synthetic_file(n, a, seed), encoding="utf-8")
            files.append((path, domain, split, n, a))
        totals = []
        for repeat in range(options.import_runs):
            target = tmp / f"official-{repeat}.db"
            _copy_db(template, target)
            runs = []
            for path, domain, split, n, a in files:
                wall, cpu, done = run_cli(["--db", _url(target), "import-semeval", str(path), "--domain", domain,
                                           "--split", split], env=env)
                expected = f"imported {n} sentences, {a} aspect terms"
                if done.stdout.strip() != expected:
                    raise SystemExit(f"{path.name}: printed {done.stdout.strip()!r}, expected {expected!r}")
                runs.append((wall, cpu))
            totals.append((sum(w for w, _ in runs), sum(c for _, c in runs), runs))
        wall, cpu = _median([(w, c) for w, c, _ in totals])
        sentences = sum(n for *_, n, _a in files)
        print(f"four official-size import-semeval runs ({sentences:,} sentences), median total of "
              f"{options.import_runs}: wall {wall:.2f} s  CPU {cpu:.2f} s  (target <= {IMPORTS_TARGET_S} s wall)")
        best = min(totals, key=lambda t: t[0])
        print("  best repeat, per file: " + ", ".join(
            f"{path.name} {w:.2f} s (CPU {c:.2f})" for (path, *_), (w, c) in zip(files, best[2], strict=True)))

        args = commands[options.importtime](99)
        first_level, by_self, total = importtime_top(args, env)
        print(f"-X importtime of `{options.importtime}` (one run; {total:.3f} s of imports in all)")
        print("  first-level imports, cumulative:")
        for own, cumulative, _, module in first_level:
            print(f"    {cumulative / 1000:8.1f} ms  {module}")
        print("  modules by own time:")
        for own, cumulative, _, module in by_self:
            print(f"    {own / 1000:8.1f} ms  {module}")
    load_after = os.getloadavg()
    loop_after = reference_loop()
    print("load average before: " + " ".join(f"{x:.2f}" for x in load_before)
          + "; after: " + " ".join(f"{x:.2f}" for x in load_after) + f" ({os.cpu_count()} CPUs)")
    print(f"reference loop (3M integer additions) before: {loop_before[0]:.3f} s wall, {loop_before[1]:.3f} s CPU; "
          f"after: {loop_after[0]:.3f} s wall, {loop_after[1]:.3f} s CPU")


if __name__ == "__main__":
    main()
