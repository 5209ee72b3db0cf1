"""ROUGE-L F between translators of the same sentence and phase (Table 2's first figure)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from corpus.agreement import WEIGHTING, rouge_summary
from corpus.metrics.base import Figure, FigureInputs, FigureResult, PhaseValue, Table2Row, phases
from corpus.records import PHASES
from corpus.rouge import ROUGE_SETTINGS, ROUGE_SIGNATURE
from corpus.vocabulary import Phase


class RougeL(Figure):
    key = "rouge_l"
    name = "ROUGE-L F"
    explanation = (
        "ROUGE-L F: how much two translations of the same sentence and phase share their wording in order "
        "(longest common subsequence of canonical words, 1 = identical), averaged per sentence and weighted "
        "by sentence length."
    )

    def compute(self, inputs: FigureInputs) -> FigureResult:
        section = rouge_summary(inputs.rouge)
        units, pairs_by_phase = section["units"], _pairs_by_phase(inputs)
        reason = "no sentence has 2 translations in this phase"
        values = {p: PhaseValue(section[p], None if section[p] is not None else reason, pairs_by_phase[p])
                  for p in PHASES}
        values["overall"] = PhaseValue(section["overall"], None if section["overall"] is not None else reason,
                                       section["pairs"])
        values["best"] = PhaseValue(section["best"], None if section["best"] is not None else reason,
                                    sum(units.values()))
        return FigureResult(self.key, phases(values), ROUGE_SIGNATURE, section)

    def signature(self, inputs: FigureInputs) -> Mapping[str, str]:
        return {"rouge_l": f"{ROUGE_SETTINGS}; equals rouge-score fmeasure (target = translator_a)",
                "rouge_l_weighting": WEIGHTING}

    def signature_text(self, annotators_per_item: int) -> str:
        return ROUGE_SIGNATURE

    def table2(self, section: Mapping) -> tuple[Table2Row, ...]:
        unweighted = section["unweighted"]
        return (
            Table2Row(self.key, "ROUGE-L F (weighted)", "ROUGE-L F",
                      section[Phase.AWARE], section[Phase.BLIND], section["overall"], section["best"]),
            Table2Row(self.key, "ROUGE-L F (unweighted)", "ROUGE-L F (unweighted)",
                      unweighted[Phase.AWARE], unweighted[Phase.BLIND], unweighted["overall"], unweighted["best"]),
        )

    def report_lines(self, report: Mapping) -> list[str]:
        rouge = report[self.key]
        return [
            f"ROUGE-L over {rouge['units'][Phase.AWARE]} aware and {rouge['units'][Phase.BLIND]} blind sentence units, "
            f"{rouge['pairs']} pairs; {rouge['excluded_units']} units excluded (fewer than 2 translations)"
        ]


def _pairs_by_phase(inputs: FigureInputs) -> dict[str, int]:
    rouge = inputs.rouge
    counts = dict.fromkeys(PHASES, 0)
    per_unit = np.bincount(rouge.pair_unit, minlength=len(rouge.unit_phase)).tolist()  # pairs of each unit
    for phase, n in zip(rouge.unit_phase, per_unit):
        if n:
            counts[phase] = counts.get(phase, 0) + n
    return counts


FIGURE = RougeL()
