"""The suite on several workers (pytest-xdist, ``make test``): which tests share a worker, in
what order the workers get them, and what is built once for all of them.

``make test`` runs ``--dist loadfile``: every module runs on one worker, its tests one after
another, so a module's fixtures (its daemons, brokers and databases) are made once and never
seen by another module. (``loadgroup``, which could also join modules, does not group under
pytest 9.2: xdist 3.8 renames the test ids through an attribute pytest no longer reads.)

Tests marked ``solo`` (they assert timing or fairness across processes, which other workers'
load on two cores would distort) are left out of the parallel part and run after it, alone
(the Makefile's second command).

Modules are handed out longest first, by the seconds per module recorded in
``tests/durations.json`` (``python -m tests.durations`` writes it from a JUnit report), so no
long module starts last. Without xdist nothing here changes the order.

What several modules build into the checkout (compiled TypeScript, say) is built once per run
(:func:`once_per_run`), under a lock every worker waits on, so nobody reads it half-written.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

__all__ = ["DEFAULT_TEST_S", "DURATIONS", "lock_path", "once_per_run", "order_longest_first"]

#: the seconds each test module took, for the order in which modules are handed out
DURATIONS = Path(__file__).with_name("durations.json")

#: the estimate for a test of a module that tests/durations.json does not know yet
DEFAULT_TEST_S = 0.5

T = TypeVar("T")


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def _recorded() -> dict[str, float]:
    try:
        data = json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.get("modules", {}).items()}


def order_longest_first(items: list[pytest.Item]) -> None:
    """Sort *items* module by module, the longest module (recorded, else estimated) first;
    a module's tests keep their order."""
    recorded = _recorded()
    count: dict[str, int] = defaultdict(int)
    for item in items:
        count[_module(item)] += 1
    cost = {m: recorded.get(m, n * DEFAULT_TEST_S) for m, n in count.items()}
    position = {id(item): i for i, item in enumerate(items)}
    first = {}
    for item in items:
        first.setdefault(_module(item), position[id(item)])
    items.sort(key=lambda item: (-cost[_module(item)], first[_module(item)], position[id(item)]))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist only (every worker collects the same list, in this order; with
    ``--no-loadscope-reorder`` the controller hands out modules in it)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        order_longest_first(items)


def lock_path(name: str) -> Path:
    """The lock (and run marker) file of :func:`once_per_run`'s *name* in this checkout."""
    tag = hashlib.sha256(f"{Path(__file__).resolve()}:{name}".encode()).hexdigest()[:16]
    return Path(tempfile.gettempdir()) / f"hookproof-tests-{tag}.lock"


def once_per_run(name: str, build: Callable[[], T], done: Callable[[], T]) -> T:
    """``build()`` once per test run, whichever worker comes first; the others wait for it
    and get ``done()``. Without xdist (or in a new run) it is built."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run:
        return build()
    with lock_path(name).open("a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            f.seek(0)
            if f.read().strip() == run:
                return done()
            result = build()
            f.seek(0)
            f.truncate()
            f.write(run)
            f.flush()
            return result
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)
