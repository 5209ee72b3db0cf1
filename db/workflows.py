"""What one concept's change does to another, said in one place: the app's entries that cross concepts.

A service (``db.tagging``, ``db.reopen``, ``db.users`` ...) writes its own records and imports no other
service; where its change must move another concept in the same transaction, it takes that step as an
argument, and this module hands it in:

- an annotator's submit, or the reopening of an annotation (by its annotator or a lead), lets the item's
  automatic gold follow its submitted versions (``db.adjudication.auto_gold_if_agreed``), inside the save's
  own transaction, so gold is never behind the annotations that make it;
- opening an item to tag checks whether the gold has grown enough to retrain the suggestion model, and if so
  enqueues the retrain job (``kick``: ``db.model_store`` decides, ``db.jobs`` queues), in the open's
  transaction;
- deactivating a user (``db.users``) moves their open translation and tagging tasks to others
  (``db.assignment``) in the deactivation's transaction;
- a job from the queue (``db.jobs``) runs the work of its kind (``JOB_HANDLERS``): the suggestion model's
  retrain and the review-suspects check (``db.model_store``), the baselines (``db.baseline_data``).

Pages, ``ui/`` and the command line call these where a change crosses concepts; ``tests/test_layout.py``
keeps services from importing this module (and each other).
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, is_dataclass
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from corpus.jobs import JobKind
from db import adjudication, baseline_data, jobs, model_store, tagging, users
from db import reopen as reopening
from db.access import ACCOUNT_ROLES, check_writer
from db.assignment import AssignmentReport, AssignmentSummary, reassign_open_tagging, reassign_open_work
from db.engine import transaction
from db.models import AuditEvent
from db.project_settings import ProjectSettings
from db.suggestion_model import model_info
from db.tagging import AnnotationState, ItemView

# ---------------------------------------------------------------- tagging: after a save, gold; on open, training


def kick(session: Session, project_id: int, settings: ProjectSettings) -> int | None:
    """Enqueue a retrain job, in the caller's transaction, if the model may be due; returns the job's id (None:
    not due, or checked recently in this process). Idempotent: while a retrain of the project is queued or
    running, on any server, its id is returned."""
    if not model_store.retrain_may_be_due(session, project_id, settings):
        return None
    return jobs.enqueue_in(session, project_id, JobKind.RETRAIN)


def open_item(engine: Engine, user_id: int, translation_id: int) -> ItemView:
    """``db.tagging.open_item``; the suggestion model's retrain is kicked in the same transaction (never waits)."""
    return tagging.open_item(engine, user_id, translation_id, on_open=kick)


def save_annotation(engine: Engine, user_id: int, item_id: int, *args: Any, **kwargs: Any) -> AnnotationState:
    """``db.tagging.save_annotation`` (the same parameters); a submit lets the item's automatic gold follow,
    in the save's transaction."""
    return tagging.save_annotation(engine, user_id, item_id, *args, decide_gold=adjudication.auto_gold_if_agreed,
                                   **kwargs)


def reopen_annotation(engine: Engine, user_id: int, item_id: int, *args: Any, **kwargs: Any) -> AnnotationState:
    """``db.tagging.reopen_annotation``; the item's automatic gold follows the versions still submitted."""
    return tagging.reopen_annotation(engine, user_id, item_id, *args, decide_gold=adjudication.auto_gold_if_agreed,
                                     **kwargs)


def reopen(engine: Engine, lead_id: int, kind: str, record_id: int, reason: str, **kwargs: Any) -> reopening.Answer:
    """``db.reopen.reopen`` (a lead sets submitted work back to draft); a reopened annotation's item lets its
    automatic gold follow, in the same transaction."""
    return reopening.reopen(engine, lead_id, kind, record_id, reason, decide_gold=adjudication.auto_gold_if_agreed,
                            **kwargs)


# ---------------------------------------------------------------- accounts: a deactivation moves open work


@dataclass(frozen=True)
class Reassignment:
    """What deactivating a user moved to others."""

    translation: AssignmentSummary
    tagging: AssignmentReport

    def __str__(self) -> str:
        text = f"translation: {self.translation}; tagging: {self.tagging.created} new tasks for {self.tagging.targets} items"
        if self.tagging.short:
            text += f" ({len(self.tagging.short)} items lack an eligible annotator)"
        return text


def deactivate_user(engine: Engine, user_id: int, actor_id: int | None) -> Reassignment:
    """Log the user out everywhere, stop new logins (``db.users.deactivate_in``), and reassign their
    unfinished translation and tagging tasks, in one transaction."""
    if user_id == actor_id:
        raise ValueError("you cannot deactivate yourself")
    with transaction(engine) as session:
        check_writer(session, actor_id, roles=ACCOUNT_ROLES)
        user = users.deactivate_in(session, user_id, actor_id)
        translation = reassign_open_work(session, user_id, actor_id)
        moved = reassign_open_tagging(session, user_id, actor_id)
        session.add(AuditEvent(actor_id=actor_id, action="deactivate-user",
                               detail={"user": user.username, "reassigned_sentences": translation.sentences,
                                       "new_tasks": translation.created,
                                       "reassigned_tagging_items": moved.targets,
                                       "new_tagging_tasks": moved.created}))
        return Reassignment(translation, moved)


# ---------------------------------------------------------------- jobs: what each kind of job does
# (the queue, db.jobs, runs them and imports none of the concepts whose work they are)


def _jsonable(value: Any) -> Any:
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _retrain(engine: Engine, project_id: int, arguments: dict) -> dict:
    stored = model_store.run_retrain(engine, project_id)
    info = model_info(engine, project_id)
    return {"stored": stored, "gold_count": info.gold_count if info else None}


def _review_suspects(engine: Engine, project_id: int, arguments: dict) -> list:
    return _jsonable(model_store.review_suspects(engine, project_id, float(arguments.get("min_confidence", 0.9))))


def _dataset_baseline(engine: Engine, project_id: int, arguments: dict) -> dict:
    return baseline_data.run_baseline(engine, project_id=project_id)


def _leaderboard_baseline(engine: Engine, project_id: int, arguments: dict) -> dict:
    return {"added": baseline_data.ensure_baseline_entry(engine, project_id=project_id)}


JOB_HANDLERS: dict[str, jobs.Handler] = {
    JobKind.RETRAIN: _retrain,
    JobKind.REVIEW_SUSPECTS: _review_suspects,
    JobKind.DATASET_BASELINE: _dataset_baseline,
    JobKind.LEADERBOARD_BASELINE: _leaderboard_baseline,
}


def job_runner(engine: Engine, **options: Any) -> jobs.Runner:
    """A worker that runs every kind of job (``python -m corpus worker``)."""
    return jobs.Runner(engine, handlers=JOB_HANDLERS, **options)


def run_jobs_until_idle(engine: Engine, **options: Any) -> list[int]:
    """Run every claimable job here, one after another (tests; ``python -m corpus worker --once``)."""
    return jobs.run_until_idle(engine, handlers=JOB_HANDLERS, **options)


def start_job_runner_if_configured(engine: Engine) -> threading.Thread | None:
    """An app server's worker thread (``db.jobs.start_runner_if_configured``), running every kind of job."""
    return jobs.start_runner_if_configured(engine, JOB_HANDLERS)
