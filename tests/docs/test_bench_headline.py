"""bench/README.md's headline table is exactly what bench/headline.py makes from bench/results/,
every result file it names exists, and the check fails on a table that drifted from them."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "headline.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_headline", SCRIPT)
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = script  # dataclasses resolve the module's annotations through it
    spec.loader.exec_module(script)
    return script


@pytest.fixture(scope="module")
def headline() -> ModuleType:
    return _script()


def test_the_check_passes_on_the_committed_table() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""


def test_every_figure_names_a_result_file_that_exists(headline: ModuleType) -> None:
    text = (ROOT / "bench" / "README.md").read_text()
    table = text.split(headline.BEGIN)[1].split(headline.END)[0]
    assert len(headline.FIGURES) >= 20
    for figure in headline.FIGURES:
        assert (ROOT / "bench" / "results" / figure.result).is_file(), figure.result
        assert f"`results/{figure.result}`" in table
    named = set(re.findall(r"`results/([^`]+)`", table))
    assert named == {f.result for f in headline.FIGURES}
    for name in named:
        assert (ROOT / "bench" / "results" / name).is_file(), name


def test_a_drifted_table_fails_the_check_and_a_rewrite_mends_it(
    headline: ModuleType, tmp_path: Path
) -> None:
    text = (ROOT / "bench" / "README.md").read_text()
    readme = tmp_path / "README.md"
    # a hand edit of one figure (the table's first bold number) no longer matches its result
    begin = text.index(headline.BEGIN)
    found = re.compile(r"\*\*(\d)").search(text, begin)
    assert found is not None
    digit = str((int(found.group(1)) + 1) % 10)
    stale = text[: found.start(1)] + digit + text[found.end(1) :]
    assert stale != text
    readme.write_text(stale)
    assert headline.main(["--check"], readme) == 1
    assert headline.main([], readme) == 0
    assert readme.read_text() == text
    assert headline.main(["--check"], readme) == 0


def test_a_page_without_markers_is_refused(headline: ModuleType, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# Benchmarks\n")
    assert headline.main(["--check"], readme) == 2
    assert readme.read_text() == "# Benchmarks\n"


def test_paths_read_what_they_name(headline: ModuleType) -> None:
    data = {
        "runs": {"a": {"ms": 1.5, "ok": True}, "b": {"ms": 2.5, "ok": False}},
        "cells": [{"ms": 3}, {"ms": 60}, {"ms": "7.5"}],
        "load": ["1.07", "0.9"],
        "a / b": {"n": 4},
    }
    read = headline.read
    assert read(data, "runs/a/ms") == 1.5
    assert read(data, "load/0") == 1.07
    assert read(data, "max:cells/*/ms") == 60.0
    assert read(data, "max:runs/*/ms") == 2.5
    whole = read(data, "max:cells/{0,1}/ms")
    assert whole == 60 and isinstance(whole, int)
    assert read(data, "a ~1 b/n") == 4
    assert read(data, "min:cells/*/ms") == 3.0
    assert read(data, "sum:runs/{a,b}/ms") == 4.0
    assert read(data, "count:cells/*") == 3
    assert read(data, "true:runs/*/ok") == 1
    assert read(data, "eq=True:runs/*/ok") == 1
    assert read(data, "lt=50:cells/*/ms") == 2
    assert read(data, "gt=5:cells/*/ms") == 2
    with pytest.raises(headline.HeadlineError, match="no 'c'"):
        read(data, "runs/c/ms")
    with pytest.raises(headline.HeadlineError, match="no operation"):
        read(data, "cells/*/ms")
    with pytest.raises(headline.HeadlineError, match="unknown operation"):
        read(data, "avg:cells/*/ms")


def test_a_missing_result_file_is_named(headline: ModuleType) -> None:
    figure = headline.Figure("x", "true", "no_such_result.json", ("a",), "{0}")
    with pytest.raises(headline.HeadlineError, match=r"no_such_result\.json"):
        headline.row(figure)
