"""`python -m corpus worker`: runs the jobs waiting in the database (``--once``: then exits, saying how many), records
a failing job's error, stops after the job in hand on SIGTERM, and refuses a lease or poll of zero."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

from cli.commands import main
from corpus.jobs import JobKind
from db import jobs
from db.schema import default_project

ROOT = Path(__file__).resolve().parents[2]


def test_worker_once_runs_the_waiting_jobs_and_records_a_failure(engine, sqlite_url, capsys):
    pid = default_project(engine)
    job_id = jobs.enqueue(engine, pid, JobKind.LEADERBOARD_BASELINE)  # no gold test split: nothing to add
    failing = jobs.enqueue(engine, pid, "a-kind-of-a-newer-release")  # a worker older than the app that asked
    assert main(["--db", sqlite_url, "worker", "--once"]) == 0
    assert "ran 2 job(s)" in capsys.readouterr().out
    done = jobs.get(engine, job_id)
    assert (done.state, done.result) == ("done", {"added": False})
    ended = jobs.get(engine, failing)
    assert (ended.state, ended.error) == ("failed", "LookupError: no worker knows the job kind "
                                                    "'a-kind-of-a-newer-release'")
    assert main(["--db", sqlite_url, "worker", "--once"]) == 0
    assert "ran 0 job(s)" in capsys.readouterr().out


def test_worker_once_says_how_many_jobs_ran_as_json(engine, sqlite_url, capsys):
    import json

    jobs.enqueue(engine, default_project(engine), JobKind.LEADERBOARD_BASELINE)
    assert main(["--db", sqlite_url, "worker", "--once", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["jobs"] == 1 and report["worker"]


def test_worker_refuses_a_lease_of_zero(sqlite_url, engine, capsys):
    assert main(["--db", sqlite_url, "worker", "--lease", "0"]) == 1
    assert capsys.readouterr().err.strip() == "--lease: must be more than 0 seconds"


def test_a_running_worker_takes_a_new_job_and_stops_on_sigterm(engine, sqlite_url):
    worker = subprocess.Popen([sys.executable, "-m", "corpus", "--db", sqlite_url, "worker", "--poll", "0.2"],
                              cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.0)
        job_id = jobs.enqueue(engine, default_project(engine), JobKind.LEADERBOARD_BASELINE)
        deadline = time.time() + 60
        while jobs.get(engine, job_id).active:
            assert time.time() < deadline and worker.poll() is None, worker.stderr.read() if worker.poll() else ""
            time.sleep(0.1)
        assert jobs.get(engine, job_id).state == "done"
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(30) == 0
        assert "stopped" in worker.stderr.read()
    finally:
        if worker.poll() is None:
            worker.kill()


def test_a_worker_run_in_this_process_gives_back_its_ctrl_c_and_sigterm_when_it_stops(engine, sqlite_url, capsys):
    """A script (or a test) that runs the command in its own main thread must find its own handlers afterwards, not
    the worker's, which only set an event nobody waits on any more: a later Ctrl-C would do nothing."""
    import os
    import threading

    def own(signum, frame):  # noqa: ARG001 - a handler's signature
        raise AssertionError("the caller's own handler ran while the worker held the signal")

    before = signal.signal(signal.SIGTERM, own), signal.getsignal(signal.SIGINT)
    try:
        # SIGTERM once the worker holds the signal: its handler sets the stop, and the command returns
        def stop_when_started():
            deadline = time.time() + 60
            while signal.getsignal(signal.SIGTERM) is own and time.time() < deadline and not ended.is_set():
                time.sleep(0.02)
            if not ended.is_set():  # (a command that failed early has returned: this process is not signalled)
                os.kill(os.getpid(), signal.SIGTERM)

        ended = threading.Event()
        stopper = threading.Thread(target=stop_when_started, daemon=True)
        stopper.start()
        try:
            assert main(["--db", sqlite_url, "worker", "--poll", "0.1"]) == 0
        finally:
            ended.set()
            stopper.join(5)
        assert "stopped" in capsys.readouterr().err
        assert signal.getsignal(signal.SIGTERM) is own
        assert signal.getsignal(signal.SIGINT) is before[1]
    finally:
        signal.signal(signal.SIGTERM, before[0])
