"""Benchmark: the project archive of a paper-scale corpus (5,989 sentences): size, backup and restore times.

Builds the benchmarks' synthetic project (``bench.synthetic``) in a temporary SQLite database, adds one revision per
translation and annotation (a save's snapshot, as the app writes them), then times backup → restore into an
empty SQLite database → backup again (checking the bytes are identical), and the same through PostgreSQL when
``--pg URL`` names an empty, migrated database (or a server where it may create one with ``--pg-create``).

    python -m bench.bench_backup [--sentences 5989] [--pg postgresql://...] [--keep FILE.zip]
"""

from __future__ import annotations

import argparse
import io
import resource
import tempfile
import time
from pathlib import Path

from sqlalchemy import insert, select
from sqlalchemy.orm import Session


def _add_revisions(engine) -> int:
    """One revision per translation and annotation, with the snapshot payload a save stores."""
    from corpus.vocabulary import RevisionAction
    from db.models import Annotation, Revision, Translation

    with Session(engine) as session:
        rows = [{"entity": "translation", "entity_id": t.id, "version": t.version, "author_id": t.translator_id,
                 "action": RevisionAction.SUBMIT, "payload": {"text": t.text, "status": t.status, "phase": t.phase,
                                                 "untranslatable": t.untranslatable}}
                for t in session.scalars(select(Translation))]
        rows += [{"entity": "annotation", "entity_id": a.id, "version": a.version, "author_id": a.annotator_id,
                  "action": RevisionAction.SUBMIT, "payload": {"tags": a.tags, "no_aspects": a.no_aspects, "status": a.status}}
                 for a in session.scalars(select(Annotation))]
        session.execute(insert(Revision), rows)
        session.commit()
    return len(rows)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _timed(label: str, fn, results: dict):  # noqa: ANN001, ANN202
    start, cpu = time.perf_counter(), time.process_time()
    value = fn()
    results[label] = time.perf_counter() - start
    results[label.removesuffix("_s") + "_cpu_s"] = time.process_time() - cpu
    return value


def run(n_sentences: int, pg_url: str | None, keep: str | None = None) -> dict:
    from bench.synthetic import build_corpus
    from db.backup import make_backup, restore_archive
    from db.engine import make_engine
    from db.schema import upgrade

    r: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        source = make_engine(f"sqlite:///{Path(tmp) / 'source.db'}")
        upgrade(source)
        r.update(build_corpus(source, n_sentences))
        r["revisions"] = _add_revisions(source)
        r["rss_before_mb"] = _rss_mb()
        first = _timed("backup_s", lambda: make_backup(source), r)
        r["archive_bytes"] = len(first)
        if keep:
            Path(keep).write_bytes(first)
        r["rss_backup_mb"] = _rss_mb()
        target = make_engine(f"sqlite:///{Path(tmp) / 'target.db'}")
        upgrade(target)
        _timed("restore_sqlite_s", lambda: restore_archive(target, io.BytesIO(first), "bench.zip"), r)
        r["rss_restore_mb"] = _rss_mb()
        r["identical_sqlite"] = make_backup(target) == first
        if pg_url:
            pg = make_engine(pg_url)
            upgrade(pg)
            _timed("restore_pg_s", lambda: restore_archive(pg, io.BytesIO(first), "bench.zip", replace=True), r)
            again = _timed("backup_pg_s", lambda: make_backup(pg), r)
            r["identical_pg"] = again == first
            pg.dispose()
        source.dispose()
        target.dispose()
    return r


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=5989)
    parser.add_argument("--pg", help="an empty PostgreSQL database to restore into as well (it is replaced)")
    parser.add_argument("--keep", metavar="FILE.zip", help="also write the archive here (e.g. to time the CLI)")
    args = parser.parse_args(argv)
    r = run(args.sentences, args.pg, args.keep)
    print(f"corpus: {r['sentences']} sentences, {r['translations']} translations, {r['annotations']} annotations, "
          f"{r['revisions']} revisions")
    print(f"archive {r['archive_bytes'] / 1e6:.1f} MB | backup {r['backup_s']:.1f} s ({r['backup_cpu_s']:.1f} s CPU) "
          f"| restore into empty SQLite {r['restore_sqlite_s']:.1f} s ({r['restore_sqlite_cpu_s']:.1f} s CPU) | "
          f"backup again identical: {r['identical_sqlite']}")
    if args.pg:
        print(f"PostgreSQL: restore {r['restore_pg_s']:.1f} s ({r['restore_pg_cpu_s']:.1f} s CPU of this process) | "
              f"backup {r['backup_pg_s']:.1f} s ({r['backup_pg_cpu_s']:.1f} s CPU) | identical: {r['identical_pg']}")
    print(f"peak RSS: {r['rss_before_mb']:.0f} MB after building, {r['rss_backup_mb']:.0f} MB after backup, "
          f"{r['rss_restore_mb']:.0f} MB after restore")
    return 0 if r["identical_sqlite"] and r.get("identical_pg", True) else 1


if __name__ == "__main__":
    raise SystemExit(main())
