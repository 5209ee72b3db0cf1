"""Progress of the two translation phases and of tagging, per phase and per person, from grouped counts."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from corpus.agreement import MetricsInput
from corpus.records import PHASES

STATUSES = ("submitted", "draft", "assigned", "skipped")


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


def submitted_counts(data: MetricsInput) -> list[ProgressCount]:
    """Submitted translations and annotations per person, from the metrics input (no second query)."""
    place = {s.pk: (s.domain, s.split) for s in data.sentences}
    rows: list[ProgressCount] = []
    if not data.translations:
        return rows
    pk, sentence_pk, phase, translator, *_ = zip(*data.translations)
    where = list(map(place.get, sentence_pk))
    for (at, phase_name, person), n in Counter(zip(where, phase, translator)).items():
        if at is not None:
            rows.append(ProgressCount("translation", *at, phase_name, person, "submitted", n))
    unit = dict(zip(pk, zip(where, phase)))
    if data.tag_sets:
        translation_pk, annotator, *_ = zip(*data.tag_sets)
        for (found, person), n in Counter(zip(map(unit.get, translation_pk), annotator)).items():
            if found is not None and found[0] is not None:
                rows.append(ProgressCount("annotation", *found[0], found[1], person, "submitted", n))
    return rows


def filter_counts(counts: Iterable[ProgressCount], domains: Iterable[str] | None, splits: Iterable[str] | None) -> list[ProgressCount]:
    domains = set(domains) if domains is not None else None
    splits = set(splits) if splits is not None else None
    return [
        c for c in counts
        if (domains is None or c.domain in domains) and (splits is None or c.split in splits)
    ]


def phase_progress(
    counts: Sequence[ProgressCount], sentences: int, translators_per_phase: int, annotators_per_item: int
) -> list[dict]:
    """Per phase: translations and annotations done against what the method asks for."""
    totals: dict[tuple[str, str, str], int] = defaultdict(int)
    for c in counts:
        totals[(c.kind, c.phase, c.status)] += c.count
    rows = []
    for phase in PHASES:
        expected = sentences * translators_per_phase
        submitted = totals[("translation", phase, "submitted")]
        tagged = totals[("annotation", phase, "submitted")]
        expected_tags = submitted * annotators_per_item
        rows.append({
            "phase": phase,
            "translations submitted": submitted,
            "translation drafts": totals[("translation", phase, "draft")],
            "translations waiting": totals[("translation", phase, "assigned")],
            "translations expected": expected,
            "translated %": 100.0 * submitted / expected if expected else None,
            "annotations submitted": tagged,
            "annotation drafts": totals[("annotation", phase, "draft")],
            "annotations waiting": totals[("annotation", phase, "assigned")],
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
