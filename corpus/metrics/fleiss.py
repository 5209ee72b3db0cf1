"""Fleiss' kappa between annotators over the B/I/O tags of tokens (Table 2's second figure)."""

from __future__ import annotations

from collections.abc import Mapping

from corpus.kappa import FLEISS_SETTINGS, fleiss_over_translations
from corpus.metrics.base import Figure, FigureInputs, FigureResult, PhaseValue, Table2Row, phase_rows, phases
from corpus.records import PHASES


class FleissKappa(Figure):
    key = "fleiss_kappa"
    name = "Fleiss' kappa"
    explanation = (
        "Fleiss' kappa: how far annotators agree on each token's B/I/O tag beyond chance (1 = perfect, 0 = chance), "
        "over the translations tagged by all K annotators."
    )

    def compute(self, inputs: FigureInputs) -> FigureResult:
        data, table = inputs.data, inputs.tags
        k = data.annotators_per_item
        group_phase = inputs.phase_of_group
        by_phase = table.fleiss(group_phase, k)
        section: dict = {}
        for phase in PHASES:
            section[phase] = (by_phase.get(phase) or fleiss_over_translations([], k)).as_dict()
        overall = table.fleiss(["overall"] * len(group_phase), k).get("overall") or fleiss_over_translations([], k)
        section["overall"] = overall.as_dict()
        section["annotators_per_item"] = k
        section["invalid_tag_sets"] = data.invalid_tag_sets
        values = {p: PhaseValue(section[p]["kappa"], section[p]["reason"], section[p]["items"])
                  for p in (*PHASES, "overall")}
        return FigureResult(self.key, phases(values), f"fleiss:BIO,k={k}", section)

    def signature(self, inputs: FigureInputs) -> Mapping[str, str]:
        k = inputs.data.annotators_per_item
        return {"fleiss_kappa": f"{FLEISS_SETTINGS}; items: tokens of translations tagged by exactly {k} annotators"}

    def signature_text(self, annotators_per_item: int) -> str:
        return f"fleiss:BIO,k={annotators_per_item}"

    def table2(self, section: Mapping) -> tuple[Table2Row, ...]:
        return (phase_rows(self.key, "Fleiss' kappa (B/I/O tokens)", self.name, section),)

    def undefined(self, section: Mapping) -> list[str]:
        return [f"Fleiss' kappa {p}: {section[p]['reason']}" for p in (*PHASES, "overall") if section[p]["kappa"] is None]

    def report_lines(self, report: Mapping) -> list[str]:
        fleiss, lines = report[self.key], []
        for phase in (*PHASES, "overall"):
            entry = fleiss[phase]
            if entry["kappa"] is None:
                lines.append(f"Fleiss kappa {phase}: undefined - {entry['reason']}")
            else:
                lines.append(
                    f"Fleiss kappa {phase}: {entry['items']} tokens of {entry['translations']} translations, "
                    f"{entry['raters']} annotators each"
                )
        return lines


FIGURE = FleissKappa()
