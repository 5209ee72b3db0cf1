"""Progress of the two translation phases and of tagging, per phase and per person, from grouped counts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from corpus.agreement import MetricsInput, columns
from corpus.records import PHASES
from corpus.vocabulary import Status

STATUSES = (Status.SUBMITTED, Status.DRAFT, Status.ASSIGNED, Status.SKIPPED)


@dataclass(frozen=True)
class ProgressCount:
    """How many tasks of a kind one person has in one status, per domain, split and phase.
    ``assigned`` and ``skipped`` count assignments with no saved work yet."""

    kind: str  # "translation" or "annotation"
    domain: str
    split: str
    phase: str
    person: str
    status: str
    count: int


def _first_seen_counts(codes: np.ndarray) -> tuple[list[int], list[int]]:
    """Distinct codes in order of first appearance, with how often each occurs."""
    found, first, counts = np.unique(codes, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    return found[order].tolist(), counts[order].tolist()


def _codes(values: list) -> tuple[np.ndarray, list]:
    distinct = list(dict.fromkeys(values))
    index = {v: i for i, v in enumerate(distinct)}
    return np.fromiter(map(index.__getitem__, values), dtype=np.int64, count=len(values)), distinct


def submitted_counts(data: MetricsInput) -> list[ProgressCount]:
    """Submitted translations and annotations per person, from the metrics input (no second query)."""
    rows: list[ProgressCount] = []
    if not data.translations:
        return rows
    places = list(dict.fromkeys((s.domain, s.split) for s in data.sentences))
    place_index = {p: i for i, p in enumerate(places)}
    place_of = {s.pk: place_index[(s.domain, s.split)] for s in data.sentences}
    pk, sentence_pk, phase, translator = columns(data.translations, 0, 1, 2, 3)
    place = np.fromiter(map(place_of.get, sentence_pk, repeat(-1)), dtype=np.int64, count=len(pk))
    phase_code, phases = _codes(phase)
    unit = place * len(phases) + phase_code  # (domain, split, phase); negative: sentence unknown
    who, names = _codes(translator)
    for code, n in zip(*_first_seen_counts(np.where(unit >= 0, unit * len(names) + who, -1))):
        if code >= 0:
            u, person = divmod(code, len(names))
            rows.append(ProgressCount("translation", *places[u // len(phases)], phases[u % len(phases)], names[person],
                                      Status.SUBMITTED, n))
    if data.tag_sets:
        unit_of = dict(zip(pk, unit.tolist()))
        translation_pk, annotator = columns(data.tag_sets, 0, 1)
        tag_unit = np.fromiter(map(unit_of.get, translation_pk, repeat(-1)), dtype=np.int64, count=len(translation_pk))
        who, names = _codes(annotator)
        for code, n in zip(*_first_seen_counts(np.where(tag_unit >= 0, tag_unit * len(names) + who, -1))):
            if code >= 0:
                u, person = divmod(code, len(names))
                rows.append(ProgressCount("annotation", *places[u // len(phases)], phases[u % len(phases)], names[person],
                                          Status.SUBMITTED, n))
    return rows


def filter_counts(counts: Iterable[ProgressCount], domains: Iterable[str] | None, splits: Iterable[str] | None) -> list[ProgressCount]:
    domains = set(domains) if domains is not None else None
    splits = set(splits) if splits is not None else None
    return [
        c for c in counts
        if (domains is None or c.domain in domains) and (splits is None or c.split in splits)
    ]


def phase_progress(counts: Sequence[ProgressCount], annotators_per_item: int) -> list[dict]:
    """Per phase: translations and annotations done against the work actually handed out.

    "translations assigned" counts the translation tasks people hold or did (submitted, drafts, waiting
    and skipped), not sentences x the project's translators-per-phase setting: a sentence given to 2
    translators is complete with 2."""
    totals: dict[tuple[str, str, str], int] = defaultdict(int)
    for c in counts:
        totals[(c.kind, c.phase, c.status)] += c.count
    rows = []
    for phase in PHASES:
        assigned = sum(totals[("translation", phase, status)] for status in STATUSES)
        submitted = totals[("translation", phase, Status.SUBMITTED)]
        tagged = totals[("annotation", phase, Status.SUBMITTED)]
        expected_tags = submitted * annotators_per_item
        rows.append({
            "phase": phase,
            "translations submitted": submitted,
            "translation drafts": totals[("translation", phase, Status.DRAFT)],
            "translations waiting": totals[("translation", phase, Status.ASSIGNED)],
            "translations assigned": assigned,
            "translated % (of assigned)": 100.0 * submitted / assigned if assigned else None,
            "annotations submitted": tagged,
            "annotation drafts": totals[("annotation", phase, Status.DRAFT)],
            "annotations waiting": totals[("annotation", phase, Status.ASSIGNED)],
            "tagged % (of submitted translations x K)": 100.0 * tagged / expected_tags if expected_tags else None,
        })
    return rows


def person_progress(counts: Sequence[ProgressCount]) -> list[dict]:
    """Per person, role and phase: submitted, drafts, waiting and skipped tasks."""
    table: dict[tuple[str, str, str], dict[str, int]] = defaultdict(lambda: dict.fromkeys(STATUSES, 0))
    for c in counts:
        if c.status in STATUSES:
            table[(c.person, c.kind, c.phase)][c.status] += c.count
    return [
        {"person": person, "work": kind, "phase": phase, **statuses}
        for (person, kind, phase), statuses in sorted(table.items())
    ]
