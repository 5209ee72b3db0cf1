"""The dashboard's corpus is loaded outside the collector's passes, and frozen garbage is freed every 16th load.

Each check runs in a fresh interpreter: freezing is process-wide."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import gc, weakref
from ui.heap import FULL_PASS_EVERY, loaded_outside_collections

class Node:
    pass

def cyclic_garbage():
    a, b = Node(), Node()
    a.other, b.other = b, a
    ref = weakref.ref(a)
    del a, b
    return ref

gc.disable()  # only the context's own passes run
results, kept = [], []
for load in range(1, FULL_PASS_EVERY + 2):
    ref = cyclic_garbage()
    with loaded_outside_collections():
        kept.append([[i] for i in range(1000)])  # tracked, cycle-free records, kept alive
    young = {id(o) for o in gc.get_objects()}  # the collector's generations, not the frozen objects
    results.append((load, ref() is None, not any(id(r) in young for r in kept[-1])))
print(results)
"""


def test_loads_are_frozen_and_the_first_and_every_16th_load_collect_the_garbage_first():
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    results = eval(out)  # noqa: S307 - our own script's printed list
    assert [frozen for _, _, frozen in results] == [True] * 17
    collected = [load for load, freed, _ in results if freed]
    assert collected == [1, 17]
