"""Benchmark: what a page visit costs the app server and the browser, in CPU seconds, on the demo project.

A served app (``streamlit run app.py`` on a fresh demo database) and headless Chromium; each round is a new
browser context in which a translator logs in through the form, then opens Translate (the server holds the typing
model from the first round on, as a server translators use does), then opens it again. The server's CPU is read
from /proc around each step, Chromium's from all its processes. A cost that every script run pays (as Streamlit's
forced collection of the whole heap after each run did, ``runner.postScriptGC``) shows here as server CPU per visit.
``--post-script-gc`` gives that setting back, to compare in the same minutes.

``python -m bench.bench_server_cpu [--rounds N] [--post-script-gc]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.chromium import CHROMIUM, launch_options
from bench.served import ROOT, cpu_seconds, start_app


def chromium_cpu() -> float:
    """CPU seconds of every Chromium process now alive (a closed context's renderer is gone: read before closing)."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if b"chromium" in (entry / "cmdline").read_bytes():
                total += cpu_seconds(int(entry.name), children=True)
        except (OSError, ValueError):
            continue
    return total


def run(rounds: int, post_script_gc: bool) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    costs: dict[str, list[float]] = {"login and Translate (server)": [], "Translate again (server)": [],
                                     "login and Translate (Chromium)": []}
    with tempfile.TemporaryDirectory(prefix="corpus-bench-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'demo.db'}"
        subprocess.run([sys.executable, "-m", "corpus", "--db", url, "init", "--demo"], cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)
        served = start_app(url, Path(tmp) / "server.log",
                           {"STREAMLIT_RUNNER_POST_SCRIPT_GC": "true"} if post_script_gc else None)
        server, base = served.process, served.base
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(**launch_options())
                for _ in range(rounds + 1):  # the first round: the server's first visit, reported apart
                    context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="en-US")
                    page = context.new_page()
                    s0, c0 = cpu_seconds(server.pid), chromium_cpu()
                    page.goto(base)
                    page.get_by_role("textbox", name="Username").fill("asha")
                    page.get_by_role("textbox", name="Password").fill("asha-demo-pass")
                    page.get_by_role("button", name="Log in", exact=True).click()
                    page.get_by_role("button", name="Log out").wait_for(timeout=60000)
                    page.goto(f"{base}/translate")
                    page.get_by_test_id("translation-editor").wait_for(timeout=120000)
                    page.wait_for_timeout(1500)  # the page's late requests (look-ups, fragments) are done
                    s1, c1 = cpu_seconds(server.pid), chromium_cpu()
                    page.reload()
                    page.get_by_test_id("translation-editor").wait_for(timeout=60000)
                    page.wait_for_timeout(1500)
                    s2 = cpu_seconds(server.pid)
                    costs["login and Translate (server)"].append(s1 - s0)
                    costs["login and Translate (Chromium)"].append(c1 - c0)
                    costs["Translate again (server)"].append(s2 - s1)
                    context.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(20)
    return costs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.bench_server_cpu", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5, help="visits measured after the server's first")
    parser.add_argument("--post-script-gc", action="store_true",
                        help="give back Streamlit's forced full collection after each script run")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"{CHROMIUM} is needed (apt-get install -y chromium)", file=sys.stderr)
        return 2
    load = os.getloadavg()[0]
    costs = run(args.rounds, args.post_script_gc)
    print(f"server CPU per page visit, demo project, runner.postScriptGC {'on' if args.post_script_gc else 'off'}; "
          f"load average {load:.2f} at start, {os.getloadavg()[0]:.2f} at the end, on {os.cpu_count()} CPUs")
    for what, values in costs.items():
        first, later = values[0], values[1:]
        print(f"  {what:32s} first visit {first:.2f} s; then median {statistics.median(later):.3f} s "
              f"({min(later):.3f}-{max(later):.3f} over {len(later)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
