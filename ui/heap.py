"""Keep the loaded corpus out of the cyclic collector's passes.

A paper-scale corpus is ~150,000 small records (tuple subclasses, which the collector never stops tracking),
~280,000 tracked objects in all. Loading them makes a full collection due, and that pass (0.2 s over the
records and the ~230,000 objects of the imported libraries) landed inside the very page run that loaded them:
the dashboard after every save. The records hold no reference cycles and are freed by reference counting when
their cache entry goes, so they need no collector: they are frozen (``gc.freeze``) right after loading, with
everything else alive then. What the freeze also takes in is any cyclic garbage not yet collected (a few
hundred objects per load, measured), so after the first and every ``FULL_PASS_EVERY``-th load a background
thread unfreezes and runs one full collection, which frees it, ``FULL_PASS_DELAY`` seconds later, when the
page that loaded has long been drawn.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

FULL_PASS_EVERY = 16
FULL_PASS_DELAY = 10.0  # seconds

_loads = 0
_lock = threading.Lock()
_scheduled: threading.Timer | None = None  # the latest full pass (tests wait for it)


def full_pass() -> None:
    """Unfreeze, collect everything, freeze what is left (all alive: nothing frozen stays uncollected)."""
    with _lock:
        gc.unfreeze()
        gc.collect()
        gc.freeze()


@contextmanager
def loaded_outside_collections() -> Iterator[None]:
    """Around a load of long-lived, cycle-free data (drop the data it replaces first)."""
    global _loads, _scheduled
    try:
        yield
    finally:
        with _lock:
            gc.freeze()
            _loads += 1
            due = _loads % FULL_PASS_EVERY == 1
        if due:
            _scheduled = threading.Timer(FULL_PASS_DELAY, full_pass)
            _scheduled.daemon = True
            _scheduled.start()
