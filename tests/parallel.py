"""The suite on several workers (pytest-xdist, ``make test``): which tests share a worker, and
in what order the workers get them.

With ``--dist loadgroup`` every xdist group runs on one worker, one test after another. Here
each test is put in its module's group (a module's fixtures, its daemons and databases, are
made once) and modules that touch one shared resource are put in one group, so they never
run at the same time:

- a test that uses a fixture named in :data:`SHARED_FIXTURES` (a build into the checkout,
  say) shares that resource;
- ``@pytest.mark.shares("name")`` on a test, class or module names any other resource.

Groups are handed out longest first, by the seconds per module recorded in
``tests/durations.json`` (``python -m tests.durations`` writes it from a JUnit report), so no
long module starts last. Without xdist, nothing here changes the order or the tests.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from pathlib import Path

import pytest

__all__ = ["DEFAULT_TEST_S", "DURATIONS", "SHARED_FIXTURES", "groups"]

#: fixtures whose resource outlives one test's folder and database: the fixture's name -> the
#: resource (every module using one runs on one worker, one module at a time)
SHARED_FIXTURES: dict[str, str] = {
    # both compile clients/typescript into its dist/ folder (the readme test reads it)
    "ts_client": "clients-typescript-dist",
    "ts_sdk": "subscriber-ts-dist",
}

#: the seconds each test module took, for the order in which groups are handed out
DURATIONS = Path(__file__).with_name("durations.json")

#: the estimate for a test of a module that tests/durations.json does not know yet
DEFAULT_TEST_S = 0.5


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "shares(name): the test uses a resource of that name that other modules' tests use "
        "too (tests/parallel.py: they run on one worker, never at the same time)",
    )


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def groups(items: list[pytest.Item]) -> dict[str, str]:
    """Each module's group: modules joined by a shared resource have one name (the first
    module's in collection order)."""
    parent: dict[str, str] = {}

    def find(key: str) -> str:
        while parent.setdefault(key, key) != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    def union(a: str, b: str) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[rb] = ra

    for item in items:
        module = _module(item)
        find(module)
        names = {
            SHARED_FIXTURES[f] for f in getattr(item, "fixturenames", ()) if f in SHARED_FIXTURES
        }
        names |= {str(m.args[0]) for m in item.iter_markers("shares") if m.args}
        for name in names:
            union(module, "resource:" + name)
    modules = [_module(item) for item in items]
    first: dict[str, str] = {}
    for module in modules:
        first.setdefault(find(module), module)
    return {module: first[find(module)] for module in modules}


def _recorded() -> dict[str, float]:
    try:
        data = json.loads(DURATIONS.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.get("modules", {}).items()}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under xdist only: mark each test with its group, and order groups longest first."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return
    group_of = groups(items)
    for item in items:
        item.add_marker(pytest.mark.xdist_group(group_of[_module(item)]))
    recorded = _recorded()
    count: dict[str, int] = defaultdict(int)
    for item in items:
        count[_module(item)] += 1
    cost: dict[str, float] = defaultdict(float)
    for module, n in count.items():
        cost[group_of[module]] += recorded.get(module, n * DEFAULT_TEST_S)
    position = {item.nodeid: i for i, item in enumerate(items)}
    items.sort(
        key=lambda item: (
            -cost[group_of[_module(item)]],
            group_of[_module(item)],
            position[item.nodeid],
        )
    )
