"""Bench-only memory probe for the engine's workers (``bench_soak.py --memory-probe``).

Not part of the engine: ``bench_soak.py`` puts this folder first on the daemon's
``PYTHONPATH`` only when asked, so Python imports it at start-up in every process of the
daemon; it does something only in a worker (``--worker-index`` on the command line) and only
while ``HOOKPROOF_SOAK_PROBE_DIR`` is set. Without the option nothing here is imported.

Every ``HOOKPROOF_SOAK_PROBE_EVERY`` seconds (30) a daemon thread appends one JSON line to
``<dir>/worker-<index>.jsonl``: RSS, glibc's ``mallinfo2`` (bytes malloc holds from the
system, in use, free inside its arenas, mmapped blocks), the number of objects the garbage
collector tracks and the 25 most common types among them (asyncio tasks among them),
and with ``HOOKPROOF_SOAK_PROBE_TRACE=<frames>`` (tracemalloc started at import with that many
frames) the traced Python memory, and a tracemalloc snapshot dumped to
``<dir>/worker-<index>-<age>.snapshot`` at each worker age (seconds) listed in
``HOOKPROOF_SOAK_PROBE_SNAPSHOTS`` (the bench compares them afterwards, outside the worker:
comparing in the worker held its GIL for tens of seconds on a busy machine).
With ``HOOKPROOF_SOAK_PROBE_TRIM=1`` each probe then calls glibc's ``malloc_trim(0)`` and
records the RSS after it (the memory malloc held free, given back) and how long it took.
Live Python memory flat while RSS grows is the allocator (fragmentation, arenas not given
back); traced memory growing at one traceback is a leak, and the traceback says where.
"""

from __future__ import annotations

import os
import sys

_DIR = os.environ.get("HOOKPROOF_SOAK_PROBE_DIR")


def _start(folder: str) -> None:
    import ctypes
    import gc
    import json
    import threading
    import time
    from collections import Counter

    index = sys.argv[sys.argv.index("--worker-index") + 1]
    every = float(os.environ.get("HOOKPROOF_SOAK_PROBE_EVERY", "30"))
    snapshots = sorted(
        float(x) for x in os.environ.get("HOOKPROOF_SOAK_PROBE_SNAPSHOTS", "").split(",") if x
    )
    frames = int(os.environ.get("HOOKPROOF_SOAK_PROBE_TRACE", "0"))
    trim = os.environ.get("HOOKPROOF_SOAK_PROBE_TRIM") == "1"
    tracemalloc = None
    if frames:
        import tracemalloc as tm

        tm.start(frames)
        tracemalloc = tm

    class _Mallinfo2(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_size_t)
            for name in (
                "arena",
                "ordblks",
                "smblks",
                "hblks",
                "hblkhd",
                "usmblks",
                "fsmblks",
                "uordblks",
                "fordblks",
                "keepcost",
            )
        ]

    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _Mallinfo2
    except (OSError, AttributeError):
        libc = None
    page = os.sysconf("SC_PAGE_SIZE")
    t0 = time.monotonic()
    out = os.path.join(folder, f"worker-{index}.jsonl")

    def rss() -> int:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * page

    def one() -> dict[str, object]:
        t = time.monotonic() - t0
        row: dict[str, object] = {"t_s": round(t, 1), "wall": time.time(), "rss": rss()}
        if libc is not None:
            m = libc.mallinfo2()
            row["malloc"] = {
                "arena": m.arena,
                "mmapped": m.hblkhd,
                "in_use": m.uordblks,
                "free_in_arenas": m.fordblks,
                "top_releasable": m.keepcost,
            }
        t_gc = time.perf_counter()
        objects = gc.get_objects()
        row["gc_objects"] = len(objects)
        row["gc_top_types"] = Counter(type(o).__qualname__ for o in objects).most_common(25)
        del objects
        row["gc_ms"] = round((time.perf_counter() - t_gc) * 1000, 1)
        if trim and libc is not None:  # what malloc holds free and could give back
            t_trim = time.perf_counter()
            libc.malloc_trim(0)
            row["trim_ms"] = round((time.perf_counter() - t_trim) * 1000, 2)
            row["rss_after_trim"] = rss()
        if tracemalloc is not None:
            current, peak = tracemalloc.get_traced_memory()
            row["traced"] = {"current": current, "peak": peak}
            if snapshots and t >= snapshots[0]:  # written now, compared by the bench afterwards
                t_tm = time.perf_counter()
                at = snapshots.pop(0)
                tracemalloc.take_snapshot().dump(
                    os.path.join(folder, f"worker-{index}-{int(at)}.snapshot")
                )
                row["snapshot"] = int(at)
                row["snapshot_ms"] = round((time.perf_counter() - t_tm) * 1000, 1)
        return row

    def run() -> None:
        while True:
            time.sleep(every)
            try:
                row = one()
            except Exception as exc:
                row = {"error": repr(exc)}
            with open(out, "a") as f:
                f.write(json.dumps(row) + "\n")

    threading.Thread(target=run, name="soak-probe", daemon=True).start()


if _DIR and "--worker-index" in sys.argv:
    _start(_DIR)
