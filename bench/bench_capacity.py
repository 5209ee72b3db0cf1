"""How many annotators does one app server hold, and two? ``python -m bench.bench_capacity``

Starts the real app (``streamlit run app.py``) once with one server and once with two servers on one fresh
PostgreSQL database (``--pg``: an admin URL; a throwaway database is created and dropped), with
``CORPUS_APP_RUNS_JOBS=0`` (the servers only serve pages). ``--users`` simulated annotators and
``--translators`` simulated translators, each a headless Chromium context logged in with a session cookie, are
spread over the servers (as a proxy with session affinity spreads them) and work in the real editors. An
annotator's action clicks a token and presses Enter (mark) or Backspace (unmark), which autosaves through the
page (a script run and a save in one transaction); the time from the key to the span editor's "Draft saved ·
version N" is the action's commit→saved latency. A translator's action puts a new Hindi text in the translation
editor and clicks "Save draft"; the time from the click to its "Draft saved at …" after "Saving…" is the latency.
Each user acts once every ``--pace`` seconds (the realistic pace: one commit every 5 s) for ``--actions`` actions.

Prints, per configuration: latency p50/p95, the servers' CPU seconds per action (from /proc, the servers'
processes only: Chromium and PostgreSQL run on the same machine and are not counted), and the users one core
holds at one commit every 5 s (1 / (CPU per action / 5 s)); and the ratio of two servers' p95 to one's at the same
offered load. The browsers share the machine's cores with the servers, so latencies are upper bounds on a
machine where the browsers run elsewhere. Traffic goes to 127.0.0.1 only; every loop is bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path

from bench.chromium import CHROMIUM, launch_options
from bench.served import cpu_seconds, start_app

ROOT = Path(__file__).resolve().parents[1]
TOKENS = "लेकिन स्टाफ़ सर्विस और खाना बहुत बुरा था ।".split()
WORDS = "खाना बहुत अच्छा था लेकिन स्टाफ़ बुरा और सर्विस धीमी थी".split()
# Counts the translation editor's saves answered: its save state (the element, wherever the component's shadow
# root puts it) leaving "Saving…"; what it then says is kept ("Draft saved at …", or why not).
SAVE_WATCH = """
el => {
  window.__saves = 0;
  let last = el.textContent;
  new MutationObserver(() => {
    const now = el.textContent;
    if (now !== last) {
      if (last === "Saving…") { window.__saves += 1; window.__saveText = now; }
      last = now;
    }
  }).observe(el, {subtree: true, childList: true, characterData: true});
}
"""
SESSION_COOKIE = "corpus_session"


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def _database(admin_url: str) -> str:
    import psycopg

    name = f"corpus_bench_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(admin_url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return admin_url.rsplit("/", 1)[0] + "/" + name


def _drop(admin_url: str, url: str) -> None:
    import psycopg

    with psycopg.connect(admin_url.replace("+psycopg", ""), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)')


def build(url: str, users: int, items: int, translators: int) -> tuple[list[str], list[str]]:
    """A migrated project with ``users`` annotators, each assigned ``items`` aware translations of their own, and
    ``translators`` translators with a blind task each; a session token per annotator and per translator."""
    from corpus.vocabulary import Phase, Role, Status
    from db.auth import start_session
    from db.engine import make_engine, transaction
    from db.models import Project, SourceSentence, Translation, TranslationAssignment, User, UserRole
    from db.schema import upgrade
    from db.assignment import assign_annotators

    engine = make_engine(url)
    upgrade(engine)
    with transaction(engine) as session:
        project = session.query(Project).order_by(Project.id).first()
        project.annotators_per_item, project.prefill_from_aspect_map = 1, False
        translator = User(username="bench_tr", display_name="bench_tr", roles=[UserRole(role=Role.TRANSLATOR)])
        session.add(translator)
        annotators = [User(username=f"bench_an{i}", display_name=f"bench_an{i}",
                           roles=[UserRole(role=Role.ANNOTATOR)]) for i in range(users)]
        session.add_all(annotators)
        session.flush()
        for i in range(users * items):
            sentence = SourceSentence(project_id=project.id, domain="restaurant", split="train",
                                      sentence_id=f"b{i}", text=f"But the staff service and food were bad {i}.",
                                      ordinal=i)
            session.add(sentence)
            session.flush()
            session.add(Translation(sentence_id=sentence.id, phase=Phase.AWARE, translator_id=translator.id,
                                    text=" ".join(TOKENS), status=Status.SUBMITTED))
        writers = [User(username=f"bench_tx{i}", display_name=f"bench_tx{i}", roles=[UserRole(role=Role.TRANSLATOR)])
                   for i in range(translators)]
        session.add_all(writers)
        session.flush()
        for i, writer in enumerate(writers):
            sentence = SourceSentence(project_id=project.id, domain="laptop", split="train", sentence_id=f"t{i}",
                                      text=f"The battery life of this laptop is great {i}.", ordinal=10_000 + i)
            session.add(sentence)
            session.flush()
            session.add(TranslationAssignment(user_id=writer.id, sentence_id=sentence.id, phase=Phase.BLIND))
        pid, ids, tx_ids = project.id, [a.id for a in annotators], [w.id for w in writers]
    assign_annotators(engine, pid, per_item=1)
    tokens = [start_session(engine, i) for i in ids]
    tx_tokens = [start_session(engine, i) for i in tx_ids]
    engine.dispose()
    return tokens, tx_tokens


def start_server(url: str, log: Path) -> tuple[subprocess.Popen, str]:
    served = start_app(url, log, {"CORPUS_APP_RUNS_JOBS": "0"})
    return served.process, served.base


async def annotator(browser, base: str, token: str, actions: int, pace: float, latencies: list[float],
                    ready: list[str], start_gate: asyncio.Event) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    try:
        await context.add_cookies([{"name": SESSION_COOKIE, "value": token, "url": base}])
        page = await context.new_page()
        page.set_default_timeout(60000)
        await page.goto(f"{base}/tag")
        editor = page.locator('[data-testid="span-editor"] [data-token-index="0"]')
        await editor.wait_for()
        state = page.get_by_test_id("save-state")
        ready.append(base)
        await start_gate.wait()
        for n in range(actions):
            began = time.monotonic()
            await page.locator(f'[data-testid="span-editor"] [data-token-index="{n % len(TOKENS)}"]').click()
            key = "Enter" if n // len(TOKENS) % 2 == 0 else "Backspace"  # mark each token, then unmark each
            pressed = time.monotonic()
            await page.keyboard.press(key)
            await state.filter(has_text=f"version {n + 1} ").wait_for()
            latencies.append(time.monotonic() - pressed)
            await asyncio.sleep(max(0.0, pace - (time.monotonic() - began)))
    finally:
        await context.close()


#: Saves that were not acknowledged (not counted in the latencies), with what the page said.
FAILED: list[str] = []


async def translator(browser, base: str, token: str, actions: int, pace: float, latencies: list[float],
                     ready: list[str], start_gate: asyncio.Event) -> None:
    from playwright.async_api import TimeoutError as PlaywrightTimeout

    context = await browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
    try:
        await context.add_cookies([{"name": SESSION_COOKIE, "value": token, "url": base}])
        page = await context.new_page()
        page.set_default_timeout(60000)
        await page.goto(f"{base}/translate")
        editor = page.get_by_role("textbox", name="Your Hindi translation")
        await editor.wait_for()
        save = page.get_by_role("button", name="Save draft")
        await page.get_by_test_id("translation-editor").get_by_test_id("save-state").evaluate(SAVE_WATCH)
        ready.append(base)
        await start_gate.wait()
        for n in range(actions):
            began = time.monotonic()
            await editor.fill(" ".join(WORDS[: 3 + n % (len(WORDS) - 3)]) + "।")
            before = await page.evaluate("window.__saves")
            clicked = time.monotonic()
            await save.click()
            try:
                await page.wait_for_function("n => window.__saves > n", arg=before, timeout=30000)
            except PlaywrightTimeout:
                FAILED.append("translator: no answer within 30 s")
                continue
            said = await page.evaluate("window.__saveText")
            if not said.startswith("Draft saved at"):
                FAILED.append(f"translator: {said}")
                continue
            latencies.append(time.monotonic() - clicked)
            await asyncio.sleep(max(0.0, pace - (time.monotonic() - began)))
    finally:
        await context.close()


async def drive(bases: list[str], tokens: list[str], tx_tokens: list[str], actions: int, pace: float,
                servers: list[subprocess.Popen]) -> tuple[list[float], list[float], float, float]:
    from playwright.async_api import async_playwright

    latencies: list[float] = []
    tx_latencies: list[float] = []
    ready: list[str] = []
    gate = asyncio.Event()
    async with async_playwright() as p:
        browser = await p.chromium.launch(**launch_options())
        tasks = [asyncio.create_task(annotator(browser, bases[i % len(bases)], token, actions, pace, latencies,
                                               ready, gate))
                 for i, token in enumerate(tokens)]
        tasks += [asyncio.create_task(translator(browser, bases[(len(tokens) + i) % len(bases)], token, actions, pace,
                                                 tx_latencies, ready, gate))
                  for i, token in enumerate(tx_tokens)]
        deadline = time.monotonic() + READY_S
        while len(ready) < len(tasks) and not any(t.done() for t in tasks):  # every editor open first
            if time.monotonic() > deadline:
                raise SystemExit(f"only {len(ready)} of {len(tasks)} editors opened in {READY_S:.0f} s")
            await asyncio.sleep(0.2)
        cpu_before = sum(cpu_seconds(s.pid) for s in servers)
        started = time.monotonic()
        gate.set()
        await asyncio.gather(*tasks)
        wall = time.monotonic() - started
        cpu = sum(cpu_seconds(s.pid) for s in servers) - cpu_before
        await browser.close()
    return latencies, tx_latencies, cpu, wall


#: Seconds for every simulated annotator's editor to open before the measured window.
READY_S = 120.0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_capacity", description=__doc__.splitlines()[0])
    parser.add_argument("--pg", default=os.environ.get("TEST_POSTGRES_URL",
                                                       "postgresql+psycopg://postgres@127.0.0.1:5432/test"),
                        help="PostgreSQL admin URL (a throwaway database is created and dropped)")
    parser.add_argument("--users", type=int, default=4, help="simulated annotators")
    parser.add_argument("--translators", type=int, default=4, help="simulated translators")
    parser.add_argument("--actions", type=int, default=12, help="saves per annotator")
    parser.add_argument("--pace", type=float, default=5.0, help="seconds between one annotator's saves")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    logs = ROOT / "test-artifacts"
    logs.mkdir(exist_ok=True)
    results = {}
    for n_servers in (1, 2):
        url = _database(args.pg)
        servers: list[subprocess.Popen] = []
        try:
            tokens, tx_tokens = build(url, args.users, args.actions + 1, args.translators)
            bases = []
            for i in range(n_servers):
                server, base = start_server(url, logs / f"bench-capacity-{n_servers}-{i}.log")
                servers.append(server)
                bases.append(base)
            latencies, tx_latencies, cpu, wall = asyncio.run(drive(bases, tokens, tx_tokens, args.actions, args.pace,
                                                                    servers))
        finally:
            for server in servers:
                server.terminate()
                try:
                    server.wait(10)
                except subprocess.TimeoutExpired:
                    server.kill()
            _drop(args.pg, url)
        results[n_servers] = (latencies, tx_latencies, cpu, wall)
        print(f"  ({n_servers} server(s) measured; unacknowledged so far: {len(FAILED)})", flush=True)

    print(f"capacity: {args.users} annotators (span editor) and {args.translators} translators (translation editor), "
          f"one save every {args.pace:g} s each, {args.actions} saves each; real servers on one PostgreSQL, "
          f"{os.cpu_count()} cores shared with Chromium and PostgreSQL")
    for n_servers, (latencies, tx_latencies, cpu, wall) in results.items():
        every = latencies + tx_latencies
        per_action = cpu / len(every)
        print(f"  {n_servers} server{'s' * (n_servers > 1)}: {len(every)} saves in {wall:.0f} s; server CPU "
              f"{per_action * 1000:.0f} ms per save ({cpu:.1f} s in all); users per core at one save every 5 s: "
              f"{5.0 / per_action:.0f}")
        for who, values in (("annotators", latencies), ("translators", tx_latencies), ("all", every)):
            if values:
                ms = [t * 1000 for t in values]
                print(f"    {who:<11} commit->saved p50 {statistics.median(ms):6.0f} ms, "
                      f"p95 {_percentile(ms, 0.95):6.0f} ms ({len(ms)} saves)")
    if FAILED:
        print(f"  saves not acknowledged (left out of the latencies): {len(FAILED)}: " + "; ".join(sorted(set(FAILED))))
    one, two = (_percentile([t * 1000 for t in results[n][0] + results[n][1]], 0.95) for n in (1, 2))
    print(f"  p95 two servers / one server at the same offered load: {two / one:.2f}")


if __name__ == "__main__":
    main()
