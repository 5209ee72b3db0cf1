"""The model in the loop: the project's suggestion CRF (trained in the background, stored) and the
review-suspects list (the stored model and what annotators were shown are read through ``db.suggestion_model``).

Training never runs in a request: ``db.workflows.kick`` (called when an item opens) only counts
(``retrain_may_be_due``), and when the gold has
grown past the next threshold (``corpus.suggestions.retrain_due``) enqueues a retrain job (``db.jobs``: one per
project at a time, whichever server or worker runs it); the job (``run_retrain``) reads every gold item, has
``corpus.baseline``'s CRF trained in a worker process (``train_in_worker``: CRFsuite keeps the GIL while it
trains, so training in a thread would stall every page the server is serving) and stores its model file in
``suggestion_models``. Suggestions read the stored model (kept in memory until a newer one is stored).
``python -m corpus train-suggestions`` calls ``train_now``; tests call ``retrain_if_due`` directly.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import Engine, exists, func, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from corpus.baseline import (
    CrfSettings,
    LabelledSequence,
    TrainedFile,
    cross_validated_predictions,
    suspects,
    train_model_file,
)
from corpus.suggestions import TRAINING_CAP, retrain_due, training_sample
from corpus.vocabulary import Status
from db.engine import reader, transaction
from db.gold import gold_in_force
from db.model_seal import seal
from db.models import (
    Adjudication,
    Annotation,
    SourceSentence,
    SuggestionModel,
    TaggingItem,
    Translation,
    utcnow,
)
from db.project_settings import ProjectSettings, load_settings
from db.suggestion_model import model_info, model_key
from db.worker import in_worker

log = logging.getLogger(__name__)

#: An item opening checks at most this often per project (in this process) whether the model is due.
CHECK_EVERY_S = 30.0


@dataclass(frozen=True)
class GoldItem:
    item_id: int
    sentence_db_id: int
    sentence_key: str  # domain/split/sentence id
    phase: str
    sequence: LabelledSequence


def gold_items(engine: Engine, project_id: int) -> list[GoldItem]:
    """Every tagging item with gold in force: its frozen tokens and gold tags (what the suggestion model
    learns from and the review-suspects list checks), in item order."""
    golds = {i: g.gold.tags for i, g in gold_in_force(engine, project_id).items() if g.gold is not None}
    if not golds:
        return []
    with Session(reader(engine)) as session:
        rows = session.execute(
            select(TaggingItem.id, TaggingItem.tokens, Translation.phase, SourceSentence.id, SourceSentence.domain,
                   SourceSentence.split, SourceSentence.sentence_id)
            .join(Translation, Translation.id == TaggingItem.translation_id)
            .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
            .where(SourceSentence.project_id == project_id)
            .order_by(TaggingItem.id)
        ).all()
    out = []
    for item_id, tokens, phase, sid, domain, split, sentence_id in rows:
        tags = golds.get(item_id)
        if tags is None or len(tags) != len(tokens) or not tokens:
            continue
        key = f"{domain}/{split}/{sentence_id}"
        out.append(GoldItem(item_id, sid, key, phase, LabelledSequence(
            f"{key}/{phase}/item{item_id}", domain, split, tuple(tokens), tuple(tags))))
    return out


# ---------------------------------------------------------------- the stored model


def _store(engine: Engine, project_id: int, gold_count: int, signature: str, data: bytes, seconds: float) -> None:
    try:
        with transaction(engine) as session:
            row = session.scalars(select(SuggestionModel).where(SuggestionModel.project_id == project_id)).first()
            if row is None:
                row = SuggestionModel(project_id=project_id)
                session.add(row)
            row.gold_count, row.signature, row.train_seconds = gold_count, signature, seconds
            row.model = seal(engine, project_id, data)  # db.model_seal: opened again only with this MAC
            row.trained_at = utcnow()
    except IntegrityError:  # another process stored its first model at the same moment: keep theirs
        log.info("suggestion model of project %s stored elsewhere first", project_id)


Trainer = Callable[[Sequence[LabelledSequence], CrfSettings], TrainedFile]


def train_in_worker(sequences: Sequence[LabelledSequence], settings: CrfSettings) -> TrainedFile:
    """Train in a worker process (``db.worker.in_worker``) and return its model file: in a thread of the
    server, CRFsuite would hold the GIL for the whole training and every page being served would wait."""
    return in_worker(train_model_file, list(sequences), settings)


def retrain_if_due(engine: Engine, project_id: int, force: bool = False,
                   trainer: Trainer = train_model_file) -> bool:
    """Train and store the project's suggestion model when the gold count has crossed the next threshold
    (or ``force``); True if a model was stored. About half a minute of CPU on a paper-scale project (12,000
    of its 47k gold items, ``training_items``; bench/bench_baseline.py): never call in a request.
    ``trainer`` trains here by default; the retrain job passes ``train_in_worker``."""
    settings = load_settings(engine, project_id)
    if not settings.model_suggestions and not force:
        return False
    items = gold_items(engine, project_id)
    info = model_info(engine, project_id)
    if not items or not (force or retrain_due(len(items), info.gold_count if info else None,
                                              settings.suggest_min_gold, settings.suggest_retrain_every)):
        return False
    _train_and_store(engine, project_id, items, trainer)
    return True


def training_items(items: Sequence[GoldItem]) -> list[GoldItem]:
    """The gold items one training uses: all of them up to ``corpus.suggestions.TRAINING_CAP``, past it a round
    over sentences and phases (``training_sample``), so a paper-scale retrain stays under a minute of CPU."""
    return [items[i] for i in training_sample([(g.sentence_db_id, g.phase) for g in items], TRAINING_CAP)]


def _train_and_store(engine: Engine, project_id: int, items: Sequence[GoldItem],
                     trainer: Trainer) -> tuple[TrainedFile, list[GoldItem]]:
    """Train on ``training_items(items)`` and store the model with the whole gold count (the retrain schedule
    counts every gold item); the model file and the items it learned from."""
    used = training_items(items)
    crf = CrfSettings()
    trained = trainer([g.sequence for g in used], crf)
    _store(engine, project_id, len(items), crf.signature(), trained.data, trained.cpu_seconds)
    return trained, used


class TooLittleGold(ValueError):
    """The project has fewer gold items than its setting asks for before the first model."""

    def __init__(self, project_id: int, gold: int, min_gold: int) -> None:
        self.project_id, self.gold, self.min_gold = project_id, gold, min_gold
        super().__init__(f"{gold} gold item{'s' * (gold != 1)}, fewer than the {min_gold} the setting 'Gold items "
                         "before suggesting' (suggest_min_gold) asks for before the first model: tag and decide "
                         "more items, or lower it on Project settings")


@dataclass(frozen=True)
class TrainReport:
    """What ``train_now`` trained on and stored."""

    project_id: int
    gold_items: int
    trained_items: int  # fewer than gold_items past training_cap; the counts below are of these
    training_cap: int
    by_domain: dict[str, int]
    by_phase: dict[str, int]
    tokens: int
    cpu_seconds: float
    signature: str
    trained_at: object
    suggestions_on: bool
    min_gold: int


def train_now(engine: Engine, project_id: int, trainer: Trainer = train_model_file) -> TrainReport:
    """Train and store the project's suggestion model at once, whatever the retrain schedule (the model the
    background retrain would store from the same gold). Refuses with ``TooLittleGold`` below the project's
    ``suggest_min_gold``; a project with suggestions switched off still gets its model (shown once they are on)."""
    settings = load_settings(engine, project_id)
    items = gold_items(engine, project_id)
    if not items or len(items) < settings.suggest_min_gold:
        raise TooLittleGold(project_id, len(items), settings.suggest_min_gold)
    trained, used = _train_and_store(engine, project_id, items, trainer)
    info = model_info(engine, project_id)
    return TrainReport(
        project_id, len(items), len(used), TRAINING_CAP, _counts(g.sequence.domain for g in used), _counts(g.phase for g in used),
        sum(len(g.sequence.tokens) for g in used), trained.cpu_seconds,
        info.signature if info else CrfSettings().signature(), info.trained_at if info else None,
        settings.model_suggestions, settings.suggest_min_gold)


def _counts(values: Iterable[str]) -> dict[str, int]:
    return dict(sorted(Counter(values).items()))


_lock = threading.Lock()
_checked: dict[tuple[str, int], float] = {}


def _upper_bound(session: Session, project_id: int) -> int:
    """Items that could have gold (a submitted annotation or a decision): a cheap count, never below the gold."""
    submitted = exists().where(Annotation.item_id == TaggingItem.id, Annotation.status == Status.SUBMITTED)
    decided = exists().where(Adjudication.item_id == TaggingItem.id)
    return session.scalar(
        select(func.count(TaggingItem.id))
        .join(Translation, Translation.id == TaggingItem.translation_id)
        .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
        .where(SourceSentence.project_id == project_id, or_(submitted, decided))) or 0


def run_retrain(engine: Engine, project_id: int) -> bool:
    """The retrain job (``db.jobs``, kind ``retrain-suggestions``): train and store if still due, the CRF in a
    worker process; True if a model was stored (a job enqueued twice for one threshold trains once)."""
    return retrain_if_due(engine, project_id, trainer=train_in_worker)


def retrain_may_be_due(session: Session, project_id: int, settings: ProjectSettings) -> bool:
    """Whether the model may be due for a retrain (``db.workflows.kick`` then enqueues the job), read in the
    caller's transaction: False while suggestions are off, or when this process checked the project less than
    ``CHECK_EVERY_S`` ago. Costs the caller one COUNT at most every ``CHECK_EVERY_S``."""
    if not settings.model_suggestions:
        return False
    engine = session.get_bind()
    engine = getattr(engine, "engine", engine)
    key = model_key(engine, project_id)
    now = time.monotonic()
    with _lock:
        if now - _checked.get(key, -CHECK_EVERY_S) < CHECK_EVERY_S:
            return False
        _checked[key] = now
    trained_on = session.scalar(select(SuggestionModel.gold_count).where(SuggestionModel.project_id == project_id))
    return retrain_due(_upper_bound(session, project_id), trained_on, settings.suggest_min_gold,
                       settings.suggest_retrain_every)


def forget_checks() -> None:
    """Forget when projects were last checked (tests that want ``db.workflows.kick`` to look again at once)."""
    with _lock:
        _checked.clear()


# ---------------------------------------------------------------- review suspects


@dataclass(frozen=True)
class SuspectRow:
    sentence_db_id: int
    sentence_key: str
    phase: str
    item_id: int
    token_index: int
    token: str
    gold: str
    predicted: str
    confidence: float


def review_suspects(engine: Engine, project_id: int, min_confidence: float = 0.9,
                    settings: CrfSettings | None = None) -> list[SuspectRow]:
    """Gold items the cross-validated CRF contradicts with at least ``min_confidence`` (each judged by a model
    that never saw it), most confident first. Trains k models, in a worker process (``db.worker``), so the
    server's other sessions are not stalled while the lead waits; cache the result."""
    items = gold_items(engine, project_id)
    sequences = [g.sequence for g in items]
    by_key = {g.sequence.key: g for g in items}
    predictions = in_worker(cross_validated_predictions, sequences, settings) if len(sequences) >= 2 else []
    found = suspects(sequences, predictions, min_confidence)
    return [SuspectRow(g.sentence_db_id, g.sentence_key, g.phase, g.item_id, s.token, g.sequence.tokens[s.token],
                       s.gold, s.predicted, s.confidence)
            for s in found for g in (by_key[s.key],)]


def gold_stamp(engine: Engine, project_id: int) -> str:
    """Changes whenever gold may have changed (a decision, a submitted annotation): a cache key."""
    with Session(reader(engine)) as session:
        scope = (select(TaggingItem.id).join(Translation, Translation.id == TaggingItem.translation_id)
                 .join(SourceSentence, SourceSentence.id == Translation.sentence_id)
                 .where(SourceSentence.project_id == project_id))
        decisions = session.execute(select(func.count(Adjudication.id), func.max(Adjudication.id))
                                    .where(Adjudication.item_id.in_(scope))).one()
        annotations = session.execute(
            select(func.count(Annotation.id), func.max(Annotation.updated_at), func.sum(Annotation.version))
            .where(Annotation.item_id.in_(scope), Annotation.status == Status.SUBMITTED)).one()
    return f"{tuple(decisions)}|{tuple(annotations)}"
