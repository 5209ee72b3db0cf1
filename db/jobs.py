"""Background work as jobs in the database: the suggestion model's retrain, the review-suspects check, the
Dataset check's baseline and the leaderboard's baseline row.

A page or a save only *enqueues* (``enqueue``: idempotent, at most one queued-or-running job per project and
kind, held by a partial unique index), and shows the job's state (``latest``); a *worker* claims a job, runs
it and stores its result or its error. Any number of workers may run, in app servers (a thread,
``start_runner``) or as ``python -m corpus worker`` processes on any machine:

- a claim is one short transaction: on PostgreSQL ``SELECT ... FOR UPDATE SKIP LOCKED``, so concurrent
  workers each take a different job and none waits on another's; on SQLite the write transaction's
  ``BEGIN IMMEDIATE`` serialises claims (one machine);
- the claiming worker holds a *lease* (``lease_expires``), renewed while the job runs; a job whose lease
  ended (its worker was killed, lost the database or its machine) is claimed again by another worker,
  ``attempts`` + 1, up to ``corpus.jobs.MAX_ATTEMPTS``; a job that raises is failed with its error at once
  (the same data would raise it again); a worker whose lease was taken over stores nothing;
- times are the database's clock on PostgreSQL (workers on several machines compare leases on one clock).

Why a table of our own rather than procrastinate or pgqueuer: both are PostgreSQL-only (LISTEN/NOTIFY,
PL/pgSQL functions, their own schema and migrations), while the Quickstart runs the same jobs on the
embedded SQLite with no extra process; and our needs are four kinds of job that each exist at most once per
project, with a state a page reads, a lease and a retry count: one table, one partial unique index and
four short transactions (``enqueue``, ``claim``, ``renew``, ``finish``/``fail``), inside the schema's own
Alembic migrations, backed up nowhere (jobs are derived work, like the suggestion model). Training itself
still runs in a child process (``db.worker.in_worker``: CRFsuite holds the GIL), so a worker's lease
renewals and an app server's pages keep running while it trains.

The table is not part of ``db.models.Base``: jobs are no project data (not archived, not restored, and
truncating the project's tables on a restore leaves them alone), hence no foreign key to ``projects``.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Column,
    DateTime,
    Engine,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    and_,
    delete,
    exists,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.orm import Session

from corpus.jobs import (
    ACTIVE_STATES,
    ENDED_STATES,
    LEASE_S,
    MAX_ATTEMPTS,
    JobState,
    JobText,
    after_lease_ended,
    app_runs_jobs,
    describe,
    lease_end,
)
from corpus.vocabulary import check_in
from db.engine import reader, transaction
from db.models import NAMING, utcnow

log = logging.getLogger(__name__)

metadata = MetaData(naming_convention=NAMING)
#: The partial unique index's predicate, as the migration writes it (ON CONFLICT names the same one).
ACTIVE_PREDICATE = check_in("state", ACTIVE_STATES)

jobs = Table(
    "jobs", metadata,
    Column("id", Integer, primary_key=True),
    Column("project_id", Integer, nullable=False),
    Column("kind", String(64), nullable=False),
    Column("arguments", JSON, nullable=False),
    Column("state", String(16), nullable=False),
    Column("lease_owner", Text),
    Column("lease_expires", DateTime),
    Column("attempts", Integer, nullable=False),
    Column("result", JSON),
    Column("error", Text),
    Column("created_at", DateTime, nullable=False),
    Column("started_at", DateTime),
    Column("finished_at", DateTime),
    CheckConstraint(check_in("state", JobState), name="state_known"),
    CheckConstraint("attempts >= 0", name="attempts_not_negative"),
    Index("uq_jobs_active", "project_id", "kind", unique=True,
          postgresql_where=text(ACTIVE_PREDICATE), sqlite_where=text(ACTIVE_PREDICATE)),
    Index("ix_jobs_project_kind", "project_id", "kind", "id"),
    Index("ix_jobs_state", "state"),
)

#: Ended jobs kept per project and kind (the newest; older ones are deleted when a job ends): a page shows the
#: latest, a test or a lead reads the recent history.
KEEP_ENDED = 20

#: Enqueued in this process: wakes this process's runner at once instead of at its next poll.
_wake = threading.Event()


def _now(session: Session) -> datetime:
    """The database's clock on PostgreSQL (naive UTC, as every stored time), this machine's on SQLite."""
    if session.get_bind().dialect.name == "postgresql":
        return session.scalar(text("SELECT timezone('utc', clock_timestamp())"))
    return utcnow()


# ---------------------------------------------------------------- what pages read


@dataclass(frozen=True)
class JobView:
    id: int
    project_id: int
    kind: str
    state: str
    arguments: dict
    attempts: int
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    result: Any
    error: str | None
    lease_owner: str | None
    now: datetime  # the database's time when this was read (elapsed times are against it)

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES

    def describe(self, what: str) -> JobText:
        return describe(what, self.state, self.now, self.created_at, self.started_at, self.finished_at,
                        self.attempts, self.error)


def _view(row, now: datetime) -> JobView:  # noqa: ANN001
    return JobView(row.id, row.project_id, row.kind, row.state, dict(row.arguments or {}), row.attempts,
                   row.created_at, row.started_at, row.finished_at, row.result, row.error, row.lease_owner, now)


def get(engine: Engine, job_id: int) -> JobView | None:
    with Session(reader(engine)) as session:
        row = session.execute(select(jobs).where(jobs.c.id == job_id)).first()
        return _view(row, _now(session)) if row else None


def latest(engine: Engine, project_id: int, kind: str, state: str | None = None) -> JobView | None:
    """The project's newest job of ``kind`` (in ``state`` if given): what a page shows."""
    with Session(reader(engine)) as session:
        query = select(jobs).where(jobs.c.project_id == project_id, jobs.c.kind == kind)
        if state is not None:
            query = query.where(jobs.c.state == state)
        row = session.execute(query.order_by(jobs.c.id.desc()).limit(1)).first()
        return _view(row, _now(session)) if row else None


def history(engine: Engine, project_id: int | None = None, kind: str | None = None) -> list[JobView]:
    """Every job (of a project, of a kind), oldest first."""
    with Session(reader(engine)) as session:
        query = select(jobs)
        if project_id is not None:
            query = query.where(jobs.c.project_id == project_id)
        if kind is not None:
            query = query.where(jobs.c.kind == kind)
        now = _now(session)
        return [_view(r, now) for r in session.execute(query.order_by(jobs.c.id))]


# ---------------------------------------------------------------- enqueue


def _insert_if_none_active(session: Session, project_id: int, kind: str, arguments: dict, now: datetime) -> None:
    values = dict(project_id=project_id, kind=str(kind), arguments=arguments, state=JobState.QUEUED.value,
                  attempts=0, created_at=now)
    if session.get_bind().dialect.name == "postgresql":
        from sqlalchemy.dialects.postgresql import insert
    else:
        from sqlalchemy.dialects.sqlite import insert
    session.execute(insert(jobs).values(**values).on_conflict_do_nothing(
        index_elements=["project_id", "kind"], index_where=text(ACTIVE_PREDICATE)))


def enqueue_in(session: Session, project_id: int, kind: str, arguments: dict | None = None) -> int:
    """``enqueue`` inside the caller's transaction (an item opening that finds the model due): the queued or
    running job of this project and kind, a new one only if there is none. Never raises on a concurrent
    enqueue (``ON CONFLICT DO NOTHING`` on the partial unique index), so the caller's transaction stands."""
    for _ in range(5):
        _insert_if_none_active(session, project_id, kind, dict(arguments or {}), _now(session))
        job_id = session.scalar(select(jobs.c.id).where(
            jobs.c.project_id == project_id, jobs.c.kind == str(kind), jobs.c.state.in_(ACTIVE_STATES)))
        if job_id is not None:
            _wake.set()
            return job_id
    raise RuntimeError(f"could not enqueue {kind} for project {project_id}: its job kept ending meanwhile")


def enqueue(engine: Engine, project_id: int, kind: str, arguments: dict | None = None) -> int:
    """Ask for a job; idempotent: while one of this project and kind is queued or running, its id is returned
    and ``arguments`` are not used (the running job reads the data when it runs)."""
    with transaction(engine) as session:
        return enqueue_in(session, project_id, kind, arguments)


# ---------------------------------------------------------------- claim, renew, finish


@dataclass(frozen=True)
class Claimed:
    id: int
    project_id: int
    kind: str
    arguments: dict
    attempts: int
    owner: str


def worker_name() -> str:
    """Who holds a lease: host, process and a random part (a restarted process is another worker)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def _claimable(now: datetime, kinds: Iterable[str] | None):  # noqa: ANN202
    condition = or_(jobs.c.state == JobState.QUEUED.value,
                    and_(jobs.c.state == JobState.RUNNING.value, jobs.c.lease_expires <= now))
    if kinds is not None:
        condition = and_(condition, jobs.c.kind.in_([str(k) for k in kinds]))
    return condition


def has_work(engine: Engine, kinds: Iterable[str] | None = None) -> bool:
    """A cheap read before a claim: a queued job, or a running one whose lease ended (on SQLite a claim is a
    write transaction, which an idle worker polling every second must not take)."""
    kinds = list(kinds) if kinds is not None else None
    with Session(reader(engine)) as session:
        return bool(session.scalar(select(exists().where(_claimable(_now(session), kinds)))))


def claim(engine: Engine, owner: str, kinds: Iterable[str] | None = None, lease_s: float = LEASE_S,
          max_attempts: int = MAX_ATTEMPTS) -> Claimed | None:
    """Take the oldest claimable job and its lease, or None. A job whose lease ended is taken again
    (``attempts`` + 1), or failed once it was started ``max_attempts`` times."""
    kinds = list(kinds) if kinds is not None else None
    with transaction(engine) as session:
        now = _now(session)
        while True:
            row = session.execute(select(jobs).where(_claimable(now, kinds)).order_by(jobs.c.id).limit(1)
                                  .with_for_update(skip_locked=True)).first()
            if row is None:
                return None
            if row.state == JobState.RUNNING and after_lease_ended(row.attempts, max_attempts) == JobState.FAILED:
                session.execute(update(jobs).where(jobs.c.id == row.id).values(
                    state=JobState.FAILED.value, lease_expires=None, finished_at=now,
                    error=f"its worker stopped before it finished, {row.attempts} times (the last: "
                          f"{row.lease_owner}); not started again"))
                log.warning("job %s (%s) failed: its worker stopped %s times", row.id, row.kind, row.attempts)
                continue
            if row.state == JobState.RUNNING:
                log.warning("job %s (%s): the lease of %s ended; taking it over", row.id, row.kind, row.lease_owner)
            session.execute(update(jobs).where(jobs.c.id == row.id).values(
                state=JobState.RUNNING.value, lease_owner=owner, lease_expires=lease_end(now, lease_s),
                attempts=row.attempts + 1, started_at=now, finished_at=None, error=None))
            return Claimed(row.id, row.project_id, row.kind, dict(row.arguments or {}), row.attempts + 1, owner)


def _mine(job_id: int, owner: str):  # noqa: ANN202
    return and_(jobs.c.id == job_id, jobs.c.lease_owner == owner, jobs.c.state == JobState.RUNNING.value)


def renew(engine: Engine, job_id: int, owner: str, lease_s: float = LEASE_S) -> bool:
    """Extend the lease; False when this worker no longer holds it (it ended and another worker took the job)."""
    with transaction(engine) as session:
        return session.execute(update(jobs).where(_mine(job_id, owner))
                               .values(lease_expires=lease_end(_now(session), lease_s))).rowcount == 1


def _prune(session: Session, job_id: int) -> None:
    """Delete the ended jobs of this one's project and kind but the newest ``KEEP_ENDED``."""
    project_id, kind = session.execute(select(jobs.c.project_id, jobs.c.kind).where(jobs.c.id == job_id)).one()
    same = and_(jobs.c.project_id == project_id, jobs.c.kind == kind, jobs.c.state.in_(ENDED_STATES))
    kept = select(jobs.c.id).where(same).order_by(jobs.c.id.desc()).limit(KEEP_ENDED)
    session.execute(delete(jobs).where(same, jobs.c.id.not_in(kept.scalar_subquery())))


def finish(engine: Engine, job_id: int, owner: str, result: Any) -> bool:
    """Store the result and end the job; False (nothing stored) when the lease was taken over meanwhile."""
    with transaction(engine) as session:
        ended = session.execute(update(jobs).where(_mine(job_id, owner)).values(
            state=JobState.DONE.value, result=result, lease_expires=None, finished_at=_now(session))).rowcount == 1
        if ended:
            _prune(session, job_id)
        return ended


def fail(engine: Engine, job_id: int, owner: str, error: str) -> bool:
    """Record why the job failed and end it (the page shows the error)."""
    with transaction(engine) as session:
        ended = session.execute(update(jobs).where(_mine(job_id, owner)).values(
            state=JobState.FAILED.value, error=error[:4000], lease_expires=None,
            finished_at=_now(session))).rowcount == 1
        if ended:
            _prune(session, job_id)
        return ended


# ---------------------------------------------------------------- what each kind does

#: What a job of one kind does: (engine, project id, arguments) -> its JSON result. The table of them is
#: ``db.workflows.JOB_HANDLERS`` (a job runs another concept's work: the queue imports none of them).
Handler = Callable[[Engine, int, dict], Any]


# ---------------------------------------------------------------- workers


class Runner:
    """One worker: claims jobs one at a time and runs them, renewing the lease from a second thread."""

    def __init__(self, engine: Engine, owner: str | None = None, kinds: Iterable[str] | None = None,
                 lease_s: float = LEASE_S, poll_s: float = 1.0, max_attempts: int = MAX_ATTEMPTS, *,
                 handlers: dict[str, Handler]) -> None:
        self.engine, self.owner = engine, owner or worker_name()
        self.kinds = list(kinds) if kinds is not None else None
        self.lease_s, self.poll_s, self.max_attempts = lease_s, poll_s, max_attempts
        self.handlers = handlers

    def run_one(self) -> int | None:
        """Claim and run one job; its id, or None when there was nothing to do."""
        if not has_work(self.engine, self.kinds):
            return None
        job = claim(self.engine, self.owner, self.kinds, self.lease_s, self.max_attempts)
        if job is None:
            return None
        log.info("job %s (%s, project %s, attempt %s) started by %s", job.id, job.kind, job.project_id,
                 job.attempts, self.owner)
        stop = threading.Event()
        keeper = threading.Thread(target=self._keep_lease, args=(job, stop), daemon=True,
                                  name=f"job-{job.id}-lease")
        keeper.start()
        try:
            handler = self.handlers.get(job.kind)
            if handler is None:
                raise LookupError(f"no worker knows the job kind {job.kind!r}")
            result = handler(self.engine, job.project_id, job.arguments)
        except Exception as exc:  # recorded for the page; the worker goes on with the next job
            stop.set()
            log.exception("job %s (%s) failed", job.id, job.kind)
            fail(self.engine, job.id, self.owner, f"{type(exc).__name__}: {exc}")
        else:
            stop.set()
            try:
                stored = finish(self.engine, job.id, self.owner, result)
            except Exception as exc:  # e.g. a result the database cannot store as JSON
                log.exception("job %s (%s): its result could not be stored", job.id, job.kind)
                fail(self.engine, job.id, self.owner, f"its result could not be stored: {type(exc).__name__}: {exc}")
            else:
                if not stored:
                    log.warning("job %s (%s) finished after its lease was taken over: result dropped", job.id,
                                job.kind)
        finally:
            stop.set()
            keeper.join(10)
        return job.id

    def _keep_lease(self, job: Claimed, stop: threading.Event) -> None:
        while not stop.wait(self.lease_s / 4):
            try:
                if not renew(self.engine, job.id, self.owner, self.lease_s):
                    log.warning("job %s: lease lost (taken over by another worker)", job.id)
                    return
            except Exception:  # the database is away for a moment: the lease may still be renewed in time
                log.exception("job %s: renewing the lease failed", job.id)

    def run_until_idle(self) -> list[int]:
        """Run jobs until none is claimable (tests, ``worker --once``); the ids run."""
        done = []
        while (job_id := self.run_one()) is not None:
            done.append(job_id)
        return done

    def run_forever(self, stop: threading.Event) -> None:
        """Run jobs until ``stop`` is set; between jobs, wait ``poll_s`` (or less when this process enqueues)."""
        while not stop.is_set():
            try:
                ran = self.run_one()
            except Exception:  # a database that is away for a moment must not end the worker
                log.exception("worker %s: claiming a job failed", self.owner)
                ran = None
            if ran is None:
                _wake.wait(self.poll_s)
                _wake.clear()


def run_until_idle(engine: Engine, **options: Any) -> list[int]:
    """Run every claimable job here, one after another, with ``handlers`` among the options (tests;
    ``db.workflows.run_jobs_until_idle`` hands in every kind's)."""
    return Runner(engine, **options).run_until_idle()


_runners: dict[str, threading.Thread] = {}
_runners_lock = threading.Lock()


def start_runner(engine: Engine, **options: Any) -> threading.Thread:
    """This process's worker thread for ``engine``'s database (one per database; started once)."""
    key = engine.url.render_as_string(hide_password=True)
    with _runners_lock:
        thread = _runners.get(key)
        if thread is not None and thread.is_alive():
            return thread
        runner = Runner(engine, **options)
        thread = threading.Thread(target=runner.run_forever, args=(threading.Event(),), daemon=True,
                                  name=f"jobs-{runner.owner}")
        _runners[key] = thread
        thread.start()
        return thread


def start_runner_if_configured(engine: Engine, handlers: dict[str, Handler],
                                environ: dict[str, str] | None = None) -> threading.Thread | None:
    """An app server's worker thread, unless ``CORPUS_APP_RUNS_JOBS`` says the workers are elsewhere."""
    setting = (os.environ if environ is None else environ).get("CORPUS_APP_RUNS_JOBS")
    if not app_runs_jobs(setting):
        return None
    return start_runner(engine, handlers=handlers)
