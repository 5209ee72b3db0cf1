"""Benchmark of automatic gold and the adjudication queue at the paper's scale: ``python -m bench.bench_adjudication``.

Builds the benchmarks' synthetic project (``bench.synthetic``: 5,989 sentences, 4 translators per
phase, 2 of 4 annotators on every translation) in a temporary SQLite database and prints: the first
``sync_agreed`` (every agreed item becomes gold at once, as after a restore that bypassed the
rule), a second one with nothing to do (what the Adjudication page pays after a change), and the
disagreement queue. No targets are set by an issue; the page reads both once per change.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from bench.synthetic import PAPER_SENTENCES, build_corpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_adjudication", description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=PAPER_SENTENCES)
    args = parser.parse_args(argv)

    from db.adjudication import disagreement_queue, gold_count, sync_agreed
    from db.engine import make_engine
    from db.schema import default_project, upgrade

    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'bench.db'}")
        upgrade(engine)
        build_corpus(engine, args.sentences)
        project = default_project(engine)

        def timed(label: str, call):
            t0 = time.perf_counter()
            result = call()
            print(f"{label}: {time.perf_counter() - t0:.2f} s", end="")
            return result

        written = timed("first sync of automatic gold", lambda: sync_agreed(engine, project))
        print(f" ({written} decisions written)")
        again = timed("sync with nothing to do", lambda: sync_agreed(engine, project))
        print(f" ({again} written)")
        queue = timed("disagreement queue", lambda: disagreement_queue(engine, project, include_resolved=True))
        with_gold, items = gold_count(engine, project)
        print(f" ({len(queue)} disagreements; {with_gold} of {items} items have gold)")
        engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
