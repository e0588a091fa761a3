"""Bench-only garbage-collector probe for the engine's workers (``bench_e2e.py --gc-probe``).

Not part of the engine: ``bench_e2e.py`` puts this folder first on the daemon's ``PYTHONPATH``
only when asked, so Python imports it at start-up in every process of the daemon; it does
something only in a worker (``--worker-index`` on the command line) and only while
``HOOKPROOF_GC_PROBE_DIR`` is set.

It times every collection (``gc.callbacks``: wall time and the thread's CPU time between
"start" and "stop", per generation) and a daemon thread writes the running totals to
``<dir>/worker-<index>.json`` every 0.2 s (the bench reads them at the start and the end of
each phase). Two what-ifs, for A/B runs only: ``HOOKPROOF_GC_PROBE_FREEZE_AFTER=<s>`` calls
``gc.collect()`` then ``gc.freeze()`` that many seconds after start-up (what ``gc.freeze()``
after start-up in the engine would do), ``HOOKPROOF_GC_PROBE_THRESHOLD=a,b,c`` sets
``gc.set_threshold(a, b, c)`` at start-up.
"""

from __future__ import annotations

import os
import sys

_DIR = os.environ.get("HOOKPROOF_GC_PROBE_DIR")


def _start(folder: str) -> None:
    import gc
    import json
    import threading
    import time

    index = sys.argv[sys.argv.index("--worker-index") + 1]
    totals = {g: {"collections": 0, "wall_s": 0.0, "cpu_s": 0.0, "collected": 0} for g in range(3)}
    started: list[float] = [0.0, 0.0]

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
            started[1] = time.thread_time()
            return
        t = totals[info["generation"]]
        t["collections"] += 1
        t["wall_s"] += time.perf_counter() - started[0]
        t["cpu_s"] += time.thread_time() - started[1]
        t["collected"] += info.get("collected", 0)

    threshold = os.environ.get("HOOKPROOF_GC_PROBE_THRESHOLD")
    if threshold:
        gc.set_threshold(*(int(x) for x in threshold.split(",")))
    freeze_after = float(os.environ.get("HOOKPROOF_GC_PROBE_FREEZE_AFTER", "0") or 0)

    def freeze() -> None:
        gc.collect()
        gc.freeze()

    if freeze_after > 0:
        timer = threading.Timer(freeze_after, freeze)
        timer.daemon = True
        timer.start()

    gc.callbacks.append(callback)
    path = os.path.join(folder, f"worker-{index}.json")

    def writer() -> None:
        # gc.get_freeze_count() walks the whole permanent generation (~80,000 objects after
        # the engine's freeze: ~8 ms here): read it every 5 s only, not at every write (at
        # 0.2 s it cost the workers ~0.08 cores, counted as the engine's CPU)
        frozen, last = 0, -1e9
        while True:
            if time.monotonic() - last >= 5.0:
                frozen, last = gc.get_freeze_count(), time.monotonic()
            data = {
                "pid": os.getpid(),
                "process_cpu_s": time.process_time(),
                "generations": totals,
                "threshold": gc.get_threshold(),
                "frozen_objects": frozen,  # the engine's own freeze too
            }
            tmp = path + ".tmp"
            with open(tmp, "w") as f:
                json.dump(data, f)
            os.replace(tmp, path)
            time.sleep(0.2)

    threading.Thread(target=writer, name="gc-probe", daemon=True).start()


if _DIR and "--worker-index" in sys.argv:
    os.makedirs(_DIR, exist_ok=True)
    _start(_DIR)
