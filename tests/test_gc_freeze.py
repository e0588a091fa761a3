"""A worker moves what its start-up made out of the garbage collector's generations once it
serves (``gc.freeze``, issue 37): full collections then no longer walk it. The start-up's own
garbage is collected first, so the freeze never keeps a dead cycle alive for good; the
generation-0 threshold is raised (fewer collections of short-lived objects)."""

from __future__ import annotations

import json
import subprocess
import sys

CHILD = """
import gc, json, weakref
from hookproof.engine.observe.memory import GC_GEN0_THRESHOLD, collector_after_start_up

class Node:
    pass

kept = [Node() for _ in range(50000)]         # what start-up keeps
dead = Node(); dead.me = dead                # a cycle start-up dropped
gone = weakref.ref(dead)
del dead
gc.disable()                                 # only the freeze's own collection may free it
frozen = collector_after_start_up()
print(json.dumps({
    "frozen": frozen,
    "count": gc.get_freeze_count(),
    "cycle_freed": gone() is None,
    "tracked_after": len(gc.get_objects()),
    "threshold": list(gc.get_threshold()),
    "want_gen0": GC_GEN0_THRESHOLD,
}))
"""


def test_the_start_up_heap_is_frozen_after_one_collection() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=True
    )
    got = json.loads(done.stdout)
    assert got["frozen"] == got["count"]
    assert got["frozen"] >= 50000  # every object alive then, the kept ones among them
    assert got["cycle_freed"]  # collected before the freeze, not frozen with the rest
    assert got["tracked_after"] < 1000  # the generations hold (almost) nothing now
    assert got["threshold"] == [got["want_gen0"], 10, 10]  # generation 0 raised, 1 and 2 kept
    assert got["want_gen0"] > 700
