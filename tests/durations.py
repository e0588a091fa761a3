"""Write tests/durations.json (seconds per test module) from a JUnit report of a full run.

python -m pytest --junitxml=/tmp/junit.xml ...   # a full run, serial or parallel
python -m tests.durations /tmp/junit.xml         # then commit tests/durations.json

tests/parallel.py hands the longest modules to the workers first. The figures only order the
work: a stale or missing entry makes a run slower, never wrong.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

__all__ = ["main", "module_seconds"]

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).with_name("durations.json")


def _module_path(classname: str) -> str | None:
    """``tests.api.test_x.TestY`` -> ``tests/api/test_x.py`` (the longest prefix that is a file)."""
    parts = classname.split(".")
    for n in range(len(parts), 0, -1):
        candidate = Path(*parts[:n]).with_suffix(".py")
        if (ROOT / candidate).is_file():
            return candidate.as_posix()
    return None


def module_seconds(report: Path) -> dict[str, float]:
    """The seconds (setup, call and teardown) of each module's tests in a JUnit report."""
    seconds: dict[str, float] = defaultdict(float)
    for case in ET.parse(report).getroot().iter("testcase"):
        module = _module_path(case.get("classname", ""))
        if module is not None:
            seconds[module] += float(case.get("time") or 0.0)
    return {m: round(s, 1) for m, s in sorted(seconds.items())}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    modules = module_seconds(Path(argv[0]))
    doc = {
        "about": "seconds per test module (setup, call, teardown); tests/parallel.py orders by it",
        "total_s": round(sum(modules.values()), 1),
        "modules": modules,
    }
    OUT.write_text(json.dumps(doc, indent=1, sort_keys=True) + "\n")
    print(f"{OUT.relative_to(ROOT)}: {len(modules)} modules, {doc['total_s']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
