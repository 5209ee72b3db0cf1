"""Several app servers and a worker on one PostgreSQL database (README, "Several servers").

Two ``streamlit run`` servers (``CORPUS_APP_RUNS_JOBS=0``: they only serve pages) and one
``python -m corpus worker`` start together on a fresh, empty database: the schema is migrated once; a login
made through server A's form is a login on server B; a tag submitted on A shows on B's pages at their next
run (the annotator's queue, the lead's Home count of disagreements, the dashboard's Fleiss kappa); the retrain that both servers' item
openings find due runs exactly once; killing the worker in the middle of a job leads to exactly one retry,
by another worker, once the dead worker's lease has ended.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from journey_steps import enter_as, login, page_text
from playwright.sync_api import expect
from sqlalchemy import text

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
LEASE_S = 3.0  # the workers' lease here: a dead worker's job is taken again after at most this long
TOKENS = ["खाना", "बहुत", "अच्छा", "था", "।"]


def _worker(url: str, name: str) -> subprocess.Popen:
    ARTIFACTS.mkdir(exist_ok=True)
    log = (ARTIFACTS / f"worker-{name}.log").open("w")
    return subprocess.Popen([sys.executable, "-m", "corpus", "--db", url, "worker", "--lease", str(LEASE_S),
                             "--poll", "0.2"], cwd=ROOT, env={**os.environ}, stdout=log, stderr=subprocess.STDOUT)


def _owner_prefix(process: subprocess.Popen) -> str:
    return f"{socket.gethostname()}:{process.pid}:"


def _wait(condition, timeout: float, what: str):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _fleiss_shown(page) -> list[str]:
    """The dashboard's Table 2 row "Fleiss' kappa" as displayed (the grid's accessibility table)."""
    page.get_by_role("heading", name="Agreement (seed paper Table 2)").wait_for()
    grid = page.get_by_test_id("stDataFrame").first
    deadline = time.time() + 30
    while True:  # the grid fills its accessibility table after it is drawn
        grid.locator('table[role="grid"] td').first.wait_for(state="attached")
        rows = grid.evaluate("""el => [...el.querySelectorAll('table[role="grid"] tbody tr')]
                                 .map(tr => [...tr.querySelectorAll('td')].map(td => td.textContent.trim()))""")
        table = {row[0]: row[1:] for row in rows if row}
        if "Fleiss' kappa" in table:
            return table["Fleiss' kappa"]
        assert time.time() < deadline, rows
        time.sleep(0.2)


def _build(engine) -> dict:
    """Six aware translations tagged by meera and ravi: five agreed (gold), the sixth submitted by ravi only."""
    from db.project_settings import load_settings
    from db.settings_change import save_settings
    from db.assignment import assign_annotators
    from db.workflows import open_item, save_annotation
    from tests.support.tagging_fixtures import add_sentence, add_translation, add_user, project_id, set_project

    set_project(engine, annotators_per_item=2, prefill_from_aspect_map=False)
    pid = project_id(engine)
    # No retrain while building (the test process's item openings must enqueue nothing).
    save_settings(engine, pid, replace(load_settings(engine, pid), suggest_min_gold=10_000), None)
    asha = add_user(engine, "asha", "translator")
    meera, ravi = add_user(engine, "meera", "annotator"), add_user(engine, "ravi", "annotator")
    add_user(engine, "lena", "lead")
    tids = [add_translation(engine, add_sentence(engine, f"s{i}", f"The food was good {i}.", ["food"], ordinal=i),
                            "aware", asha, " ".join(TOKENS), minutes=i) for i in range(6)]
    assign_annotators(engine, pid, per_item=2)
    agreed = ["B", "O", "O", "O", "O"]
    for tid in tids[:5]:
        for who in (meera, ravi):
            save_annotation(engine, who, open_item(engine, who, tid).item_id, agreed, False, None, "submit")
    save_annotation(engine, ravi, open_item(engine, ravi, tids[5]).item_id, agreed, False, None, "submit")
    save_settings(engine, pid, replace(load_settings(engine, pid), suggest_min_gold=5, suggest_retrain_every=100),
                  None)
    return {"pid": pid}


def test_two_servers_and_a_worker_share_one_postgresql_database(pg_url, start_app, chromium, monkeypatch):
    from corpus.jobs import JobKind
    from db import jobs
    from db.engine import make_engine
    from db.schema import script_head

    monkeypatch.setenv("CORPUS_APP_RUNS_JOBS", "0")
    workers: list[subprocess.Popen] = []
    contexts = []

    def new_page():
        from journey_steps import watch_runs

        context = chromium.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
        watch_runs(context)
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(45000)
        return page

    try:
        # ---- start together on an empty database: two servers and a worker
        servers: dict[str, object] = {}

        def start(name: str) -> None:
            try:
                servers[name] = start_app(pg_url)
            except Exception as exc:  # noqa: BLE001 - reported below, with the server's log
                servers[name] = exc

        starts = [threading.Thread(target=start, args=(n,)) for n in "AB"]
        for t in starts:
            t.start()
        workers.append(_worker(pg_url, "w1"))
        for t in starts:
            t.join(180)
        a, b = servers["A"], servers["B"]
        assert not isinstance(a, Exception) and not isinstance(b, Exception), servers
        page_a, page_b = new_page(), new_page()
        page_a.goto(a.url, wait_until="commit")  # both servers' first runs migrate at about the same moment
        page_b.goto(b.url, wait_until="commit")
        for page in (page_a, page_b):
            page.get_by_role("button", name="Log in", exact=True).wait_for()
        engine = make_engine(pg_url)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all() == [script_head()]
            assert conn.execute(text("SELECT count(*) FROM projects")).scalar() == 1
        assert workers[0].poll() is None, (ARTIFACTS / "worker-w1.log").read_text()
        pid = _build(engine)["pid"]

        # ---- the lead's Home on B before the tag: no disagreement yet
        lead_b = new_page()
        enter_as(lead_b, b, "lena", "")
        lead_b.get_by_text("without a final translation").first.wait_for()
        assert "disagreement to adjudicate" not in lead_b.locator('[data-testid="stMain"]').inner_text()
        dash_b = new_page()
        enter_as(dash_b, b, "lena", "dashboard")
        assert _fleiss_shown(dash_b)[0] == "1.000"  # aware: the five items tagged by both agree

        # ---- meera opens her item on B (the retrain is due: B enqueues it), then logs in on A and tags there
        meera_b = new_page()
        enter_as(meera_b, b, "meera", "tag")
        meera_b.locator('[data-testid="span-editor"] [data-token-index="0"]').wait_for()
        page_a.get_by_role("textbox", name="Username").fill("meera")
        login(page_a, a.url, "meera", "correct-horse-1")
        page_a.goto(f"{a.url}/tag")
        token = page_a.locator('[data-testid="span-editor"] [data-token-index="1"]')
        token.click()  # meera marks बहुत where ravi marked खाना: a disagreement
        page_a.keyboard.press("Enter")
        expect(page_a.get_by_test_id("save-state")).to_contain_text("Draft saved")
        page_a.get_by_role("button", name="Submit").click()
        page_a.get_by_text("6 of 6 submitted").wait_for()

        # ---- A's login cookie is a login on B
        cookie = [c for c in contexts[0].cookies() if c["name"].endswith("corpus_session")]
        assert len(cookie) == 1
        other = chromium.new_context(locale="en-US")
        contexts.append(other)
        other.add_cookies([{"name": cookie[0]["name"], "value": cookie[0]["value"], "url": b.url}])
        on_b = other.new_page()
        on_b.goto(f"{b.url}/")
        on_b.get_by_role("button", name="Log out").wait_for(timeout=45000)
        # ... and B's Home shows what meera submitted on A, at its first run
        on_b.get_by_text("6 of 6 submitted").wait_for(timeout=5000)

        # ---- the lead's Home on B counts the disagreement saved on A at its next run
        saved_at = time.time()
        lead_b.reload()
        lead_b.get_by_text("1 disagreement to adjudicate").first.wait_for(timeout=15000)
        seen_after = time.time() - saved_at
        print(f"B's Home showed A's tag {seen_after:.1f} s after the reload began")
        # ... and B's dashboard, whose figures were cached before the tag, counts it at its next run
        from corpus.metrics import compute_report
        from db.metrics_data import load_metrics_input

        kappa = compute_report(load_metrics_input(engine, pid))["fleiss_kappa"]["aware"]["kappa"]
        assert kappa < 1
        dash_b.reload()
        expect(dash_b.get_by_test_id("stDataFrame").first).to_be_visible()
        assert _fleiss_shown(dash_b)[0] == f"{kappa:.3f}"

        # ---- the retrain both servers found due ran exactly once (in the worker)
        retrains = _wait(lambda: [j for j in jobs.history(engine, pid, JobKind.RETRAIN) if not j.active] or None,
                         120, "the retrain job")
        assert len(jobs.history(engine, pid, JobKind.RETRAIN)) == 1, jobs.history(engine, pid, JobKind.RETRAIN)
        [retrain] = retrains
        assert (retrain.state, retrain.result, retrain.attempts) == ("done", {"stored": True, "gold_count": 5}, 1)
        assert retrain.lease_owner.startswith(_owner_prefix(workers[0]))
        with engine.connect() as conn:
            assert conn.execute(text("SELECT gold_count FROM suggestion_models")).scalars().all() == [5]

        # ---- the lead asks for the baseline on B; the worker dies in the middle; another one retries it once
        lead_b.goto(f"{b.url}/dataset_check")
        lead_b.get_by_role("button", name="Run the baseline").click()
        running = _wait(lambda: (j := jobs.latest(engine, pid, JobKind.DATASET_BASELINE)) and j.state == "running"
                        and j, 60, "the worker to start the baseline")
        assert running.lease_owner.startswith(_owner_prefix(workers[0]))
        os.kill(workers[0].pid, signal.SIGKILL)
        workers[0].wait(10)
        with engine.connect() as conn:  # the dead worker's lease as it stood when it died: nobody renews it now
            lease_ended = conn.execute(text("SELECT lease_expires FROM jobs WHERE id = :id"),
                                       {"id": running.id}).scalar_one()
        workers.append(_worker(pg_url, "w2"))
        ended = _wait(lambda: (j := jobs.get(engine, running.id)) and not j.active and j, 120, "the retry")
        # not before the dead worker's lease ended: the database's own times, in order (no stopwatch)
        assert lease_ended is not None and ended.started_at >= lease_ended, (ended.started_at, lease_ended)
        assert (ended.state, ended.attempts) == ("done", 2), ended
        assert ended.lease_owner.startswith(_owner_prefix(workers[1]))
        assert len(jobs.history(engine, pid, JobKind.DATASET_BASELINE)) == 1
        # ... and B's page, which never waited, shows the result by itself
        lead_b.locator(".st-key-check_baseline_job").get_by_text("The baseline finished").wait_for(timeout=30000)
        engine.dispose()
    except Exception:
        for context in contexts:
            for page in context.pages:
                print(page.url, page_text(page))
        for name in ("w1", "w2"):
            log = ARTIFACTS / f"worker-{name}.log"
            if log.exists():
                print(name, log.read_text()[-3000:])
        raise
    finally:
        for context in contexts:
            context.close()
        for process in workers:
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
