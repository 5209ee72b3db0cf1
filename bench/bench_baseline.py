"""Benchmark: the CRF baseline on a paper-scale synthetic corpus (5,989 sentences); target < 60 s of training.

Builds the benchmarks' synthetic project (``bench.synthetic.build_corpus``) in a temporary
SQLite database, reads both sides as ``python -m corpus baseline`` does, then times training and scoring:
once as the project stands (train -> test split on both sides) and once as a project without a test
split (5-fold cross-validation over train, five models per domain and side: the slow case), and one
model on all Hindi gold (what background retraining for suggestions would cost). The exit code follows
the project as it stands (train -> test split).

    python -m bench.bench_baseline [--sentences 5989]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from bench.synthetic import PAPER_SENTENCES, build_corpus

TARGET_S = 60.0


def _timed(fn):
    c0, t0 = time.process_time(), time.perf_counter()
    result = fn()
    return result, time.perf_counter() - t0, time.process_time() - c0


def run(n_sentences: int = PAPER_SENTENCES) -> dict:
    from corpus.baseline import CrfSettings, dataset_baseline, train
    from db.baseline_data import english_sequences, hindi_sequences
    from db.engine import make_engine
    from db.schema import upgrade

    settings = CrfSettings()
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'bench.db'}")
        upgrade(engine)
        built = build_corpus(engine, n_sentences)
        (sides, load_s, _) = _timed(lambda: {"en": english_sequences(engine), "hi": hindi_sequences(engine)})
        engine.dispose()
    _, one_s, one_cpu = _timed(lambda: train(sides["hi"], settings))
    held_out, held_out_s, held_out_cpu = _timed(lambda: dataset_baseline(sides, settings))
    train_only = {side: [s for s in seqs if s.split == "train"] for side, seqs in sides.items()}
    cv, cv_s, cv_cpu = _timed(lambda: dataset_baseline(train_only, settings))
    return {**built, "load_s": load_s, "en": len(sides["en"]), "hi": len(sides["hi"]),
            "one_s": one_s, "one_cpu": one_cpu, "held_out": held_out, "held_out_s": held_out_s, "held_out_cpu": held_out_cpu,
            "cv": cv, "cv_s": cv_s, "cv_cpu": cv_cpu, "signature": held_out["signature"]}


def _f1(report: dict, side: str) -> str:
    return ", ".join(f"{d} {v['f1']:.3f}" for d, v in report[side].items() if v["f1"] is not None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=PAPER_SENTENCES)
    args = parser.parse_args(argv)
    r = run(args.sentences)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"corpus: {r['sentences']} sentences, {r['aspects']} aspect terms; read {r['en']} English and "
          f"{r['hi']} Hindi (final, gold) sentences in {r['load_s']:.1f} s")
    print(f"one CRF on all {r['hi']} Hindi gold sentences (what suggestions retrain): {r['one_s']:.1f} s wall, "
          f"{r['one_cpu']:.1f} s CPU")
    print(f"train -> test split, both sides: {r['held_out_s']:.1f} s wall, {r['held_out_cpu']:.1f} s CPU "
          f"(target < {TARGET_S:.0f} s); F1 en: {_f1(r['held_out'], 'en')}; hi: {_f1(r['held_out'], 'hi')}")
    print(f"5-fold CV over train, both sides: {r['cv_s']:.1f} s wall, {r['cv_cpu']:.1f} s CPU "
          f"(target < {TARGET_S:.0f} s); F1 en: {_f1(r['cv'], 'en')}; hi: {_f1(r['cv'], 'hi')}")
    print(f"signature: {r['signature']}")
    return 0 if min(r["held_out_s"], r["held_out_cpu"]) < TARGET_S else 1


if __name__ == "__main__":
    sys.exit(main())
