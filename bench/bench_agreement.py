"""Benchmark of the agreement figures at the seed paper's scale: ``python -m bench.bench_agreement``.

Builds the benchmarks' synthetic project (``bench.synthetic``: 5,989 sentences, 4 translators per
phase, 2 of 4 annotators on every translation) in a temporary SQLite database with bulk inserts, then
prints: the time of all figures from the database, a plain ``rouge_score`` loop over the same pairs
(speed-up and a check that every value is identical), the figures on a corpus ten times larger, and
the dashboard's render time cold and warm (Streamlit AppTest).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.synthetic import PAPER_SENTENCES, generate, write_corpus
from corpus.agreement import MetricsInput, SentenceInfo, TagSet, TranslationInfo
from corpus.vocabulary import Phase

TARGETS = {"metrics_s": 1.0, "speedup": 20.0, "tenfold_s": 10.0, "render_cold_s": 1.5, "render_warm_s": 0.3}


def scaled_input(base: MetricsInput, factor: int) -> MetricsInput:
    """``factor`` disjoint copies of an input: the corpus ten times larger, same shape."""
    step_s = max(s.pk for s in base.sentences) + 1
    step_t = max(t.pk for t in base.translations) + 1
    sentences, translations, tag_sets = [], [], []
    for k in range(factor):
        sentences += [SentenceInfo(s.pk + k * step_s, f"{s.sentence_id}-{k}", s.domain, s.split, s.text, s.n_aspects, s.ordinal)
                      for s in base.sentences]
        translations += [TranslationInfo(t.pk + k * step_t, t.sentence_pk + k * step_s, t.phase, t.translator, t.text,
                                         t.untranslatable, t.submitted_at, t.aspects_mapped) for t in base.translations]
        tag_sets += [TagSet(a.translation_pk + k * step_t, a.annotator, a.tags, a.submitted_at) for a in base.tag_sets]
    return MetricsInput(sentences, translations, tag_sets, {}, base.annotators_per_item)


def _timed(fn, repeat: int = 1):
    """Best wall-clock time of ``repeat`` runs, and the result."""
    best = None
    result = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        elapsed = time.perf_counter() - t0
        best = elapsed if best is None else min(best, elapsed)
    return best, result


def _reference_loop() -> float:
    """A fixed pure-Python workload, so figures from a busy or throttled machine can be compared."""
    t0 = time.process_time()
    total = 0
    for i in range(3_000_000):
        total += i
    return time.process_time() - t0


def _cpu(fn) -> float:
    """CPU seconds of one run: what the code costs when other processes compete for the 2 cores."""
    t0 = time.process_time()
    fn()
    return time.process_time() - t0


def rouge_score_loop(report: dict, data: MetricsInput) -> tuple[float, int, int]:
    """The plain way: rouge-score's RougeScorer with our tokenizer, pair by pair; (seconds, pairs, mismatches)."""
    from rouge_score import rouge_scorer

    from corpus.rouge import CanonicalWords

    text_of = {}
    label = {s.pk: (s.domain, s.split, s.sentence_id) for s in data.sentences}
    for t in data.translations:
        text_of[(*label[t.sentence_pk], t.phase, t.translator)] = t.text
    scorer = rouge_scorer.RougeScorer(["rougeL"], tokenizer=CanonicalWords())
    rows = report["rouge_l_pairs"]
    t0 = time.perf_counter()
    values = []
    for r in rows:
        key = (r["domain"], r["split"], r["sentence_id"], r["phase"])
        values.append(scorer.score(text_of[(*key, r["translator_a"])], text_of[(*key, r["translator_b"])])["rougeL"].fmeasure)
    elapsed = time.perf_counter() - t0
    mismatches = sum(1 for r, v in zip(rows, values) if r["f"] != v)
    return elapsed, len(rows), mismatches


def write_report_json(engine, path: str) -> None:
    """The figures of project 1 as ``metrics --json`` has them, keys in the report's order (a change of order
    shows too): two runs of the same database give byte-identical files exactly when every figure is the same."""
    import json

    from corpus.metrics import compute_report
    from db.metrics_data import load_metrics_input

    with open(path, "w", encoding="utf-8") as out:
        json.dump(compute_report(load_metrics_input(engine, 1)), out, ensure_ascii=False, default=str)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_agreement", description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=PAPER_SENTENCES)
    parser.add_argument("--factor", type=int, default=10, help="size of the large corpus, in copies")
    parser.add_argument("--no-render", action="store_true", help="skip the dashboard render timing")
    parser.add_argument("--no-rouge-score", action="store_true", help="skip the plain rouge-score loop")
    parser.add_argument("--db", help="a SQLite database URL that holds the synthetic project already (nothing is "
                                     "built; the render's saves change it)")
    parser.add_argument("--json", metavar="PATH", help="write the metrics JSON of project 1 (``metrics --json``, keys "
                                                      "in the report's order) to PATH and stop: run it before and after a change, "
                                                      "on --db or the synthetic project, and compare the files")
    args = parser.parse_args(argv)

    from corpus.metrics import compute_report
    from db.engine import make_engine
    from db.metrics_data import load_metrics_input
    from db.schema import upgrade

    failed = []
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs, load average {load:.2f} at start; reference loop (3M integer additions) "
          f"{_reference_loop():.3f} s: every figure below scales with it")
    with tempfile.TemporaryDirectory(prefix="corpus-bench-") as tmp:
        url = args.db or f"sqlite:///{Path(tmp) / 'bench.db'}"
        engine = make_engine(url)
        if not args.db:
            upgrade(engine)
            t0 = time.perf_counter()
            synthetic = generate(args.sentences)
            t1 = time.perf_counter()
            write_corpus(engine, synthetic)
            t2 = time.perf_counter()
            print(f"synthetic corpus: {len(synthetic.sentences)} sentences, {len(synthetic.aspects)} aspect terms, "
                  f"{len(synthetic.translations)} translations, {len(synthetic.annotations)} annotations "
                  f"(built in {t1 - t0:.1f} s, written in {t2 - t1:.1f} s)")
            del synthetic  # the app process does not hold a second copy of the corpus
            gc.collect()

        if args.json:
            write_report_json(engine, args.json)
            print(f"metrics JSON of project 1 written to {args.json}")
            return 0

        def from_db():
            data = load_metrics_input(engine, 1)  # a DEFERRED read of its own, as the app's readers
            return data, compute_report(data)

        from bench.read_bounds import bound_line, load_average, lower_bound, metrics_statements, timed

        from_db()  # warm the imports and SQLite page cache, as a running app would be
        t_all, cpu_all, (data, report) = timed(from_db, repeat=5)

        def load_only():
            return load_metrics_input(engine, 1)

        t_load, cpu_load, _ = timed(load_only, repeat=5)
        bound = lower_bound(engine, metrics_statements(1), repeat=5)
        print(f"all figures from the database (best of 5): {t_all:.3f} s wall, {cpu_all:.3f} s CPU (load {t_load:.3f} s, "
              f"compute {t_all - t_load:.3f} s); target <= {TARGETS['metrics_s']} s; load average {load_average():.2f}")
        print("  " + bound_line("load (load_metrics_input, best of 5)", t_load, cpu_load, bound))
        if min(t_all, cpu_all) > TARGETS["metrics_s"]:
            failed.append("metrics time")
        if min(t_load / bound[0], cpu_load / max(bound[1], 1e-9)) > 2.0:
            failed.append("load vs lower bound")
        print(f"  ROUGE-L aware {report['rouge_l'][Phase.AWARE]:.4f}, blind {report['rouge_l'][Phase.BLIND]:.4f}, "
              f"overall {report['rouge_l']['overall']:.4f}, best {report['rouge_l']['best']:.4f}; "
              f"Fleiss kappa overall {report['fleiss_kappa']['overall']['kappa']:.4f}; "
              f"coverage {report['coverage']['fewer_in_blind']} sentences")

        from corpus.agreement import aspects_kept, rouge_agreement

        kept = aspects_kept(data)  # tag-based, not part of ROUGE-L: given to both sides of the comparison
        t_ours, _ = _timed(lambda: rouge_agreement(data, kept), repeat=5)
        if not args.no_rouge_score:
            t_plain, n_pairs, mismatches = rouge_score_loop(report, data)
            speedup = t_plain / t_ours
            print(f"ROUGE-L of {n_pairs} pairs: rouge-score loop {t_plain:.2f} s, ours {t_ours:.3f} s (best of 5) "
                  f"(tokenizing included) -> {speedup:.1f}x faster; target >= {TARGETS['speedup']}x; "
                  f"identical values: {'yes' if mismatches == 0 else f'NO ({mismatches} differ)'}")
            if speedup < TARGETS["speedup"] or mismatches:
                failed.append("rouge-score comparison")

        big = scaled_input(data, args.factor)
        t0, c0 = time.perf_counter(), time.process_time()
        big_report = compute_report(big)
        t_big, cpu_big = time.perf_counter() - t0, time.process_time() - c0
        print(f"{args.factor}x corpus ({len(big.sentences)} sentences, {len(big_report['rouge_l_pairs'])} pairs, "
              f"{len(big.tag_sets)} tag sets): all figures computed in {t_big:.2f} s (CPU {cpu_big:.2f} s); "
              f"target <= {TARGETS['tenfold_s']} s")
        if t_big > TARGETS["tenfold_s"]:
            failed.append("10x time")
        engine.dispose()
        # The dashboard's process holds none of the bench's corpora: millions of leftover objects would
        # make every full pass of the cyclic collector during the render several times slower.
        big = big_report = data = report = kept = _ = None
        gc.collect()

        if not args.no_render:
            from bench.dashboard_render import render_times  # the only part that needs Streamlit

            first, warm, cold = render_times(url)
            print(f"dashboard render (AppTest): after a new save (data caches cold) {cold:.2f} s "
                  f"(target <= {TARGETS['render_cold_s']} s); nothing changed {warm:.2f} s "
                  f"(target <= {TARGETS['render_warm_s']} s); first run in a fresh process {first:.2f} s")
            if cold > TARGETS["render_cold_s"] or warm > TARGETS["render_warm_s"]:
                failed.append("render time")
    print("all targets met" if not failed else f"targets missed: {', '.join(failed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
