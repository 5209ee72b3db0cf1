"""The project's stored suggestion model and what annotators were shown, read: the model (loaded once per
stored version), its spans in an item's tokens, its gold count and signature, and each submit's record of
the suggestions its editor showed.

A reader: the tagging editor (``db.tagging``), the projection and the Dataset check read the model here;
``db.model_store`` trains and stores it.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from corpus.baseline import CrfSettings, TrainedModel, load_model, suggest_spans
from corpus.suggestions import Exposure, ShownSave, SuggestionQuality, exposure, shown_spans, suggestion_quality
from corpus.vocabulary import RevisionAction, Status
from db.engine import reader
from db.gold import gold_in_force
from db.model_seal import unseal
from db.models import Annotation, Revision, SourceSentence, SuggestionModel, TaggingItem, Translation

log = logging.getLogger(__name__)

_models: dict[tuple[str, int], tuple[object, TrainedModel | None]] = {}


@dataclass(frozen=True)
class Suggestion:
    """A span the tag editor offers the annotator: from the translator's map, a projection, the model or the
    local model (``source``); it tags nothing until the annotator accepts it."""

    span: tuple[int, int]
    term: str  # the English aspect term the translator linked to these characters (or the model's label)
    confidence: float | None = None  # the model's, for a model suggestion; None for the aspect map's
    source: str = "map"  # corpus.projection.ALL_SOURCES: the own map, aware, glossary, transliteration, crf


def model_key(engine: Engine, project_id: int) -> tuple[str, int]:
    """The database and project a stored model belongs to (this process's caches are keyed by it)."""
    return (engine.url.render_as_string(hide_password=True), project_id)


@dataclass(frozen=True)
class ModelInfo:
    gold_count: int
    signature: str
    train_seconds: float
    trained_at: object


def model_info(engine: Engine, project_id: int) -> ModelInfo | None:
    """The stored suggestion model's gold count, signature and training time (without its bytes)."""
    with Session(reader(engine)) as session:
        row = session.execute(
            select(SuggestionModel.gold_count, SuggestionModel.signature, SuggestionModel.train_seconds,
                   SuggestionModel.trained_at).where(SuggestionModel.project_id == project_id)).first()
    return ModelInfo(*row) if row else None


def current_model(session: Session, project_id: int) -> TrainedModel | None:
    """The stored model, loaded once per stored version (a newer one replaces it)."""
    row = session.execute(select(SuggestionModel.id, SuggestionModel.trained_at, SuggestionModel.gold_count)
                          .where(SuggestionModel.project_id == project_id)).first()
    if row is None:
        return None
    engine = session.get_bind()
    key = model_key(getattr(engine, "engine", engine), project_id)
    stamp = tuple(row)
    cached = _models.get(key)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    stored = session.scalar(select(SuggestionModel.model).where(SuggestionModel.id == row[0]))
    data = unseal(getattr(engine, "engine", engine), project_id, stored)
    if data is None:  # not sealed by this server's key: CRFsuite's C reader never sees it (db.model_seal)
        log.warning("suggestion model of project %s is not sealed with this server's key: not opened", project_id)
        _models[key] = (stamp, None)
        return None
    model = load_model(data, CrfSettings(), row[2])
    _models[key] = (stamp, model)
    return model


def model_spans(session: Session, project_id: int, tokens: Sequence[str]) -> list[tuple[int, int, float]]:
    """The stored model's spans in these tokens with its confidence in each (none without a model)."""
    model = current_model(session, project_id)
    if model is None or not tokens:
        return []
    return [(s.start, s.end, s.confidence) for s in suggest_spans(model, [list(tokens)])[0]]


# ---------------------------------------------------------------- what annotators were shown


def shown_saves(engine: Engine, project_id: int) -> list[ShownSave]:
    """Each submitted annotation's latest submit: its item, the model spans it recorded as shown, its tags."""
    return [ShownSave(item_id, shown_spans(payload), tuple(tags))
            for item_id, payload, tags in latest_submits(engine, project_id)]


def latest_submits(engine: Engine, project_id: int) -> list[tuple[int, dict | None, list[str]]]:
    """(item id, revision payload, tags) of each submitted annotation's latest submit, in revision order."""
    with Session(reader(engine)) as session:
        latest = (
            select(func.max(Revision.id))
            .join(Annotation, Annotation.id == Revision.entity_id)
            .join(TaggingItem, TaggingItem.id == Annotation.item_id)
            .join(Translation, Translation.id == TaggingItem.translation_id)
            .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
            .where(Revision.entity == "annotation", Revision.action == RevisionAction.SUBMIT,
                   Annotation.status == Status.SUBMITTED, SourceSentence.project_id == project_id)
            .group_by(Revision.entity_id)
        )
        rows = session.execute(
            select(Annotation.item_id, Revision.payload, Annotation.tags)
            .join(Annotation, Annotation.id == Revision.entity_id)
            .where(Revision.id.in_(latest))
            .order_by(Revision.id)
        ).all()
    return [tuple(r) for r in rows]


def suggestion_figures(engine: Engine, project_id: int) -> tuple[SuggestionQuality, Exposure]:
    """Acceptance and precision of the model suggestions (against the gold in force), and on how many
    tagged items annotators saw them."""
    saves = shown_saves(engine, project_id)
    items = {s.item_id for s in saves if s.shown}
    gold = {i: g.gold.tags for i, g in gold_in_force(engine, project_id, items).items() if g.gold is not None} \
        if items else {}
    return suggestion_quality(saves, gold), exposure(saves)
