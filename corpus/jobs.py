"""Background jobs, the rules: their states and kinds, when a lease has ended, what a job whose worker died
becomes, whether a page should ask for a new run, and how a job's state reads on a page.

The storage and the workers are ``db/jobs.py``; these are plain functions over plain values.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum


class JobState(StrEnum):
    QUEUED = "queued"    # waiting for a worker
    RUNNING = "running"  # a worker holds its lease
    DONE = "done"        # finished; its result is stored
    FAILED = "failed"    # raised an error, or its workers died too often; the error is stored


#: At most one job of a kind per project in these states (a partial unique index).
ACTIVE_STATES = (JobState.QUEUED, JobState.RUNNING)
ENDED_STATES = (JobState.DONE, JobState.FAILED)


class JobKind(StrEnum):
    RETRAIN = "retrain-suggestions"              # the suggestion model, when gold crossed the next threshold
    REVIEW_SUSPECTS = "review-suspects"          # cross-validated CRFs over the gold
    DATASET_BASELINE = "dataset-baseline"        # the Dataset check's CRF report, both sides
    LEADERBOARD_BASELINE = "leaderboard-baseline"  # the leaderboard's CRF row for the current export version


#: A running job's lease: the worker renews it every ``LEASE_S / 4``; a lease not renewed for this long means
#: its worker died, and another worker takes the job again.
LEASE_S = 60.0
#: How many times a job is started at most when its workers die (an error raised by the job is not retried:
#: the same gold would raise it again).
MAX_ATTEMPTS = 3

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def app_runs_jobs(setting: str | None) -> bool:
    """``CORPUS_APP_RUNS_JOBS``: whether an app server also runs jobs in a thread of its own. Unset, it does
    (the Quickstart and a single server need nothing more); a deployment with ``python -m corpus worker``
    processes sets it to 0 so that the servers only serve pages."""
    if setting is None or not setting.strip():
        return True
    value = setting.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"CORPUS_APP_RUNS_JOBS={setting!r}: say 1 or 0 (true/false, yes/no)")


def after_lease_ended(attempts: int, max_attempts: int = MAX_ATTEMPTS) -> JobState:
    """What a job whose worker died becomes: queued for another worker, or failed once it has been started
    ``max_attempts`` times (a job that kills its worker every time must not kill every worker in turn)."""
    return JobState.QUEUED if attempts < max_attempts else JobState.FAILED


def lease_end(now: datetime, lease_s: float = LEASE_S) -> datetime:
    return now + timedelta(seconds=lease_s)


def needs_run(state: str | None, ran_for: str | None, wanted: str) -> bool:
    """Whether a page should enqueue a job whose result depends on ``wanted`` (a stamp of the data), given the
    latest job's state and the stamp it ran for: none yet, or an ended one for other data. An active job is
    left to finish, and a failure for this same data is shown, not retried behind the user's back."""
    if state is None:
        return True
    if state in ACTIVE_STATES:
        return False
    return ran_for != wanted


@dataclass(frozen=True)
class JobText:
    """How a job reads on a page: its level (``info``, ``success``, ``error``) and one sentence."""

    level: str
    text: str


def _ago(seconds: float) -> str:
    seconds = max(0, int(seconds))
    if seconds < 90:
        return f"{seconds} s"
    if seconds < 90 * 60:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def describe(what: str, state: str, now: datetime, created_at: datetime, started_at: datetime | None,
             finished_at: datetime | None, attempts: int, error: str | None) -> JobText:
    """``what`` (e.g. "The baseline") queued, running with its elapsed time, done with when, failed with why."""
    if state == JobState.QUEUED:
        again = f" (attempt {attempts + 1}: its last worker stopped)" if attempts else ""
        return JobText("info", f"{what} is queued for {_ago((now - created_at).total_seconds())}{again}: "
                               "it starts as soon as a worker is free.")
    if state == JobState.RUNNING:
        since = started_at or created_at
        again = f" (attempt {attempts})" if attempts > 1 else ""
        return JobText("info", f"{what} is running for {_ago((now - since).total_seconds())}{again}.")
    if state == JobState.DONE:
        took = f" in {_ago((finished_at - started_at).total_seconds())}" if finished_at and started_at else ""
        when = f"{finished_at:%Y-%m-%d %H:%M} UTC" if finished_at else "earlier"
        return JobText("success", f"{what} finished {when}{took}.")
    return JobText("error", f"{what} failed: {error or 'no reason was recorded'}")
