"""How the browser tests, the benchmarks and the README's screenshots start Debian's Chromium through Playwright.

Chromium 156 in its (new) headless mode builds a whole browser window per Playwright context, and preloads the
address bar's suggestion popups as WebUI pages in two renderer processes of their own (``chrome://omnibox-popup
.top-chrome/`` and its AI-mode page). Nobody types into an address bar here; with them a login and a visit of the
Translate page cost Chromium 7.6-8.8 CPU-seconds on a slow 2-core machine, without them 5.5-5.9 (README, the test
command's paragraph), so they are switched off with their features.

A ``--disable-features`` given by the caller replaces Playwright's own list instead of adding to it, so this list
repeats Playwright's (1.65, pinned in requirements-dev.txt) and adds the popups; ``tests/browser/test_chromium_
launch.py`` checks that it still holds all of Playwright's whenever Playwright changes.
"""

from __future__ import annotations

CHROMIUM = "/usr/bin/chromium"

#: What Playwright 1.65 itself disables (its ``chromiumSwitches``), read off ``chrome://version``.
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding", "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin", "OptimizationHints",
    "NetworkTimeServiceQuerying", "AimEnabled", "PreconnectToSearch", "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
#: The address bar's WebUI suggestion popups, preloaded in renderers of their own for every window.
UNUSED_WINDOW_FEATURES = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup")

CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + UNUSED_WINDOW_FEATURES),
]


def launch_options() -> dict:
    """Keyword arguments for Playwright's ``chromium.launch``."""
    return {"executable_path": CHROMIUM, "headless": True, "args": list(CHROMIUM_ARGS)}
