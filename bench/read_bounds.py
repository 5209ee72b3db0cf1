"""Lower bounds for the benchmarks' reads (issue #32): each table the read needs, read once, the columns it
uses, as plain SELECTs into the driver's tuples (no SQLAlchemy rows, no records, no Python per row). A read
that makes its records from those rows cannot take less; the benchmarks print load / bound (target <= 2x).

``export_statements`` are what ``db.export_data.read_export`` reads (the selection's rows, the gold of the
exportable translations and of the decided items, the metrics input); ``metrics_statements`` what
``db.metrics_data.load_metrics_input`` and the dashboard's full snapshot read; ``left_out_statements`` what
the dashboard's left-out counts read.
"""

from __future__ import annotations

import os
import time

from sqlalchemy import Engine, Text, cast, func, select

from corpus.vocabulary import Status
from db.engine import reader
from db.models import (
    Adjudication,
    Annotation,
    AnnotationAssignment,
    AspectAlignment,
    AspectCategory,
    AspectTerm,
    FinalChoice,
    GlossaryTerm,
    SourceSentence,
    TaggingItem,
    Translation,
    User,
)
from db.rows import fetch


def _latest_final_translations():
    latest = select(func.max(FinalChoice.id)).group_by(FinalChoice.sentence_id)
    return select(FinalChoice.translation_id).where(FinalChoice.id.in_(latest))


def metrics_statements(project_id: int) -> list:
    """The agreement figures' input: sentences, aspect counts, users, aspect maps, translations, submitted
    annotations with their item's translation, the decisions and who is assigned (the decided items' gold)."""
    return [
        select(SourceSentence.id, SourceSentence.sentence_id, SourceSentence.domain, SourceSentence.split,
               SourceSentence.text, SourceSentence.ordinal).where(SourceSentence.project_id == project_id),
        select(AspectTerm.sentence_id),
        select(User.id, User.username),
        select(AspectAlignment.translation_id, AspectAlignment.dropped),
        select(Translation.id, Translation.version, Translation.sentence_id, Translation.phase,
               Translation.translator_id, Translation.text, Translation.untranslatable, Translation.submitted_at)
        .where(Translation.status == Status.SUBMITTED),
        select(Annotation.id, Annotation.version, TaggingItem.translation_id, Annotation.annotator_id,
               cast(Annotation.tags, Text), Annotation.submitted_at)
        .join(TaggingItem, TaggingItem.id == Annotation.item_id).where(Annotation.status == Status.SUBMITTED),
        select(Adjudication.id, Adjudication.item_id, Adjudication.source, cast(Adjudication.tags, Text)),
        select(AnnotationAssignment.translation_id, AnnotationAssignment.user_id, AnnotationAssignment.status)
        .where(AnnotationAssignment.translation_id.in_(
            select(TaggingItem.translation_id).where(TaggingItem.id.in_(select(Adjudication.item_id))))),
    ]


def left_out_statements(project_id: int) -> list:
    """What decides which sentences the export leaves out: sentences, translations, final choices, the
    frozen tokens and the annotations, assignments and decisions of the final translations' items."""
    finals = _latest_final_translations()
    final_items = select(TaggingItem.id).where(TaggingItem.translation_id.in_(finals))
    return [
        select(SourceSentence.id, SourceSentence.domain, SourceSentence.split, SourceSentence.sentence_id,
               SourceSentence.text).where(SourceSentence.project_id == project_id),
        select(Translation.id, Translation.sentence_id, Translation.phase, Translation.translator_id,
               Translation.text, Translation.untranslatable, Translation.status, Translation.guidelines_version,
               Translation.submitted_at),
        select(User.id, User.username),
        select(FinalChoice.id, FinalChoice.sentence_id, FinalChoice.translation_id, FinalChoice.note,
               FinalChoice.chosen_by),
        select(TaggingItem.id, TaggingItem.translation_id, cast(TaggingItem.tokens, Text))
        .where(TaggingItem.translation_id.in_(finals)),
        select(Annotation.item_id, Annotation.id, Annotation.annotator_id, cast(Annotation.tags, Text))
        .where(Annotation.status == Status.SUBMITTED, Annotation.item_id.in_(final_items)),
        select(AnnotationAssignment.translation_id, AnnotationAssignment.user_id, AnnotationAssignment.status)
        .where(AnnotationAssignment.translation_id.in_(finals)),
        select(Adjudication.id, Adjudication.item_id, Adjudication.source, cast(Adjudication.tags, Text))
        .where(Adjudication.item_id.in_(final_items)),
    ]


def export_statements(project_id: int) -> list:
    """The export's read: what decides the left-out sentences, the records' aspects, categories, aspect maps
    and glossary, and the metrics input (its translations and annotations are the tables read above)."""
    return [
        *left_out_statements(project_id),
        select(AspectTerm.id, AspectTerm.sentence_id, AspectTerm.position, AspectTerm.term, AspectTerm.start,
               AspectTerm.end, AspectTerm.polarity),
        select(AspectCategory.sentence_id, AspectCategory.category, AspectCategory.polarity),
        select(AspectAlignment.translation_id, AspectAlignment.aspect_term_id, AspectAlignment.start,
               AspectAlignment.end, AspectAlignment.dropped),
        select(GlossaryTerm.english, GlossaryTerm.hindi, GlossaryTerm.rule),
        select(Annotation.id, Annotation.version, TaggingItem.translation_id, Annotation.annotator_id,
               cast(Annotation.tags, Text), Annotation.submitted_at)
        .join(TaggingItem, TaggingItem.id == Annotation.item_id).where(Annotation.status == Status.SUBMITTED),
        select(Adjudication.id, Adjudication.item_id, Adjudication.source, cast(Adjudication.tags, Text)),
        select(AnnotationAssignment.translation_id, AnnotationAssignment.user_id, AnnotationAssignment.status),
    ]


def lower_bound(engine: Engine, statements: list, repeat: int = 3) -> tuple[float, float, int]:
    """Best wall and CPU seconds of reading ``statements`` into driver tuples in one read transaction, and
    the rows read."""
    best_wall = best_cpu = float("inf")
    rows = 0
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        with reader(engine).connect() as conn:
            rows = sum(len(fetch(conn, statement)) for statement in statements)
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best_wall, best_cpu, rows


def timed(fn, repeat: int = 3):
    """Best wall and CPU seconds of ``repeat`` calls, and the last result."""
    best_wall = best_cpu = float("inf")
    result = None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        result = fn()
        best_wall = min(best_wall, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    return best_wall, best_cpu, result


def reference_loop() -> tuple[float, float]:
    """Wall and CPU seconds of 3M integer additions in a Python loop (``bench_agreement``'s workload): the
    machine's speed now, printed beside a figure."""
    t0, c0 = time.perf_counter(), time.process_time()
    total = 0
    for i in range(3_000_000):
        total += i
    return time.perf_counter() - t0, time.process_time() - c0


def load_average() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


def bound_line(what: str, wall: float, cpu: float, bound: tuple[float, float, int]) -> str:
    """``what``: load, lower bound and the ratio (wall and CPU), with the load average now."""
    b_wall, b_cpu, rows = bound
    return (f"{what}: {wall:.3f} s wall, {cpu:.3f} s CPU | lower bound (plain SELECT of the same columns into "
            f"tuples, {rows} rows): {b_wall:.3f} s wall, {b_cpu:.3f} s CPU | ratio {wall / b_wall:.2f}x wall, "
            f"{cpu / max(b_cpu, 1e-9):.2f}x CPU (target <= 2x) | load average {load_average():.2f}")
