"""The dashboard's corpus is loaded outside the collector's passes, and what the freeze takes in is collected
after the first and every 16th load, in the background.

Each check runs in a fresh interpreter: freezing is process-wide."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import gc, weakref
import ui.heap as heap

class Node:
    pass

def cyclic_garbage():
    a, b = Node(), Node()
    a.other, b.other = b, a
    ref = weakref.ref(a)
    del a, b
    return ref

gc.disable()  # only the module's own passes run
heap.FULL_PASS_DELAY = 0.05
results, kept, waiting = [], [], []
for load in range(1, heap.FULL_PASS_EVERY + 2):
    waiting.append(cyclic_garbage())
    before = heap._scheduled
    with heap.loaded_outside_collections():
        kept.append([[i] for i in range(1000)])  # tracked, cycle-free records, kept alive
    young = {id(o) for o in gc.get_objects()}  # the collector's generations, not the frozen objects
    frozen = not any(id(r) in young for r in kept[-1])
    passed = heap._scheduled is not before
    if passed:
        heap._scheduled.join()
    results.append((load, frozen, passed, all(ref() is None for ref in waiting)))
    if passed:
        waiting.clear()
print(results)
"""


def test_loads_are_frozen_and_a_full_pass_follows_the_first_and_every_16th_load_in_the_background():
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    results = eval(out)  # noqa: S307 - our own script's printed list
    assert [frozen for _, frozen, _, _ in results] == [True] * 17
    assert [load for load, _, passed, _ in results if passed] == [1, 17]
    # the garbage frozen with loads 2-16 is still there until the 17th load's pass frees all of it
    assert [load for load, _, _, freed in results if freed] == [1, 17]
