"""Progress of the two translation phases and of tagging, per phase and per person, from grouped counts."""

from __future__ import annotations

from collections import defaultdict
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
    sentences = {s.pk: s for s in data.sentences}
    translations = {t.pk: t for t in data.translations}
    totals: dict[tuple[str, str, str, str, str], int] = defaultdict(int)
    for t in data.translations:
        s = sentences.get(t.sentence_pk)
        if s is not None:
            totals[("translation", s.domain, s.split, t.phase, t.translator)] += 1
    for ts in data.tag_sets:
        t = translations.get(ts.translation_pk)
        s = sentences.get(t.sentence_pk) if t is not None else None
        if s is not None:
            totals[("annotation", s.domain, s.split, t.phase, ts.annotator)] += 1
    return [ProgressCount(kind, domain, split, phase, person, "submitted", n)
            for (kind, domain, split, phase, person), n in totals.items()]


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
