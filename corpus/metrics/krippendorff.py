"""Krippendorff's alpha (nominal) between annotators over the B/I/O tags of tokens, the measure INCEpTION and
Potato offer; over Fleiss' kappa's units (the tokens of each translation tagged by exactly K annotators), per
phase and overall.

With every unit rated by m annotators, a unit with n_uc ratings of category c adds n_uc (n_uc - 1) / (m - 1) to
the coincidence o_cc; over n = units x m pairable values with n_c of category c,
alpha = 1 - (n - 1) (n - sum o_cc) / (n^2 - sum n_c^2) (Krippendorff 2011, "Computing Krippendorff's alpha").
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from corpus.kappa import pattern_counts
from corpus.metrics.base import Figure, FigureInputs, FigureResult, PhaseValue, Table2Row, phase_rows, phases
from corpus.records import PHASES

SETTINGS = "Krippendorff's alpha, nominal, over tokens; categories B, I, O; units as Fleiss' kappa's"


def alpha_from_patterns(frequency: np.ndarray, raters: int) -> dict:
    """Alpha of the units counted per ``rating_patterns`` value (``TagTable.pattern_frequency``), or None with
    the reason it is undefined; ``items``: units, ``raters``: annotators per unit."""
    units = int(frequency.sum())
    if units == 0:
        return {"value": None, "reason": "no items: no token was tagged by the full number of annotators",
                "items": 0, "raters": raters}
    if raters < 2:
        return {"value": None, "reason": "fewer than 2 annotators per item", "items": units, "raters": raters}
    counts = pattern_counts(raters).astype(np.float64)
    weight = frequency.astype(np.float64)
    n = float(units * raters)
    n_c = weight @ counts
    observed_agreement = float(weight @ (counts * (counts - 1.0)).sum(axis=1)) / (raters - 1)
    expected_disagreement = n * n - float((n_c * n_c).sum())
    if expected_disagreement == 0:
        only = "BIO"[int(np.argmax(n_c))]
        return {"value": None, "reason": f"every annotator gave every item the same label ({only}): no variation, "
                "alpha undefined", "items": units, "raters": raters}
    alpha = 1.0 - (n - 1.0) * (n - observed_agreement) / expected_disagreement
    return {"value": alpha, "reason": None, "items": units, "raters": raters}


class KrippendorffAlpha(Figure):
    key = "krippendorff_alpha"
    name = "Krippendorff's alpha"
    explanation = (
        "Krippendorff's alpha: annotators' agreement on each token's B/I/O tag beyond chance (nominal; 1 = perfect, "
        "0 = chance), over the same tokens as Fleiss' kappa."
    )

    def compute(self, inputs: FigureInputs) -> FigureResult:
        k = inputs.data.annotators_per_item
        group_phase = inputs.phase_of_group
        section: dict = {}
        if k >= 2 and group_phase:
            names, frequency = inputs.tags.pattern_frequency(group_phase, k)
            by_phase = dict(zip(names, frequency))
            _, pooled = inputs.tags.pattern_frequency(["overall"] * len(group_phase), k)
        else:
            by_phase, pooled = {}, np.zeros((1, 1), dtype=np.int64)
        for phase in PHASES:
            section[phase] = alpha_from_patterns(by_phase.get(phase, np.zeros(1, dtype=np.int64)), k)
        section["overall"] = alpha_from_patterns(pooled[0], k)
        section["annotators_per_item"] = k
        values = {p: PhaseValue(section[p]["value"], section[p]["reason"], section[p]["items"])
                  for p in (*PHASES, "overall")}
        return FigureResult(self.key, phases(values), f"alpha:nominal,BIO,k={k}", section)

    def signature(self, inputs: FigureInputs) -> Mapping[str, str]:
        return {self.key: SETTINGS}

    def signature_text(self, annotators_per_item: int) -> str:
        return f"alpha:nominal,BIO,k={annotators_per_item}"

    def table2(self, section: Mapping) -> tuple[Table2Row, ...]:
        return (phase_rows(self.key, "Krippendorff's alpha (B/I/O tokens)", self.name, section),)

    def undefined(self, section: Mapping) -> list[str]:
        return [f"Krippendorff's alpha {p}: {section[p]['reason']}" for p in (*PHASES, "overall")
                if section[p]["value"] is None]

    def report_lines(self, report: Mapping) -> list[str]:
        section = report[self.key]
        return [f"Krippendorff's alpha {p}: " + (f"undefined - {section[p]['reason']}" if section[p]["value"] is None
                                                 else f"{section[p]['items']} tokens, {section[p]['raters']} annotators each")
                for p in (*PHASES, "overall")]


FIGURE = KrippendorffAlpha()
