"""Benchmark: audit a generated 5,000-sentence Akhtar-style file; the target is ≤ 2 s.

``python -m bench.bench_audit [--sentences N] [--keep PATH]`` prints the time of a full audit
(reading, Table 1, defects, script consistency), the best of three runs.
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from corpus.audit import audit_file

DOMAINS = ("app", "cam", "hom", "lap", "mob", "mov", "pol", "sma", "tab", "tra", "tv", "mus")
TERMS = ("प्रोसेसर", "processor", "कीबोर्ड", "की-बोर्ड", "बैटरी लाइफ", "battery life", "स्क्रीन",
         "मेगापिक्सल कैमरा", "megapixel camera", "डिस्प्ले", "स्पीकर", "कीमत", "सर्विस", "डिज़ाइन",
         "साउंड क्वालिटी", "रैम", "हार्ड ड्राइव", "ऐप", "सॉफ़्टवेयर", "software", "चार्जर", "बटन")
FILLERS = ("इस", "फ़ोन", "का", "की", "में", "बहुत", "अच्छा", "खराब", "है", "था", "और", "लेकिन",
           "मुझे", "पसंद", "आया", "नहीं", "काफ़ी", "तेज़", "धीमा", "सस्ता", "महंगा", "लगता")


CONSONANTS = "कखगचजटडतदनपबमयरलवसह"
MATRAS = ("", "ा", "ि", "ी", "ु", "ू", "े", "ो")


def _synthetic_term(rng: random.Random) -> str:
    """A made-up Devanagari word, so the file holds thousands of distinct term forms like real data."""
    return "".join(rng.choice(CONSONANTS) + rng.choice(MATRAS) for _ in range(rng.randint(2, 4)))


def generate(n: int, seed: int = 7) -> str:
    """A SemEval-style XML with ``n`` Hindi sentences, some aspects and a sprinkling of defects."""
    rng = random.Random(seed)
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<sentences>"]
    for i in range(n):
        domain = DOMAINS[i % len(DOMAINS)] if i % 97 else "tv"
        words = [rng.choice(FILLERS) for _ in range(rng.randint(6, 18))]
        aspects = []
        chosen: set[str] = set()
        for _ in range(rng.choice((0, 0, 1, 1, 1, 2))):
            term = rng.choice(TERMS) if rng.random() < 0.5 else _synthetic_term(rng)
            pos = rng.randint(0, len(words))
            words.insert(pos, term)
            chosen.add(term)
        text = " ".join(words) + "।"
        cursor = 0
        for term in (w for w in words if w in chosen):
            start = text.index(term, cursor)
            end = start + len(term)
            cursor = end
            defect = rng.random()
            if defect < 0.03:
                end += 1  # swallows the following space
            elif defect < 0.05:
                end -= 1  # stops before the last character
            pol = rng.choice(("pos", "neg", "neu", "con"))
            aspects.append(f"      <aspectTerm term={quoteattr(term)} polarity=\"{pol}\" from=\"{start}\" to=\"{end}\"/>")
        out.append(f'  <sentence id="{domain}_{i}">')
        out.append(f"    <text>{escape(text)}</text>")
        if aspects:
            out += ["    <aspectTerms>", *aspects, "    </aspectTerms>"]
        out.append("  </sentence>")
    out.append("</sentences>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_audit", description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=5000)
    parser.add_argument("--keep", help="also write the generated file here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.keep) if args.keep else Path(tmp) / "bench.xml"
        path.write_text(generate(args.sentences), encoding="utf-8")
        times = []
        for _ in range(3):
            t0 = time.perf_counter()
            report = audit_file(path)
            times.append(time.perf_counter() - t0)
    t = report.table1
    print(f"audited {t['sentences']} sentences, {t['aspect_terms']} aspect terms, "
          f"{len(report.defects)} defects, {len(report.script_inconsistencies)} script inconsistencies")
    print(f"audit time: best {min(times):.3f} s, worst {max(times):.3f} s (target <= 2 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
