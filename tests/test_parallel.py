"""tests/parallel.py: modules handed out longest first, whole; a shared build made once per run
whichever worker asks first (real processes racing for it)."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests import parallel

ROOT = Path(__file__).resolve().parents[1]


def _item(nodeid: str) -> Any:
    return SimpleNamespace(nodeid=nodeid)


def test_modules_go_longest_first_and_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "_recorded", lambda: {"tests/b.py": 60.0, "tests/c.py": 0.1})
    items = [
        _item(n)
        for n in (
            "tests/a.py::x",
            "tests/a.py::y",
            "tests/b.py::x",
            "tests/c.py::x",
            "tests/b.py::y",
        )
    ]
    parallel.order_longest_first(items)
    # b (recorded 60 s), a (two unknown tests: 2 x DEFAULT_TEST_S), c (recorded 0.1 s)
    assert [i.nodeid for i in items] == [
        "tests/b.py::x",
        "tests/b.py::y",
        "tests/a.py::x",
        "tests/a.py::y",
        "tests/c.py::x",
    ]


_RACER = """
import sys, time
from pathlib import Path
from tests.parallel import once_per_run
log = Path(sys.argv[1])
def build():
    with log.open("a") as f:
        f.write("built\\n")
    time.sleep(0.3)  # long enough for the other racers to be waiting on the lock
    return "fresh"
print(once_per_run("probe-" + sys.argv[2], build, lambda: "done"))
"""


def test_once_per_run_builds_once_whoever_comes_first(tmp_path: Path) -> None:
    log = tmp_path / "builds"
    name = uuid.uuid4().hex

    def race(run: str) -> list[str]:
        env = {"PYTEST_XDIST_TESTRUNUID": run, "PATH": "/usr/bin:/bin"}
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", _RACER, str(log), name],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                text=True,
            )
            for _ in range(3)
        ]
        return sorted(p.communicate(timeout=60)[0].strip() for p in procs)

    try:
        assert race("run-1") == ["done", "done", "fresh"]
        assert log.read_text() == "built\n"
        # a new run builds again (the checkout may have changed in between)
        assert race("run-2") == ["done", "done", "fresh"]
        assert log.read_text() == "built\nbuilt\n"
    finally:
        parallel.lock_path("probe-" + name).unlink(missing_ok=True)
