"""What the CRF baseline and the leaderboard read and store (the model itself is ``corpus.baseline``).

English side: every imported source sentence, translated or not, tokens and BIO from its SemEval offsets,
as ``export --source-only`` reads them (``db.export_data.load_source_export``). Hindi side: the final
translations with gold tags, as the export reads them (``db.export_data.load_export``), so the check scores
exactly what a team downloads. Neither reader writes: final picks are the recorded ones (``export``
records the automatic picks; until then a sentence without a recorded pick is not on the Hindi side).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from corpus.baseline import CrfSettings, LabelledSequence, dataset_baseline, held_out_predictions
from corpus.evaluation import Evaluation, gold_version, score_by_domain
from corpus.vocabulary import Role
from db.access import check_writer
from db.engine import reader
from db.worker import in_worker
from db.models import LeaderboardEntry, User
from db.schema import default_project_id

BASELINE_NAME = "CRF baseline"


def english_sequences(engine: Engine, project_id: int | None = None) -> list[LabelledSequence]:
    """Every imported source sentence with BIO from its offsets, as ``export --source-only`` writes it
    (``db.export_data.load_source_export``), keyed ``domain/split/sentence id``."""
    from db.export_data import load_source_export

    return [LabelledSequence(r.uid, r.domain, r.split, tuple(r.en_tokens), tuple(r.en_tags))
            for r in load_source_export(engine, project_id).sentences if r.en_tokens]


def hindi_sequences(engine: Engine, project_id: int | None = None) -> list[LabelledSequence]:
    """The final translations with gold tags, keyed by the export's sentence id (``domain/split/id``)."""
    from db.export_data import ExportOptions, load_export

    dataset = load_export(engine, ExportOptions(project_id=project_id))
    return [LabelledSequence(r.uid, r.domain, r.split, tuple(r.hi_tokens), tuple(r.hi_tags))
            for r in dataset.sentences if r.hi_tokens]


def run_baseline(engine: Engine, settings: CrfSettings | None = None, project_id: int | None = None,
                 worker: bool = True) -> dict:
    """The ``baseline --json`` report for the project (trains CRFs: seconds to a minute, never in a request
    that must answer at once). The CRFs train in a worker process (``db.worker``: in a thread of the server
    they would stall every other session); the command line, a process of its own, passes ``worker=False``."""
    sides = {"en": english_sequences(engine, project_id), "hi": hindi_sequences(engine, project_id)}
    return in_worker(dataset_baseline, sides, settings) if worker else dataset_baseline(sides, settings)


def gold_test_split(engine: Engine, project_id: int | None = None) -> list[LabelledSequence]:
    """The Hindi test split with gold tags, in export order (what predictions are scored against)."""
    return [s for s in hindi_sequences(engine, project_id) if s.split == "test"]


# ---------------------------------------------------------------- leaderboard


@dataclass(frozen=True)
class LeaderboardRow:
    name: str
    kind: str
    created_at: datetime
    export_version: str
    f1: float | None
    scores: dict
    signature: str
    submitted_by: str | None


def _project(session: Session, project_id: int | None) -> int:
    return project_id or default_project_id(session)


def add_entry(engine: Engine, name: str, evaluation: Evaluation, signature: str, kind: str = "submission",
              submitted_by: int | None = None, project_id: int | None = None) -> None:
    with Session(engine) as session, session.begin():
        if kind != "baseline":  # (the baseline row is derived from gold, by whoever asks first)
            check_writer(session, submitted_by, roles=(Role.LEAD,))
        session.add(LeaderboardEntry(
            project_id=_project(session, project_id), name=name, kind=kind, export_version=evaluation.export_version,
            f1=evaluation.f1, scores=evaluation.scores, signature=signature, submitted_by=submitted_by))


def has_baseline(engine: Engine, export_version: str, project_id: int | None = None) -> bool:
    with Session(reader(engine)) as session:
        return session.scalars(
            select(LeaderboardEntry.id).where(LeaderboardEntry.project_id == _project(session, project_id),
                                              LeaderboardEntry.kind == "baseline",
                                              LeaderboardEntry.export_version == export_version)
        ).first() is not None


def baseline_evaluation(sequences: Sequence[LabelledSequence], settings: CrfSettings | None = None) -> Evaluation:
    """The CRF trained on the Hindi train split, scored on the test split like any submission."""
    train_set = [s for s in sequences if s.split == "train"]
    test_set = [s for s in sequences if s.split == "test"]
    if not train_set or not test_set:
        raise ValueError("the baseline needs gold Hindi sentences in both the train and the test split")
    predicted = {p.key: p.tags for p in held_out_predictions(train_set, test_set, settings)}
    return Evaluation(score_by_domain(test_set, predicted), gold_version(test_set), len(test_set), "crf")


def ensure_baseline_entry(engine: Engine, sequences: Sequence[LabelledSequence] | None = None,
                          settings: CrfSettings | None = None, project_id: int | None = None,
                          worker: bool = True) -> bool:
    """Add the CRF baseline row for the current export version if it is missing; True if one was added. The
    CRF trains in a worker process, as ``run_baseline``'s (the command line passes ``worker=False``)."""
    sequences = list(sequences) if sequences is not None else hindi_sequences(engine, project_id)
    test_set = [s for s in sequences if s.split == "test"]
    if not test_set or has_baseline(engine, gold_version(test_set), project_id):
        return False
    settings = settings or CrfSettings()
    evaluation = (in_worker(baseline_evaluation, sequences, settings) if worker
                  else baseline_evaluation(sequences, settings))
    add_entry(engine, BASELINE_NAME, evaluation, settings.signature({"hi": "test split"}), kind="baseline",
              project_id=project_id)
    return True


def leaderboard(engine: Engine, current_version: str | None = None, project_id: int | None = None
                ) -> list[LeaderboardRow]:
    """Every row: those scored against ``current_version`` (default: the newest row's) first, in each
    version the CRF baseline first, then by overall F1 (best first), then newest first."""
    with Session(reader(engine)) as session:
        rows = session.execute(
            select(LeaderboardEntry, User.username)
            .outerjoin(User, User.id == LeaderboardEntry.submitted_by)
            .where(LeaderboardEntry.project_id == _project(session, project_id))
        ).all()
        out = [LeaderboardRow(e.name, e.kind, e.created_at, e.export_version, e.f1, dict(e.scores), e.signature,
                              username) for e, username in rows]
    if current_version is None and out:
        current_version = max(out, key=lambda r: r.created_at).export_version
    return sorted(out, key=lambda r: (r.export_version != current_version, r.export_version, r.kind != "baseline",
                                      -(r.f1 if r.f1 is not None else -1.0), -r.created_at.timestamp()))
