"""Where a test run's CPU goes: the whole machine's busy core-seconds while each test ran, per test and per file.

    python -m pytest -p bench.suite_cpu -n 0 tests/browser    # records test-artifacts/suite-cpu.tsv
    python -m bench.suite_cpu [FILE] [--top N]                # prints the costliest tests and files

A browser test's cost is mostly other processes' (Chromium, the app server it starts, PostgreSQL), which the test
worker's own CPU time never shows, and a closed context's renderer is gone before anyone can read it. So each test
is charged what the whole machine was busy (``/proc/stat``) from its setup to its teardown: a true figure only when
tests run one at a time (``-n 0``) with nothing else running. Busy core-seconds, not wall seconds: a test that
waits costs little here however long it takes. Each run appends; remove the file to start again.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

import pytest

RECORD = Path(os.environ.get("SUITE_CPU_FILE", Path(__file__).resolve().parents[1] / "test-artifacts" / "suite-cpu.tsv"))


class CostPerTest(NamedTuple):
    node_id: str
    busy_s: float  # the machine's busy core-seconds while the test ran
    wall_s: float

    @property
    def file(self) -> str:
        return self.node_id.split("::", 1)[0]


def machine_busy_seconds(stat_line: str | None = None) -> float:
    """Core-seconds the machine has been busy since boot: all of ``/proc/stat``'s first line but idle and iowait."""
    line = stat_line if stat_line is not None else Path("/proc/stat").read_text().split("\n", 1)[0]
    ticks = [int(x) for x in line.split()[1:9]]  # user nice system idle iowait irq softirq steal
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    busy, started = machine_busy_seconds(), time.perf_counter()
    yield
    cost = CostPerTest(item.nodeid, machine_busy_seconds() - busy, time.perf_counter() - started)
    RECORD.parent.mkdir(exist_ok=True)
    with RECORD.open("a", encoding="utf-8") as f:
        f.write(f"{cost.node_id}\t{cost.busy_s:.2f}\t{cost.wall_s:.2f}\n")


def read_costs(lines: Iterable[str]) -> list[CostPerTest]:
    return [CostPerTest(node, float(busy), float(wall))
            for node, busy, wall in (line.rstrip("\n").split("\t") for line in lines if line.strip())]


def by_file(costs: Iterable[CostPerTest]) -> list[tuple[str, int, float, float]]:
    """(file, tests, busy core-seconds, wall seconds), costliest file first."""
    files: dict[str, list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for cost in costs:
        entry = files[cost.file]
        entry[0] += 1
        entry[1] += cost.busy_s
        entry[2] += cost.wall_s
    return sorted(((name, n, busy, wall) for name, (n, busy, wall) in files.items()), key=lambda row: -row[2])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.suite_cpu", description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=RECORD)
    parser.add_argument("--top", type=int, default=20, help="how many tests and files to list")
    args = parser.parse_args(argv)
    if not args.file.is_file():
        print(f"{args.file}: no record; run pytest with -p bench.suite_cpu -n 0 first", file=sys.stderr)
        return 2
    costs = read_costs(args.file.read_text(encoding="utf-8").splitlines())
    print(f"{len(costs)} tests: {sum(c.busy_s for c in costs):,.0f} busy core-seconds in "
          f"{sum(c.wall_s for c in costs):,.0f} s")
    print("\nbusy s   wall s  test")
    for cost in sorted(costs, key=lambda c: -c.busy_s)[:args.top]:
        print(f"{cost.busy_s:6.1f}  {cost.wall_s:7.1f}  {cost.node_id}")
    print("\nbusy s   wall s  tests  file")
    for name, n, busy, wall in by_file(costs)[:args.top]:
        print(f"{busy:6.1f}  {wall:7.1f}  {n:5d}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
