"""Aspect coverage: sentences whose aspect-blind translation kept fewer aspects than the aspect-aware one."""

from __future__ import annotations

from collections.abc import Mapping

from corpus.agreement import COVERAGE_DEFINITION, coverage
from corpus.metrics.base import Figure, FigureInputs, FigureResult, PhaseValue, phases


class Coverage(Figure):
    key = "coverage"
    name = "coverage"
    explanation = "Coverage: " + COVERAGE_DEFINITION + "."

    def compute(self, inputs: FigureInputs) -> FigureResult:
        section = coverage(inputs.data, inputs.kept, inputs.columns, inputs.sentences, inputs.kept_array)
        compared = section["compared"]
        share = section["fewer_in_blind"] / compared if compared else None
        why = None if compared else "no sentence has both an aspect-aware and an aspect-blind translation"
        return FigureResult(self.key, phases({"overall": PhaseValue(share, why, compared)}), "coverage:fewer-in-blind",
                            section)

    def signature(self, inputs: FigureInputs) -> Mapping[str, str]:
        return {"coverage": COVERAGE_DEFINITION}

    def report_lines(self, report: Mapping) -> list[str]:
        cov = report[self.key]
        percent = "n/a" if cov["percent"] is None else f"{cov['percent']:.1f}%"
        return [f"Coverage: {cov['fewer_in_blind']} of {cov['compared']} sentences ({percent}) kept fewer aspects "
                "in the aspect-blind phase"]


FIGURE = Coverage()
