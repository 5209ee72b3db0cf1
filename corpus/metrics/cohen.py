"""Cohen's kappa per annotator pair over the tokens both tagged, and each annotator against the others."""

from __future__ import annotations

from collections.abc import Mapping

from corpus.kappa import COHEN_SETTINGS, cohen_from_confusion
from corpus.metrics.base import Figure, FigureInputs, FigureResult, PhaseValue, phases


class CohenKappa(Figure):
    key = "cohen_kappa"
    name = "Cohen's kappa"

    def compute(self, inputs: FigureInputs) -> FigureResult:
        pairs, people = [], []
        for (a, b), tally in sorted(inputs.pair_tallies.items()):
            kappa = cohen_from_confusion(tally.confusion)
            pairs.append({
                "annotator_a": a, "annotator_b": b, "kappa": kappa.kappa, "reason": kappa.reason,
                "tokens": kappa.items, "translations": tally.translations,
            })
        for name, tally in sorted(inputs.annotator_tallies.items()):
            kappa = cohen_from_confusion(tally.confusion)
            people.append({
                "annotator": name, "kappa": kappa.kappa, "reason": kappa.reason, "tokens": kappa.items,
                "translations": tally.translations,
            })
        overall = PhaseValue(None, "Cohen's kappa is a figure per annotator pair (see the pairs)", len(pairs))
        return FigureResult(self.key, phases({"overall": overall}), "cohen:BIO",
                            {"pairs": pairs, "per_annotator": people})

    def signature(self, inputs: FigureInputs) -> Mapping[str, str]:
        return {"cohen_kappa": COHEN_SETTINGS}

    def signature_text(self, annotators_per_item: int) -> str:
        return "cohen:BIO"

    def report_lines(self, report: Mapping) -> list[str]:
        lines = ["Cohen's kappa per annotator pair"]
        for c in report[self.key]["pairs"]:
            kappa = f"{c['kappa']:.3f}" if c["kappa"] is not None else f"n/a ({c['reason']})"
            lines.append(f"  {c['annotator_a']} / {c['annotator_b']}: kappa {kappa}, {c['tokens']} tokens")
        if not report[self.key]["pairs"]:
            lines.append("  (no translation tagged by two annotators yet)")
        return lines


FIGURE = CohenKappa()
