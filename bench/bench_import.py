"""Benchmark: import files the size of the four official SemEval-2014 files (7,686 sentences).

`python -m bench.bench_import [--db URL]` builds synthetic XML with the official sentence and aspect
counts, then times parse + all-or-nothing import into a fresh database, and (SQLite) the stream import the
command line runs. Target: under 3 s in all (as four command-line runs: bench/bench_cli_startup.py).
"""

from __future__ import annotations

import argparse
import io
import random
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

OFFICIAL = [  # file, domain, split, sentences, aspect terms
    ("Restaurants_Train_v2.xml", "restaurant", "train", 3041, 3693),
    ("Laptop_Train_v2.xml", "laptop", "train", 3045, 2358),
    ("Restaurants_Test_Gold.xml", "restaurant", "test", 800, 1134),
    ("Laptops_Test_Gold.xml", "laptop", "test", 800, 654),
]
WORDS = "the food was great but service slow battery life screen keyboard staff price menu drinks".split()


def synthetic_file(sentences: int, aspects: int, seed: int) -> str:
    rng = random.Random(seed)
    per = [0] * sentences
    for _ in range(aspects):
        per[rng.randrange(sentences)] += 1
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<sentences>"]
    for i, k in enumerate(per):
        words = [rng.choice(WORDS) for _ in range(rng.randint(8, 25))]
        text = " ".join(words)
        out.append(f'  <sentence id="{seed * 100000 + i}">')
        out.append(f"    <text>{escape(text)}</text>")
        if k:
            out.append("    <aspectTerms>")
            starts = sorted(rng.sample(range(len(words)), min(k, len(words))))
            for w in starts:
                start = len(" ".join(words[:w])) + (1 if w else 0)
                term = words[w]
                out.append(f'      <aspectTerm term={quoteattr(term)} polarity="positive" from="{start}" to="{start + len(term)}"/>')
            out.append("    </aspectTerms>")
        out.append("  </sentence>")
    out.append("</sentences>")
    return "\n".join(out)


def main() -> None:
    from corpus.semeval import parse_semeval
    from db.engine import make_engine
    from db.importing import import_semeval_stream, import_sentences
    from db.schema import upgrade

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", help="database URL (default: a temporary SQLite file)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(args.db or f"sqlite:///{Path(tmp) / 'bench.db'}")
        upgrade(engine)
        files = [(name, domain, split, synthetic_file(n, a, seed).encode())
                 for seed, (name, domain, split, n, a) in enumerate(OFFICIAL, start=1)]
        total_sentences = total_aspects = 0
        started = time.perf_counter()
        for name, domain, split, data in files:
            records, errors = parse_semeval(data, name, domain, split)
            assert not errors, errors[:3]
            summary = import_sentences(engine, records, name)
            total_sentences += summary.new_sentences
            total_aspects += summary.new_aspects
        elapsed = time.perf_counter() - started
        print(f"imported {total_sentences:,} sentences, {total_aspects:,} aspect terms "
              f"from 4 files in {elapsed:.2f} s ({engine.dialect.name}; target < 3 s)")
        started = time.perf_counter()
        for name, domain, split, data in files:
            import_sentences(engine, parse_semeval(data, name, domain, split)[0], name)
        print(f"re-import of the same files (changes nothing): {time.perf_counter() - started:.2f} s")
        engine.dispose()
        # what `python -m corpus import-semeval` runs (bench/bench_cli_startup.py times the four processes)
        if args.db is None:
            engine = make_engine(f"sqlite:///{Path(tmp) / 'stream.db'}")
            upgrade(engine)
            started, cpu = time.perf_counter(), time.process_time()
            for name, domain, split, data in files:
                import_semeval_stream(engine, lambda data=data: io.BytesIO(data), name, domain, split)
            print(f"the same files as the command line imports them (import_semeval_stream, a file at a time): "
                  f"{time.perf_counter() - started:.2f} s (CPU {time.process_time() - cpu:.2f} s)")
            engine.dispose()


if __name__ == "__main__":
    main()
