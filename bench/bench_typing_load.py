"""What loading the typing model costs a fresh process: ``python -m bench.bench_typing_load``.

Each run is a new Python process that imports ``db.typing_model`` and calls ``warm_model()`` (the phonetic model, its
English model, the word bigrams and the reranker's compiled trees: what an app server's background thread and a test
worker load before the first suggestion), then exits. Three kinds, in turn, so the machine's drift touches all alike:

* ``import``: the imports only (the floor: not the model's cost);
* ``built``: the model built from the shipped files (``CORPUS_MODEL_CACHE=off``: every process before the cache);
* ``cached``: read from a cache directory filled once before the runs (every process after the first).

Prints CPU seconds (user + system, from the kernel's accounting of the finished child), wall seconds and peak
resident memory per kind: median, min and max over ``--runs`` runs (memory: the median). Timings on a shared machine
vary; compare kinds of the same call.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMPORT = "import db.typing_model"
WARM = "from db.typing_model import warm_model; warm_model()"


def run(code: str, env: dict[str, str]) -> tuple[float, float, float]:
    """(CPU seconds, wall seconds, peak resident MB) of one fresh ``python -c code``."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{code!r} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024


def summary(values: list[float]) -> str:
    return f"median {statistics.median(values):6.2f}  min {min(values):6.2f}  max {max(values):6.2f}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_typing_load", description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as cache:
        base = os.environ | {"PYTHONPATH": str(ROOT)}
        kinds = {
            "import": (IMPORT, base | {"CORPUS_MODEL_CACHE": "off"}),
            "built": (WARM, base | {"CORPUS_MODEL_CACHE": "off"}),
            "cached": (WARM, base | {"CORPUS_MODEL_CACHE": cache}),
        }
        run(WARM, kinds["cached"][1])  # fills the cache (and warms the disk cache for every kind)
        figures: dict[str, list[tuple[float, float, float]]] = {kind: [] for kind in kinds}
        for _ in range(args.runs):
            for kind, (code, env) in kinds.items():
                figures[kind].append(run(code, env))

    print(f"loading the typing model in a fresh process ({args.runs} runs of each, in turn; seconds)")
    for kind, runs in figures.items():
        cpu, wall, rss = zip(*runs)
        print(f"  {kind:7s} cpu {summary(cpu)}   wall {summary(wall)}   peak MB {statistics.median(rss):6.0f}")
    cpu = {kind: statistics.median(c for c, _, _ in runs) for kind, runs in figures.items()}
    built, cached = cpu["built"] - cpu["import"], cpu["cached"] - cpu["import"]
    print(f"  the load alone (median CPU minus the imports'): built {built:.2f} s, cached {cached:.2f} s")


if __name__ == "__main__":
    main()
