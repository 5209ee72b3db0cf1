"""Every figure of the registry computed over one input, and the ``metrics --json`` report they make.

Keys and meaning are a contract (docs/contracts.md): ``rouge_l_pairs``, ``rouge_l_sentences``, then one key per
registered figure (``rouge_l``, ``fleiss_kappa``, ``cohen_kappa``, ``span_f1``, ``coverage``, ...), and
``signature``. Every figure travels with the signature that says how it was computed.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from corpus.agreement import MetricsInput, RougeResult, TagSet
from corpus.kappa import TagTable
from corpus.metrics.base import FigureInputs, FigureResult
from corpus.metrics import registry
from corpus.tokens import TOKENIZER_SIGNATURE

#: The report's keys, in order: the two long row lists of ROUGE-L, each figure's section, the signature.
REPORT_KEYS = ("rouge_l_pairs", "rouge_l_sentences", *(f.key for f in registry.FIGURES), "signature")


def signature(annotators_per_item: int, inputs: FigureInputs | None = None) -> dict:
    """How every figure was computed, so a number can be reproduced."""
    import statsmodels

    inputs = inputs if inputs is not None else FigureInputs(MetricsInput([], [], [], {}, annotators_per_item))
    out = {"tokenizer": TOKENIZER_SIGNATURE}
    for figure in registry.FIGURES:
        out.update(figure.signature(inputs))
    parts = [f"tok:{TOKENIZER_SIGNATURE}"]
    parts += [text for f in registry.FIGURES if (text := f.signature_text(annotators_per_item))]
    out.update({
        "counted": "submitted translations and submitted annotations only",
        "statsmodels": statsmodels.__version__,
        "text": "|".join(parts),
    })
    return out


@dataclass
class Agreement:
    """Every figure: the typed results of the registry (``results``, by key), the columnar ROUGE-L result and
    the tag table (for tables and charts), and the signature."""

    rouge: RougeResult
    results: Mapping[str, FigureResult]
    signature: dict
    tags: TagTable
    tag_sources: list[TagSet]

    def section(self, key: str) -> dict:
        return self.results[key].section

    @property
    def rouge_l(self) -> dict:
        return self.section("rouge_l")

    @property
    def fleiss_kappa(self) -> dict:
        return self.section("fleiss_kappa")

    @property
    def cohen_kappa(self) -> dict:
        return self.section("cohen_kappa")

    @property
    def span_f1(self) -> dict:
        return self.section("span_f1")

    @property
    def coverage(self) -> dict:
        return self.section("coverage")

    def report_summary(self) -> dict:
        """The report without its two long row lists (what summaries, tables and the export need)."""
        return {**{key: result.section for key, result in self.results.items()}, "signature": self.signature}

    def report(self) -> dict:
        """JSON-ready, with exactly the keys of the interfaces doc (``REPORT_KEYS``)."""
        with paused_gc():
            pairs, units = self.rouge.pair_rows(), self.rouge.unit_rows()
        return {"rouge_l_pairs": pairs, "rouge_l_sentences": units, **self.report_summary()}


@contextmanager
def paused_gc() -> Iterator[None]:
    """The figures allocate millions of short-lived objects and no cycles; the cyclic collector's
    full passes over a large heap would cost more than the computation."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def compute_agreement(data: MetricsInput) -> Agreement:
    with paused_gc():
        return _compute_agreement(data)


def _compute_agreement(data: MetricsInput) -> Agreement:
    inputs = FigureInputs(data)
    results = {figure.key: figure.compute(inputs) for figure in registry.FIGURES}
    return Agreement(inputs.rouge, results, signature(data.annotators_per_item, inputs), inputs.tags,
                     inputs.tag_sources)


def compute_report(data: MetricsInput) -> dict:
    """Every agreement figure, JSON-ready, with exactly the keys of the interfaces doc."""
    return compute_agreement(data).report()
