"""The browser the tests drive: Playwright's own switches kept, the address bar's unused popups not preloaded."""

from __future__ import annotations

from bench.chromium import CHROMIUM, UNUSED_WINDOW_FEATURES


def _disabled_features(browser) -> set[str]:
    """The features Chromium was told to disable (its last ``--disable-features`` wins), from chrome://version."""
    page = browser.new_page()
    try:
        page.goto("chrome://version")
        command_line = page.locator("#command_line").inner_text()
    finally:
        page.close()
    switches = [part for part in command_line.split() if part.startswith("--disable-features=")]
    assert switches, command_line
    return set(switches[-1].split("=", 1)[1].split(","))


def test_the_launch_keeps_every_feature_playwright_disables_and_disables_the_address_bar_popups(chromium):
    plain = chromium.browser_type.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
    try:
        playwrights_own = _disabled_features(plain)
    finally:
        plain.close()
    ours = _disabled_features(chromium)
    assert playwrights_own <= ours, f"Playwright now also disables {sorted(playwrights_own - ours)}: add them"
    assert set(UNUSED_WINDOW_FEATURES) <= ours


def test_a_new_window_preloads_no_address_bar_popup(chromium):
    context = chromium.new_context()
    try:
        context.new_page().goto("about:blank")
        session = chromium.new_browser_cdp_session()
        targets = session.send("Target.getTargets", {"filter": [{}]})["targetInfos"]
        session.detach()
    finally:
        context.close()
    assert [t["type"] for t in targets if t["type"] == "page"], targets  # the listing does show pages
    assert [t["url"] for t in targets if t["type"] == "browser_ui"] == []
