"""Benchmark: phonetic Roman → Devanagari suggestions on the Dakshina Hindi dev lexicon.

``python -m bench.bench_translit [--dev PATH] [--limit N]`` prints top-1 and top-5 accuracy of
``corpus.transliterate.suggest`` (one row per attested romanization; a row is right when its gold Devanagari word is
the first / among the first five candidates), the old ITRANS converter's top-1 on the same rows, the mean and p99
time per word, the model's load time and the memory it takes. Targets: top-1 ≥ 0.60, top-5 ≥ 0.85, ≤ 5 ms a word.

The dev words are never in the model's training pairs (Dakshina's train, dev and test word sets do not overlap).
Dev is the reported test: every weight and beam in ``corpus.romanization`` was chosen on a held-out tenth of the
TRAIN words, never on dev. To reproduce that tuning set and its figures:

    python -m corpus.romanization_build --holdout 0.1 --holdout-out /tmp/holdout.tsv \
        --model-out /tmp/model_h.json.gz --lexicon-out /tmp/lex_h.tsv.gz
    python -m bench.bench_translit --dev /tmp/holdout.tsv --model /tmp/model_h.json.gz --lexicon /tmp/lex_h.tsv.gz

(the held-out words are left out of that model's pairs and of its lexicon's train words, as dev's are.) The shipped
reranker is fitted on the candidate lists of ten folds: each fold holds out a tenth of the train words and builds a
model without them, so every train word is ranked once by a model that never saw it (44,204 lists). Its held-out
figure is the leave-one-fold-out one the fit prints (fitting on all lists and benching them would be in-sample):

    for k in 0 1 2 3 4 5 6 7 8 9; do python -m corpus.romanization_build --fold $k --fold-dir /tmp/folds; done
    python -m corpus.romanization_build --fit-rerank-folds /tmp/folds

(``--fit-rerank ROWS --model-out M --lexicon-out L`` still fits on one held-out set, as the first reranker was.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import tracemalloc
import unicodedata
from pathlib import Path

DAKSHINA = Path(__file__).resolve().parents[2] / "shared" / "data" / "dakshina-hi"


def read_dev(path: Path) -> list[tuple[str, str]]:
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            roman, deva, _count = line.split("\t")
            rows.append((roman, unicodedata.normalize("NFC", deva)))
    return rows


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", type=Path, default=DAKSHINA / "hi.translit.sampled.dev.tsv")
    ap.add_argument("--limit", type=int, default=0, help="only the first N rows (0: all)")
    ap.add_argument("--model", type=Path, help="another model file (default: the shipped one)")
    ap.add_argument("--lexicon", type=Path, help="another lexicon file (default: the shipped one)")
    args = ap.parse_args(argv)

    from corpus import romanization
    if args.model:
        romanization.MODEL_PATH = args.model
    if args.lexicon:
        romanization.LEXICON_PATH = args.lexicon
    from corpus.transliterate import suggest, to_devanagari

    rows = read_dev(args.dev)
    if args.limit:
        rows = rows[: args.limit]

    romanization.load_model.cache_clear()
    t0 = time.perf_counter()
    romanization.load_model()
    load_s = time.perf_counter() - t0
    romanization.load_model.cache_clear()
    tracemalloc.start()
    romanization.load_model()
    model_mb = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()

    top1 = top5 = itrans1 = 0
    times, cpu_times = [], []
    for roman, gold in rows:
        t, c = time.perf_counter(), time.process_time()
        cands = suggest(roman, 5)
        times.append(time.perf_counter() - t)
        cpu_times.append(time.process_time() - c)
        top1 += bool(cands) and cands[0] == gold
        top5 += gold in cands
        itrans1 += to_devanagari(roman, "itrans") == gold
    n = len(rows)
    print(f"Dakshina hi {'dev (the reported test; never tuned on)' if args.dev.name.endswith('dev.tsv') else 'rows'}: "
          f"{n} romanizations of {len({g for _, g in rows})} words ({args.dev.name})")
    print(f"{'':24}{'top-1':>8}{'top-5':>8}")
    print(f"{'suggest (this model)':24}{top1 / n:>8.3f}{top5 / n:>8.3f}")
    print(f"{'to_devanagari itrans':24}{itrans1 / n:>8.3f}{'-':>8}")
    print(f"time per word: mean {1000 * statistics.fmean(times):.2f} ms, "
          f"p50 {1000 * percentile(times, 0.50):.2f} ms, p99 {1000 * percentile(times, 0.99):.2f} ms, "
          f"max {1000 * max(times):.2f} ms")
    print(f"CPU time per word (this process only, unaffected by other load): mean "
          f"{1000 * statistics.fmean(cpu_times):.2f} ms, p99 {1000 * percentile(cpu_times, 0.99):.2f} ms")
    print(f"load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"model load: {load_s:.2f} s, memory {model_mb:.0f} MB (tracemalloc, model and lexicon)")
    print("targets: top-1 >= 0.60, top-5 >= 0.85, mean <= 5 ms, memory < 150 MB")


if __name__ == "__main__":
    main()
