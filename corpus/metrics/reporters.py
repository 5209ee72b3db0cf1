"""What the reports make of the figures, each iterating the registry: Table 2 (one builder, for the dashboard,
the dataset card, the CSV and the terminal), the reasons a value is undefined, the terminal report and the
method notes. They read a ``metrics --json`` report (or its summary), so the card, which has only that, and the
dashboard, which has the computed figures, show the same rows."""

from __future__ import annotations

from collections.abc import Mapping

from corpus.metrics.base import TABLE2_COLUMNS, Table2Row
from corpus.metrics import registry

BEST_EXPLANATION = (
    "Best: the chosen translation of each sentence (highest mean ROUGE-L against the others) scored against the rest."
)


def table2(report: Mapping) -> list[Table2Row]:
    """Table 2, every registered figure's rows in registry order (the figures a report lacks are skipped)."""
    return [row for f in registry.FIGURES if f.key in report for row in f.table2(report[f.key])]


def summary_rows(report: Mapping) -> list[dict]:
    """Table 2 as rows (figure, aware, blind, overall, best) of plain numbers, for the CSV and the dataset card."""
    return [row.numbers() for row in table2(report)]


def undefined_reasons(report: Mapping) -> list[str]:
    """Why each undefined value of Table 2 is undefined."""
    return [line for f in registry.FIGURES if f.key in report for line in f.undefined(report[f.key])]


def explanations() -> list[str]:
    """One line per figure that explains itself, "best" after ROUGE-L (the dashboard's method notes)."""
    lines = []
    for f in registry.FIGURES:
        if f.explanation:
            lines.append(f.explanation)
        if f.key == "rouge_l":
            lines.append(BEST_EXPLANATION)
    return lines


#: The method notes by their former names (``explanations()`` has every registered figure's).
EXPLANATIONS = {
    "rouge": registry.FIGURES[0].explanation if registry.FIGURES[0].key == "rouge_l" else "",
    "best": BEST_EXPLANATION,
    **{f.key.split("_")[0]: f.explanation for f in registry.FIGURES if f.explanation and f.key != "rouge_l"},
}


def number(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None else f"{value:.{digits}f}"


def format_report(report: Mapping) -> str:
    """A readable Table-2-like summary for the terminal, then each figure's own lines and the signature."""
    rows = table2(report)
    width = max([22, *(len(r.figure) + 1 for r in rows)])
    lines = ["Agreement (seed paper Table 2)", ""]
    lines.append(f"{'':{width}}" + "".join(f"{c:>10}" for c in TABLE2_COLUMNS))
    for row in rows:
        cells = [number(getattr(row, c)) if getattr(row, c) is not None or c != "best" else "" for c in TABLE2_COLUMNS]
        lines.append(f"{row.figure:{width}}" + "".join(f"{c:>10}" for c in cells).rstrip())
    for figure in registry.FIGURES:
        if figure.key in report:
            section = figure.report_lines(report)
            if section:
                lines += ["", *section]
    lines += ["", f"signature: {report['signature']['text']}"]
    return "\n".join(lines)
