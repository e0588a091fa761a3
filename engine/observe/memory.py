"""Give back the memory malloc holds free: glibc's ``malloc_trim``, every 15 s per process.

Under steady load a worker's live memory stays flat, but glibc's malloc keeps what Python
frees inside its arenas (free chunks between live ones) and hands little of it back to the
system, so RSS climbs with every high-water mark of the working set. In issue 40's soak
(bench/HISTORY.md "Session 10: soak") a worker held 16 MB in use throughout while the free
space inside its arenas grew from 6 to 28 MB in five minutes: RSS +20%, no leak.
``malloc_trim(0)`` returns every whole free page of every arena (``madvise``): 1.3-1.5 ms per
call in that soak, in a thread (ctypes releases the GIL), so the event loop is not held while
it walks the arenas; every 15 s keeps the saw-tooth between two calls to a few MB. Where the
C library has no ``malloc_trim`` (musl, macOS) nothing runs.

``collector_after_start_up``: once a process serves, what its start-up made (modules,
classes, the application, the services: ~77,000-80,000 objects per worker) lives as long as
the process, yet every full collection of the garbage collector walked it again: in
bench_e2e's peak (issue 37, bench/HISTORY.md "Session 11") the workers' collections took 10% of
their CPU, most of it in full collections. ``gc.freeze()`` after start-up moves those objects
out of the collector's generations for good (collections: 4% of the CPU), and a generation-0
threshold of 7,000 instead of 700 (a net growth of 7,000 tracked objects between collections
instead of 700: generation-0 collections fell from ~640 to 8-11 per 6,000 deliveries, most
short-lived objects being freed by their reference counts first) leaves them 0.5% (0.004 ms
per delivery) for ~2 MB more memory per engine.
"""

from __future__ import annotations

import asyncio
import ctypes
import gc
from collections.abc import Callable
from typing import Final

__all__ = [
    "GC_GEN0_THRESHOLD",
    "TRIM_INTERVAL_S",
    "collector_after_start_up",
    "malloc_trimmer",
    "trim_free_memory",
]

#: how often a worker gives its free memory back
TRIM_INTERVAL_S: Final = 15.0


def malloc_trimmer() -> Callable[[], bool] | None:
    """glibc's ``malloc_trim(0)`` as a callable (True: memory was returned), or None where the
    C library has none."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return lambda: bool(trim(0))


_TRIM: Final = malloc_trimmer()


async def trim_free_memory() -> bool:
    """Return the free pages malloc holds to the system, off the event loop; False where there
    is nothing to call or nothing was returned."""
    if _TRIM is None:
        return False
    return await asyncio.to_thread(_TRIM)


#: net allocations of tracked objects between two collections of generation 0 (Python: 700)
GC_GEN0_THRESHOLD: Final = 7000


def collector_after_start_up() -> int:
    """Collect once, then move every object alive now out of the collector's generations
    (``gc.freeze``) and raise the generation-0 threshold to :data:`GC_GEN0_THRESHOLD`: called
    once a process has started and serves. Returns how many objects the collector no longer
    walks."""
    gc.collect()
    gc.freeze()
    _gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, gen1, gen2)
    return gc.get_freeze_count()
