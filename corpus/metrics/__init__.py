"""The agreement figures: one module per figure, a registry, and the reports that iterate it.

- ``corpus.metrics.base``: ``Figure`` (a registry entry), its typed ``FigureResult`` and ``Table2Row``.
- one module per figure: ``rouge_l``, ``fleiss``, ``cohen``, ``span_f1``, ``coverage``, ...
- ``corpus.metrics.registry``: ``FIGURES``, one line per figure.
- ``corpus.metrics.report``: ``compute_agreement`` / ``compute_report`` (``metrics --json``, keys ``REPORT_KEYS``).
- ``corpus.metrics.reporters``: Table 2 (one builder), undefined reasons, the terminal report, method notes.
- ``corpus.metrics.tables``: the dashboard's tables and chart series.

Everything public is importable from ``corpus.metrics`` itself, as before it became a package.
"""

from __future__ import annotations

from corpus.metrics.base import TABLE2_COLUMNS, Figure, FigureInputs, FigureResult, PhaseValue, Table2Row
from corpus.metrics.registry import FIGURES
from corpus.metrics.report import (
    REPORT_KEYS,
    Agreement,
    compute_agreement,
    compute_report,
    paused_gc,
    signature,
)
from corpus.metrics.reporters import (
    EXPLANATIONS,
    explanations,
    format_report,
    summary_rows,
    table2,
    undefined_reasons,
)
from corpus.metrics.tables import (
    agreement_by_week,
    annotator_pair_rows,
    annotator_rows,
    dashboard_tables,
    histogram,
    sentence_agreement,
    tagging_by_unit,
    token_agreement_values,
    week_labels,
)

__all__ = [
    "EXPLANATIONS", "FIGURES", "REPORT_KEYS", "TABLE2_COLUMNS", "Agreement", "Figure", "FigureInputs",
    "FigureResult", "PhaseValue", "Table2Row", "agreement_by_week", "annotator_pair_rows", "annotator_rows",
    "compute_agreement", "compute_report", "dashboard_tables", "explanations", "format_report", "histogram",
    "paused_gc", "sentence_agreement", "signature", "summary_rows", "table2", "tagging_by_unit",
    "token_agreement_values", "undefined_reasons", "week_labels",
]
