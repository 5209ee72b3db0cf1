"""Exact-match aspect span F1 per annotator pair, each annotator against the others, and over every pair."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from corpus.kappa import SPAN_F1_SETTINGS, PairTally, span_f1
from corpus.metrics.base import Figure, FigureInputs, FigureResult, PhaseValue, phases


class SpanF1(Figure):
    key = "span_f1"
    name = "span F1"

    def compute(self, inputs: FigureInputs) -> FigureResult:
        tallies = inputs.pair_tallies
        pairs, people = [], []
        for (a, b), tally in sorted(tallies.items()):
            f1, why = span_f1(tally)
            pairs.append({
                "annotator_a": a, "annotator_b": b, "f1": f1, "reason": why, "spans_a": tally.spans_a,
                "spans_b": tally.spans_b, "matched": tally.matched, "translations": tally.translations,
            })
        for name, tally in sorted(inputs.annotator_tallies.items()):
            f1, why = span_f1(tally)
            people.append({
                "annotator": name, "f1": f1, "reason": why, "spans": tally.spans_a, "others_spans": tally.spans_b,
                "matched": tally.matched,
            })
        total = PairTally(np.zeros((3, 3), dtype=np.int64))
        for tally in tallies.values():
            total += tally
        overall, why = span_f1(total) if tallies else (None, "no translation tagged by two annotators")
        section = {
            "pairs": pairs,
            "per_annotator": people,
            "overall": overall,
            "overall_reason": why,
            "repaired_tag_sets": int(np.count_nonzero(inputs.tags.stray_i_counts())),
        }
        n = total.spans_a + total.spans_b
        return FigureResult(self.key, phases({"overall": PhaseValue(overall, why, n)}), "spanF1:exact", section)

    def signature(self, inputs: FigureInputs) -> Mapping[str, str]:
        return {"span_f1": SPAN_F1_SETTINGS}

    def signature_text(self, annotators_per_item: int) -> str:
        return "spanF1:exact"

    def report_lines(self, report: Mapping) -> list[str]:
        section = report[self.key]
        lines = ["Exact span F1 per annotator pair"]
        for f in section["pairs"]:
            f1 = f"{f['f1']:.3f}" if f["f1"] is not None else f"n/a ({f['reason']})"
            lines.append(f"  {f['annotator_a']} / {f['annotator_b']}: span F1 {f1}, {f['matched']} of "
                         f"{f['spans_a']} + {f['spans_b']} spans matched")
        if not section["pairs"]:
            lines.append("  (no translation tagged by two annotators yet)")
        return lines


FIGURE = SpanF1()
