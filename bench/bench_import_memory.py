"""Benchmark: peak memory of ``import-semeval`` on a large file and of ``evaluate`` on an oversized input.

``python -m bench.bench_import_memory [--semeval-mb 38] [--evaluate-mb 100] [--keep DIR]`` writes, in a
temporary folder:

- a synthetic SemEval-2014 XML file of about 38 MB (the sentences of ``bench.bench_import``, repeated
  with new ids), imported with ``python -m corpus import-semeval`` into an empty SQLite database;
- the benchmarks' small synthetic project (``bench.synthetic``, with a test split and gold) and a
  predictions file of about 100 MB (its exported ``conll/test.conll`` over and over), handed to
  ``python -m corpus evaluate``, which must refuse it; and one of about 30 MB, under ``evaluate``'s cap
  of 32 MB, which it reads through (a line at a time) before refusing it for its surplus sentences;

and runs each command in a child process of its own, printing its exit code, wall time and peak resident
memory (its own ``VmHWM``, read as it exits), beside the peak of a child that only creates the empty database
(``init``: the interpreter, SQLAlchemy and the migrations), so the figure the input adds can be read off.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.bench_import import synthetic_file

ROOT = Path(__file__).resolve().parent.parent


# The child reports its own VmHWM as it exits: ru_maxrss would also count the parent's memory at the fork
# (Linux keeps the larger peak across exec), and this parent holds the generated project.
_CHILD = """
import atexit, os, runpy, sys

def report():
    with open('/proc/self/status') as status:
        peak = next(line for line in status if line.startswith('VmHWM:'))
    with open(os.environ['BENCH_PEAK_FILE'], 'w') as out:
        out.write(peak.split()[1])

atexit.register(report)
sys.argv = ['corpus', *sys.argv[1:]]
runpy.run_module('corpus', run_name='__main__', alter_sys=True)
"""


def run_child(argv: list[str]) -> tuple[int, float, float, str]:
    """(exit code, seconds, peak resident MB, last stderr line) of ``python -m corpus ARGV``."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r") as peak:
        child = subprocess.run([sys.executable, "-c", _CHILD, *argv], cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=err, env={**os.environ, "BENCH_PEAK_FILE": peak.name}, check=False)
        err.seek(0)
        lines = err.read().decode("utf-8", "replace").strip().splitlines()
        peak_kb = float(peak.read() or "nan")
    return child.returncode, time.perf_counter() - started, peak_kb / 1024, (lines[-1] if lines else "")


def write_semeval(path: Path, megabytes: float) -> tuple[int, int]:
    """A SemEval file of about ``megabytes`` MB; returns (sentences, aspect terms)."""
    block = synthetic_file(3041, 3693, 1)
    head, _, rest = block.partition("<sentences>")
    body = rest.rsplit("</sentences>", 1)[0]
    sentences_per_block, aspects_per_block = body.count("<sentence "), body.count("<aspectTerm ")
    target = int(megabytes * 1024 * 1024)
    copies = max(1, target // len(body.encode()))
    with path.open("w", encoding="utf-8") as out:
        out.write(head + "<sentences>")
        for copy in range(copies):
            out.write(body.replace('<sentence id="', f'<sentence id="c{copy}-'))
        out.write("\n</sentences>\n")
    return copies * sentences_per_block, copies * aspects_per_block


def small_project(folder: Path) -> tuple[str, bytes]:
    """The small synthetic project's database URL and its exported test split as CoNLL."""
    from bench.synthetic import build_corpus
    from db.engine import make_engine
    from db.export_data import ExportOptions, export_files
    from db.schema import upgrade

    url = f"sqlite:///{folder / 'evaluate.db'}"
    engine = make_engine(url)
    upgrade(engine)
    build_corpus(engine, 120)
    files, _ = export_files(engine, ExportOptions(), ["conll"])
    engine.dispose()
    return url, (files["conll/test.conll"].rstrip("\n") + "\n\n").encode()


def write_oversized_predictions(folder: Path, one: bytes, megabytes: float) -> Path:
    """A predictions file of about ``megabytes`` MB: the test split's CoNLL over and over."""
    path = folder / f"predictions-{megabytes:g}MB.conll"
    copies = max(1, int(megabytes * 1024 * 1024) // len(one))
    with path.open("wb") as out:
        for _ in range(copies):
            out.write(one)
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--semeval-mb", type=float, default=38.0)
    parser.add_argument("--evaluate-mb", type=float, default=100.0)
    parser.add_argument("--evaluate-under-mb", type=float, default=30.0,
                        help="a second predictions file, under evaluate's 32 MB cap, read through")
    parser.add_argument("--keep", help="write the files into this folder and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep) if args.keep else Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        xml = folder / "Restaurants_Train_large.xml"
        sentences, aspects = write_semeval(xml, args.semeval_mb)
        db = f"sqlite:///{folder / 'import.db'}"
        code, took, floor, _ = run_child(["--db", db, "init"])
        print(f"the command line and its database alone (init of an empty SQLite file): peak {floor:.0f} MB")
        code, took, peak, last = run_child(["--db", db, "import-semeval", str(xml), "--domain", "restaurant",
                                            "--split", "train"])
        print(f"import-semeval of {xml.stat().st_size / 1e6:.1f} MB ({sentences:,} sentences, {aspects:,} aspect "
              f"terms): exit {code}, {took:.1f} s, peak {peak:.0f} MB")
        if code:
            print(f"  stderr: {last}")

        url, one = small_project(folder)
        tiny = folder / "tiny.conll"
        tiny.write_bytes(b"x\tO\n")
        code, took, floor, _ = run_child(["--db", url, "evaluate", str(tiny), "--name", "tiny"])
        print(f"evaluate of a 4-byte file (the command's own floor: its imports and the test split): exit {code}, "
              f"peak {floor:.0f} MB")
        for megabytes in (args.evaluate_mb, args.evaluate_under_mb):
            predictions = write_oversized_predictions(folder, one, megabytes)
            code, took, peak, last = run_child(["--db", url, "evaluate", str(predictions), "--name", "oversized"])
            print(f"evaluate of {predictions.stat().st_size / 1e6:.1f} MB: exit {code} (refused: {code != 0}), "
                  f"{took:.1f} s, peak {peak:.0f} MB")
            print(f"  stderr: {last[:200]}")


if __name__ == "__main__":
    main()
