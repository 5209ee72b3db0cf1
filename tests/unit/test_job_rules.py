"""The jobs' rules (corpus/jobs.py): leases, what a job whose worker died becomes, when a page asks for a new
run, how a job reads on a page, and the CORPUS_APP_RUNS_JOBS setting."""

from datetime import datetime, timedelta

import pytest

from corpus.jobs import (
    JobState,
    after_lease_ended,
    app_runs_jobs,
    describe,
    lease_end,
    needs_run,
)

NOW = datetime(2026, 11, 27, 23, 0, 0)


def test_a_job_whose_worker_died_is_queued_again_until_its_last_attempt():
    assert [after_lease_ended(n, 3) for n in (1, 2, 3, 4)] == ["queued", "queued", "failed", "failed"]
    assert lease_end(NOW, 60) == NOW + timedelta(minutes=1)


@pytest.mark.parametrize("state,ran_for,wanted,run", [
    (None, None, "s1", True),
    ("queued", "s0", "s1", False),
    ("running", "s0", "s1", False),
    ("done", "s1", "s1", False),
    ("done", "s0", "s1", True),
    ("failed", "s1", "s1", False),
    ("failed", "s0", "s1", True),
])
def test_a_page_asks_for_a_run_only_without_a_current_or_active_job(state, ran_for, wanted, run):
    assert needs_run(state, ran_for, wanted) is run


def test_each_state_reads_as_a_sentence():
    created, started = NOW - timedelta(seconds=75), NOW - timedelta(seconds=12)
    assert describe("The baseline", "queued", NOW, created, None, None, 0, None).text == \
        "The baseline is queued for 75 s: it starts as soon as a worker is free."
    assert "attempt 2: its last worker stopped" in describe("X", "queued", NOW, created, None, None, 1, None).text
    running = describe("The baseline", "running", NOW, created, started, None, 1, None)
    assert (running.level, running.text) == ("info", "The baseline is running for 12 s.")
    assert describe("X", "running", NOW, created, NOW - timedelta(seconds=200), None, 2, None).text == \
        "X is running for 3 min 20 s (attempt 2)."
    done = describe("The baseline", "done", NOW, created, started, NOW - timedelta(seconds=2), 1, None)
    assert (done.level, done.text) == ("success", "The baseline finished 2026-11-27 22:59 UTC in 10 s.")
    failed = describe("The baseline", JobState.FAILED, NOW, created, started, NOW, 1, "ValueError: no gold")
    assert (failed.level, failed.text) == ("error", "The baseline failed: ValueError: no gold")


@pytest.mark.parametrize("value,runs", [(None, True), ("", True), ("1", True), ("true", True), ("Yes", True),
                                        ("0", False), ("false", False), ("no", False), (" off ", False)])
def test_app_servers_run_jobs_unless_told_not_to(value, runs):
    assert app_runs_jobs(value) is runs


def test_an_unclear_setting_is_refused_not_guessed():
    with pytest.raises(ValueError, match="CORPUS_APP_RUNS_JOBS='maybe'"):
        app_runs_jobs("maybe")
