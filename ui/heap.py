"""Keep the loaded corpus out of the cyclic collector's passes.

A paper-scale corpus is ~150,000 small records (tuple subclasses, which the collector never stops tracking),
~280,000 tracked objects in all. Loading them makes a full collection due, and that pass (0.2 s over the
records and the ~230,000 objects of the imported libraries) landed inside the very page run that loaded them:
the dashboard after every save. The records hold no reference cycles and are freed by reference counting when
their cache entry goes, so they need no collector: they are frozen (``gc.freeze``) right after loading, with
everything else alive then. What the freeze also takes in is any cyclic garbage not yet collected (a few
hundred objects per load, measured), so every ``FULL_PASS_EVERY``-th load first unfreezes and runs one full
collection, which frees it.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

FULL_PASS_EVERY = 16

_loads = 0
_lock = threading.Lock()


@contextmanager
def loaded_outside_collections() -> Iterator[None]:
    """Around a load of long-lived, cycle-free data (drop the data it replaces first)."""
    global _loads
    with _lock:
        _loads += 1
        full_pass = _loads % FULL_PASS_EVERY == 1
    if full_pass:
        gc.unfreeze()
        gc.collect()
    try:
        yield
    finally:
        gc.freeze()
