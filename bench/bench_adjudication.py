"""Benchmark of automatic gold and the adjudication queue at the paper's scale: ``python -m bench.bench_adjudication``.

Builds the benchmarks' synthetic project (``bench.synthetic``: 5,989 sentences, 4 translators per
phase, 2 of 4 annotators on every translation) in a temporary SQLite database (or uses ``--db``, a
database built before, e.g. with ``--keep``) and prints: the first ``sync_agreed`` (every agreed item
becomes gold at once, as after a restore that bypassed the rule), a second one with nothing to do (what
the Adjudication page pays after a change), the disagreement queue (the Adjudication page's list) and
the open-disagreement count (the lead's Home), each best of ``--repeat`` runs, wall and CPU seconds, with
the load average (other work on the machine shows as wall time above CPU time).

Targets (issue 16): the queue within 3 s, its lines (what the Home and Adjudication pages share) and the
count within 1 s at the paper's scale. The command exits non-zero when the lines or the count differ from
the queue, or a best wall time misses its target.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench.synthetic import PAPER_SENTENCES, build_corpus

QUEUE_TARGET_S = 3.0
COUNT_TARGET_S = 1.0


def _timed(label: str, call, repeat: int = 1):
    """Best wall and CPU time of ``repeat`` calls; prints them and returns the last result."""
    walls, cpus = [], []
    for _ in range(repeat):
        load = os.getloadavg()[0]
        wall, cpu = time.perf_counter(), time.process_time()
        result = call()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    print(f"{label}: {min(walls):.2f} s wall, {min(cpus):.2f} s CPU (best of {repeat}; load {load:.1f})", end="")
    return result, min(walls)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_adjudication", description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=PAPER_SENTENCES)
    parser.add_argument("--db", help="a database built before (a SQLAlchemy URL); nothing is built or synced")
    parser.add_argument("--keep", help="copy the built SQLite database to this file, for --db later")
    parser.add_argument("--repeat", type=int, default=3, help="runs of the queue and of the count")
    args = parser.parse_args(argv)

    from db.adjudication import sync_agreed
    from db.disagreement_queue import disagreement_queue, disagreements, gold_count, open_disagreement_count
    from db.engine import make_engine
    from db.schema import default_project, upgrade

    with tempfile.TemporaryDirectory() as tmp:
        if args.db:
            engine = make_engine(args.db)
            project = default_project(engine)
        else:
            path = Path(tmp) / "bench.db"
            engine = make_engine(f"sqlite:///{path}")
            upgrade(engine)
            build_corpus(engine, args.sentences)
            project = default_project(engine)
            written, _ = _timed("first sync of automatic gold", lambda: sync_agreed(engine, project))
            print(f" ({written} decisions written)")
            again, _ = _timed("sync with nothing to do", lambda: sync_agreed(engine, project))
            print(f" ({again} written)")
            if args.keep:
                engine.dispose()
                shutil.copyfile(path, args.keep)
                print(f"kept the database as {args.keep}")
        queue, queue_s = _timed("disagreement queue", lambda: disagreement_queue(engine, project, include_resolved=True),
                                args.repeat)
        waiting = sum(1 for e in queue if not e.resolved)
        print(f" ({len(queue)} disagreements, {waiting} open)")
        lines, lines_s = _timed("queue lines (what Home and Adjudication share)",
                                lambda: disagreements(engine, project), args.repeat)
        print(f" ({len(lines)} lines)")
        count, count_s = _timed("open disagreements (Home's count)", lambda: open_disagreement_count(engine, project),
                                args.repeat)
        print(f" ({count})")
        with_gold, items = gold_count(engine, project)
        print(f"{with_gold} of {items} items have gold")
        engine.dispose()
    problems = []
    if count != waiting:
        problems.append(f"the count ({count}) is not the queue's open entries ({waiting})")
    if [(d.item_id, d.resolved, d.disagreement) for d in lines] != [(e.item_id, e.resolved, e.disagreement)
                                                                     for e in queue]:
        problems.append("the queue lines are not the queue's items, order and states")
    if queue_s > QUEUE_TARGET_S:
        problems.append(f"queue {queue_s:.2f} s > {QUEUE_TARGET_S} s")
    if max(lines_s, count_s) > COUNT_TARGET_S:
        problems.append(f"queue lines {lines_s:.2f} s or count {count_s:.2f} s > {COUNT_TARGET_S} s")
    sys.stdout.flush()
    for problem in problems:
        print(f"MISSED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
