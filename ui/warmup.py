"""Import what the pages need while the server waits for its first visitor.

A page's imports run on its first visit: Altair, pandas and the metrics stack take seconds on a busy
2-core machine, which a lead saw as a blank dashboard. The server imports them once, in the background,
as soon as it starts; a page that gets there first simply waits for the same import (Python's import
lock), so nothing runs twice.
"""

from __future__ import annotations

import ast
import importlib
import logging
import threading
from pathlib import Path

_log = logging.getLogger("corpus")


# ui modules register Streamlit components when imported: they stay with the script run.
_LEFT_TO_THE_PAGE = ("ui", "streamlit")


def page_imports(pages: Path) -> list[str]:
    """The modules the pages import at their top level, in first-seen order, but for ``ui`` and
    Streamlit (relative imports left out: pages are scripts, not a package)."""
    seen: dict[str, None] = {}
    for page in sorted(pages.glob("*.py")):
        for node in ast.parse(page.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Import):
                seen.update((alias.name, None) for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                seen[node.module] = None
    return [name for name in seen if name.split(".")[0] not in _LEFT_TO_THE_PAGE]


def preload(modules: list[str]) -> list[str]:
    """Import each module; the ones that failed (logged: the page itself will raise the real error)."""
    failed = []
    for name in modules:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a warm-up never stops the server
            _log.warning("warm-up: could not import %s", name, exc_info=True)
            failed.append(name)
    return failed


def preload_in_background(pages: Path) -> threading.Thread:
    thread = threading.Thread(target=preload, args=(page_imports(pages),), name="page-import-warmup", daemon=True)
    thread.start()
    return thread
