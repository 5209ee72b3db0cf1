"""What every agreement figure is: a registry entry (``Figure``) that computes a typed result (``FigureResult``).

sacrebleu's ``METRICS`` is the model: one module per figure under ``corpus/metrics/``, one line per figure in
``corpus.metrics.registry``; the reporters (``metrics --json``, the terminal report, Table 2 on the dashboard and
in the dataset card, the CSV) iterate the registry and know no figure by name.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import ClassVar

import numpy as np

from corpus.agreement import (
    MetricsInput,
    RougeResult,
    SentenceInfo,
    TagSet,
    TranslationColumns,
    aspects_kept,
    kept_values,
    rouge_agreement,
    sentences_in_order,
    tag_table,
)
from corpus.kappa import PairTally, TagTable, per_annotator_tallies
from corpus.vocabulary import Phase

#: Table 2's columns: the two phases, both together, and the chosen translation of each unit.
TABLE2_COLUMNS = (Phase.AWARE.value, Phase.BLIND.value, "overall", "best")
NOT_DEFINED = "—"


@dataclass(frozen=True)
class PhaseValue:
    """One figure in one phase (or ``overall``, ``best``): the value or None with the reason, and what it is over."""

    value: float | None
    reason: str | None
    n: int


@dataclass(frozen=True)
class FigureResult:
    """One figure, computed: per phase values, the signature that reproduces it, and its ``metrics --json``
    section (``section``: the JSON object under ``key``, read-only)."""

    key: str
    per_phase: Mapping[str, PhaseValue]
    signature: str
    section: dict = field(default_factory=dict)

    @property
    def overall(self) -> PhaseValue:
        return self.per_phase.get("overall") or PhaseValue(None, "not computed over both phases together", 0)

    @property
    def value(self) -> float | None:
        return self.overall.value

    @property
    def reason(self) -> str | None:
        return self.overall.reason

    @property
    def n(self) -> int:
        return self.overall.n


@dataclass(frozen=True)
class Table2Row:
    """One row of Table 2. ``figure`` names it in the card, the CSV and the terminal; ``shown`` is the
    dashboard's short name. A column a figure does not have (kappa has no "best") is None."""

    key: str
    figure: str
    shown: str
    aware: float | None
    blind: float | None
    overall: float | None
    best: float | None

    def numbers(self) -> dict:
        """The row as the CSV and the card have it: full name, plain numbers."""
        return {"figure": self.figure, **{c: getattr(self, c) for c in TABLE2_COLUMNS}}

    def cells(self, text) -> dict:
        """The row as the dashboard shows it: short name, each value through ``text`` (e.g. 3 decimals or "—")."""
        return {"figure": self.shown, **{c: text(getattr(self, c)) for c in TABLE2_COLUMNS}}


class FigureInputs:
    """What the figures are computed from, each part built once and shared (the tag table, the aspects kept,
    the ROUGE-L pairs, the annotator pairs' tallies)."""

    def __init__(self, data: MetricsInput) -> None:
        self.data = data

    @cached_property
    def columns(self) -> TranslationColumns:
        """The translations' fields as columns, taken once for every figure."""
        return TranslationColumns(self.data.translations)

    @cached_property
    def sentences(self) -> list[SentenceInfo]:
        """The sentences in the figures' order (``sentences_in_order``), sorted once."""
        return sentences_in_order(self.data)

    @cached_property
    def _tags(self) -> tuple[TagTable, list[TagSet]]:
        return tag_table(self.data, self.columns)

    @property
    def tags(self) -> TagTable:
        return self._tags[0]

    @property
    def tag_sources(self) -> list[TagSet]:
        return self._tags[1]

    @cached_property
    def kept(self) -> dict[int, int | None]:
        return aspects_kept(self.data, self.tags, self.columns)

    @cached_property
    def kept_array(self) -> np.ndarray:
        """``kept`` in the order of ``columns`` (``kept_values``): ROUGE-L's ties and coverage read it."""
        return kept_values(self.kept, self.columns)

    @cached_property
    def rouge(self) -> RougeResult:
        return rouge_agreement(self.data, self.kept, self.columns, self.sentences, self.kept_array)

    @cached_property
    def pair_tallies(self) -> dict[tuple[str, str], PairTally]:
        return self.tags.pair_tallies()

    @cached_property
    def annotator_tallies(self) -> dict[str, PairTally]:
        """Each annotator against everyone they share translations with (``per_annotator_tallies``)."""
        return per_annotator_tallies(self.pair_tallies)

    @cached_property
    def phase_of_group(self) -> list[str]:
        """The phase of each translation group of the tag table."""
        phase_of = dict(zip(self.columns.pk, self.columns.phase))
        return list(map(phase_of.__getitem__, self.tags.group_translation.tolist()))


class Figure:
    """A registry entry. Subclasses set ``key`` (the ``metrics --json`` key) and ``name``, and implement ``compute``;
    the rest has defaults a figure overrides when it has more to say."""

    key: ClassVar[str]
    name: ClassVar[str]
    #: One line for the dashboard's "How these figures are computed" (None: nothing to add).
    explanation: ClassVar[str | None] = None

    def compute(self, inputs: FigureInputs) -> FigureResult:
        raise NotImplementedError

    def signature(self, inputs: FigureInputs) -> Mapping[str, str]:
        """The entries of the report's ``signature`` object this figure adds (default: ``{key: settings}``)."""
        return {}

    def signature_text(self, annotators_per_item: int) -> str | None:
        """This figure's part of the one-line signature ``text`` (None: none)."""
        return None

    def table2(self, section: Mapping) -> tuple[Table2Row, ...]:
        """The figure's rows of Table 2, from its ``metrics --json`` section (what the dataset card has)."""
        return ()

    def undefined(self, section: Mapping) -> list[str]:
        """Why a Table 2 value of this figure is undefined, one line per value."""
        return []

    def report_lines(self, report: Mapping) -> list[str]:
        """The figure's lines in the terminal report, below Table 2 (``report``: the whole report)."""
        return []


def phase_rows(key: str, figure: str, shown: str, section: Mapping, columns=(*TABLE2_COLUMNS[:2], "overall")) -> Table2Row:
    """A Table 2 row of a figure whose section holds ``{phase: {"kappa"|"value": ...}}`` entries."""
    def value(column: str) -> float | None:
        entry = section.get(column) if column in columns else None
        if entry is None:
            return None
        return entry.get("value", entry.get("kappa"))

    return Table2Row(key, figure, shown, *(value(c) for c in TABLE2_COLUMNS))


def phases(values: Mapping[str, PhaseValue]) -> Mapping[str, PhaseValue]:
    """Per phase values, read-only."""
    return MappingProxyType(dict(values))
