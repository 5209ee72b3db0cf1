"""Jobs in the database (db/jobs.py), on SQLite and PostgreSQL: an enqueue is idempotent per project and kind,
concurrent workers never take the same job, a job whose worker died is taken again exactly once by another
worker, and a job that raises records its error."""

from __future__ import annotations

import threading
import time

import pytest
from sqlalchemy import select, text
from sqlalchemy.orm import Session

from corpus.jobs import JobKind, JobState
from db import jobs
from db.engine import transaction
from db.schema import default_project


def _pid(engine) -> int:
    return default_project(engine)


def _at_once(n: int, fn):
    """Run ``fn(i)`` in ``n`` threads released together; their results in order."""
    barrier, out = threading.Barrier(n), [None] * n

    def run(i):
        barrier.wait()
        out[i] = fn(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return out


def test_enqueue_returns_the_active_job_until_it_ends(any_engine):
    pid = _pid(any_engine)
    first = jobs.enqueue(any_engine, pid, JobKind.DATASET_BASELINE, {"n": 1})
    assert jobs.enqueue(any_engine, pid, JobKind.DATASET_BASELINE, {"n": 2}) == first
    other = jobs.enqueue(any_engine, pid, JobKind.REVIEW_SUSPECTS)
    assert other != first
    claimed = jobs.claim(any_engine, "w1", kinds=[JobKind.DATASET_BASELINE])
    assert claimed.id == first and claimed.arguments == {"n": 1}
    assert jobs.enqueue(any_engine, pid, JobKind.DATASET_BASELINE) == first  # running counts as active
    assert jobs.finish(any_engine, first, "w1", {"ok": True})
    again = jobs.enqueue(any_engine, pid, JobKind.DATASET_BASELINE)
    assert again not in (first, other)
    assert [j.state for j in jobs.history(any_engine, pid, JobKind.DATASET_BASELINE)] == ["done", "queued"]


def test_concurrent_enqueues_make_one_job(any_engine):
    pid = _pid(any_engine)
    ids = _at_once(6, lambda i: jobs.enqueue(any_engine, pid, JobKind.RETRAIN, {"by": i}))
    assert len(set(ids)) == 1
    assert len(jobs.history(any_engine, pid, JobKind.RETRAIN)) == 1


def test_the_database_refuses_a_second_active_job_of_a_kind(any_engine):
    pid = _pid(any_engine)
    jobs.enqueue(any_engine, pid, JobKind.RETRAIN)
    from sqlalchemy.exc import IntegrityError

    with pytest.raises(IntegrityError), transaction(any_engine) as session:
        session.execute(jobs.jobs.insert().values(project_id=pid, kind=JobKind.RETRAIN.value, arguments={},
                                                  state=JobState.QUEUED.value, attempts=0,
                                                  created_at=jobs.utcnow()))


def test_one_claim_among_concurrent_claimers(any_engine):
    pid = _pid(any_engine)
    job_id = jobs.enqueue(any_engine, pid, JobKind.DATASET_BASELINE)
    got = _at_once(5, lambda i: jobs.claim(any_engine, f"w{i}"))
    winners = [c for c in got if c is not None]
    assert len(winners) == 1 and winners[0].id == job_id and winners[0].attempts == 1
    [job] = jobs.history(any_engine, pid)
    assert job.state == JobState.RUNNING and job.lease_owner == winners[0].owner


def test_concurrent_claimers_each_take_a_different_job(any_engine):
    pid = _pid(any_engine)
    ids = {jobs.enqueue(any_engine, pid, kind) for kind in JobKind}
    got = _at_once(4, lambda i: jobs.claim(any_engine, f"w{i}"))
    assert sorted(c.id for c in got) == sorted(ids)


def test_a_job_whose_worker_died_is_taken_again_once_by_another_worker(any_engine):
    pid = _pid(any_engine)
    job_id = jobs.enqueue(any_engine, pid, JobKind.REVIEW_SUSPECTS)
    dead = jobs.claim(any_engine, "dead", lease_s=0.5)  # claimed, then never renewed: its worker is gone
    assert dead.id == job_id
    assert jobs.claim(any_engine, "early") is None  # the lease still holds
    time.sleep(1.0)
    got = _at_once(3, lambda i: jobs.claim(any_engine, f"next{i}"))
    [taker] = [c for c in got if c is not None]
    assert taker.id == job_id and taker.attempts == 2
    assert not jobs.finish(any_engine, job_id, "dead", {"late": True})  # the dead worker's answer is dropped
    assert jobs.finish(any_engine, job_id, taker.owner, {"ok": True})
    job = jobs.get(any_engine, job_id)
    assert (job.state, job.attempts, job.result, job.lease_owner) == ("done", 2, {"ok": True}, taker.owner)


def test_a_job_whose_workers_keep_dying_fails_after_the_last_attempt(any_engine):
    pid = _pid(any_engine)
    job_id = jobs.enqueue(any_engine, pid, JobKind.RETRAIN)
    for attempt in (1, 2):
        assert jobs.claim(any_engine, f"w{attempt}", lease_s=0.2, max_attempts=2).attempts == attempt
        time.sleep(0.4)
    assert jobs.claim(any_engine, "w3", max_attempts=2) is None
    job = jobs.get(any_engine, job_id)
    assert job.state == JobState.FAILED and "stopped before it finished, 2 times" in job.error
    assert job.describe("Retraining").level == "error"


def test_a_renewed_lease_keeps_the_job(any_engine):
    pid = _pid(any_engine)
    jobs.enqueue(any_engine, pid, JobKind.RETRAIN)
    held = jobs.claim(any_engine, "alive", lease_s=0.6)
    for _ in range(3):
        time.sleep(0.3)
        assert jobs.renew(any_engine, held.id, "alive", lease_s=0.6)
    assert jobs.claim(any_engine, "other") is None


def test_a_runner_stores_the_result_and_records_a_failure(any_engine):
    pid = _pid(any_engine)
    seen = []

    def works(engine, project_id, arguments):
        seen.append((project_id, arguments))
        return {"report": [1, 2]}

    def breaks(engine, project_id, arguments):
        raise ValueError("the baseline needs gold Hindi sentences in both splits")

    handlers = {JobKind.DATASET_BASELINE: works, JobKind.LEADERBOARD_BASELINE: breaks}
    ok = jobs.enqueue(any_engine, pid, JobKind.DATASET_BASELINE, {"x": 1})
    bad = jobs.enqueue(any_engine, pid, JobKind.LEADERBOARD_BASELINE)
    assert jobs.run_until_idle(any_engine, handlers=handlers) == [ok, bad]
    assert seen == [(pid, {"x": 1})]
    done, failed = jobs.get(any_engine, ok), jobs.get(any_engine, bad)
    assert (done.state, done.result) == ("done", {"report": [1, 2]})
    assert done.started_at <= done.finished_at
    assert failed.state == "failed" and failed.error == \
        "ValueError: the baseline needs gold Hindi sentences in both splits"
    assert failed.attempts == 1  # an error is not retried
    assert jobs.run_until_idle(any_engine, handlers=handlers) == []


def test_a_runner_renews_its_lease_while_a_long_job_runs(any_engine):
    pid = _pid(any_engine)
    job_id = jobs.enqueue(any_engine, pid, JobKind.RETRAIN)
    taken = []

    def slow(engine, project_id, arguments):
        time.sleep(1.2)  # three lease lengths
        taken.append(jobs.claim(engine, "thief"))
        return {"ok": True}

    jobs.Runner(any_engine, lease_s=0.4, handlers={JobKind.RETRAIN: slow}).run_until_idle()
    assert taken == [None]
    assert jobs.get(any_engine, job_id).attempts == 1


def test_a_job_enqueued_inside_a_failed_transaction_is_not_kept(any_engine):
    pid = _pid(any_engine)
    with pytest.raises(RuntimeError), transaction(any_engine) as session:
        jobs.enqueue_in(session, pid, JobKind.RETRAIN)
        raise RuntimeError("the save failed")
    assert jobs.history(any_engine, pid) == []


def test_the_migration_makes_the_table_the_module_describes(any_engine):
    with Session(any_engine) as session:
        session.execute(select(*jobs.jobs.c).limit(1)).all()
        indexes = session.execute(text(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'jobs'" if any_engine.dialect.name == "postgresql"
            else "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'jobs'")).scalars().all()
    assert {"uq_jobs_active", "ix_jobs_project_kind", "ix_jobs_state"} <= set(indexes)


def test_only_the_newest_ended_jobs_of_a_kind_are_kept(any_engine):
    pid = _pid(any_engine)
    other = jobs.enqueue(any_engine, pid, JobKind.RETRAIN)  # another kind, still queued: untouched
    ids = []
    for i in range(jobs.KEEP_ENDED + 3):
        ids.append(jobs.enqueue(any_engine, pid, JobKind.DATASET_BASELINE, {"n": i}))
        claimed = jobs.claim(any_engine, "w", kinds=[JobKind.DATASET_BASELINE])
        (jobs.fail if i % 2 else jobs.finish)(any_engine, claimed.id, "w", "why" if i % 2 else {"n": i})
    kept = [j.id for j in jobs.history(any_engine, pid, JobKind.DATASET_BASELINE)]
    assert kept == ids[-jobs.KEEP_ENDED:]
    assert jobs.get(any_engine, other).state == "queued"
