"""Screenshots of the lead's screens for the README, from the demo project in headless Chromium.

    python docs/screens/capture.py            # writes docs/screens/<screen>-<width>.png

The app runs under `streamlit run` on a free port with a fresh demo database in a temporary folder, so the
pictures show what a newcomer sees after the Quickstart. Widths: 1440 px (a laptop) and 390 px (a phone).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
from bench.chromium import launch_options  # noqa: E402 - the repository root is on the path now
from bench.served import start_app  # noqa: E402

OUT = Path(__file__).resolve().parent
WIDTHS = {1440: 1000, 390: 844}  # width: viewport height
MAX_HEIGHT = 2400  # a long page is cut here
# (file name, path with query, the text that says the screen has drawn)
SCREENS = [
    ("home", "", "Waiting for you"),
    ("dashboard", "dashboard", "Open the lowest"),
    ("sentence", None, "Hindi translations"),
    ("final", "final?show=all", "Choose"),
    ("adjudication", "adjudicate?show=open", "'s version"),
]


def _settle(page) -> None:
    """Tables and charts load lazily: wait until no placeholder is left, then for fonts and layout."""
    from playwright.sync_api import expect

    expect(page.locator("[data-testid=stSkeleton], [data-testid=stSpinner]")).to_have_count(0, timeout=30000)
    page.wait_for_timeout(1500)


def capture() -> list[Path]:
    from playwright.sync_api import sync_playwright

    written = []
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{tmp}/demo.db"
        subprocess.run([sys.executable, "-m", "corpus", "init", "--demo"], cwd=ROOT, check=True,
                       env={**os.environ, "DATABASE_URL": url}, stdout=subprocess.DEVNULL)
        server, port = start_app(url, Path(tmp) / "streamlit.log")
        base = f"http://127.0.0.1:{port}"
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(**launch_options())
                for width, height in WIDTHS.items():
                    context = browser.new_context(viewport={"width": width, "height": height}, locale="en-US",
                                                  device_scale_factor=1)
                    page = context.new_page()
                    page.set_default_timeout(60000)
                    page.goto(base)
                    page.get_by_role("textbox", name="Username").fill("lead")
                    page.get_by_role("textbox", name="Password").fill("lead-demo-pass")
                    page.get_by_role("button", name="Log in", exact=True).click()
                    page.get_by_text("Waiting for you").wait_for()
                    sentence_path = None
                    for name, path, ready in SCREENS:
                        if path is None:
                            path = sentence_path
                        page.goto(f"{base}/{path}")
                        page.get_by_text(ready).first.wait_for()
                        _settle(page)
                        if name == "dashboard":
                            href = page.get_by_role("link", name="Open the lowest").first.get_attribute("href")
                            sentence_path = href.rsplit("/", 1)[-1]
                        target = OUT / f"{name}-{width}.png"
                        tall = min(page.locator("[data-testid=stMain]").evaluate("main => main.scrollHeight"),
                                   MAX_HEIGHT)
                        page.set_viewport_size({"width": width, "height": max(height, tall)})
                        _settle(page)
                        page.screenshot(path=str(target))
                        page.set_viewport_size({"width": width, "height": height})
                        written.append(target)
                    context.close()
                browser.close()
        finally:
            server.terminate()
            server.wait(10)
    return written


if __name__ == "__main__":
    for path in capture():
        print(path.relative_to(ROOT))
