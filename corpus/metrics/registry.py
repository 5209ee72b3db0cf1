"""The figures, one line each, in the order the reports show them (sacrebleu's ``METRICS``).

A new figure is a module under ``corpus/metrics/`` with a ``FIGURE`` (a ``corpus.metrics.base.Figure``) and one
line here: ``metrics --json``, the terminal report, Table 2 (dashboard, dataset card, CSV) and the export then
carry it.
"""

from __future__ import annotations

from importlib import import_module

from corpus.metrics.base import Figure

REGISTERED = (
    "corpus.metrics.rouge_l",
    "corpus.metrics.fleiss",
    "corpus.metrics.krippendorff",
    "corpus.metrics.cohen",
    "corpus.metrics.span_f1",
    "corpus.metrics.coverage",
)

FIGURES: tuple[Figure, ...] = tuple(import_module(name).FIGURE for name in REGISTERED)
