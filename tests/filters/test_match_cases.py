"""Hookdeck's JSON match syntax against the library's own table (vendored with its licence
under ``simple_json_match/``): every case, every case inverted with ``$not``, the ``$not``
cases, and ``$ref`` (unsupported) refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hookproof.engine.filters import FilterEvent, compile_filters
from hookproof.engine.filters.errors import FilterError
from hookproof.engine.filters.match import compile_match

TABLE = json.loads((Path(__file__).parent / "simple_json_match" / "cases.json").read_text())


def _params(key: str) -> list[Any]:
    return [pytest.param(c, id=f"{key}_{c['index']}") for c in TABLE[key]]


def test_the_table_is_all_here() -> None:
    counts = [len(TABLE[k]) for k in ("tests", "not_tests", "ref_tests_not_supported")]
    assert counts == [108, 12, 13]


@pytest.mark.parametrize("case", _params("tests"))
def test_case(case: dict[str, Any]) -> None:
    assert compile_match(case["schema"]).matches(case["input"]) is case["expected"]


@pytest.mark.parametrize("case", _params("tests"))
def test_case_inverted_with_not(case: dict[str, Any]) -> None:
    inverted = compile_match({"$not": case["schema"]})
    assert inverted.matches(case["input"]) is (not case["expected"])


@pytest.mark.parametrize("case", _params("not_tests"))
def test_not_case(case: dict[str, Any]) -> None:
    assert compile_match(case["schema"]).matches(case["input"]) is case["expected"]


@pytest.mark.parametrize("case", _params("ref_tests_not_supported"))
def test_ref_is_refused_not_guessed(case: dict[str, Any]) -> None:
    with pytest.raises(FilterError) as refused:
        compile_match(case["schema"])
    assert refused.value.code == "filter_invalid_match"
    assert refused.value.dialect == "match"
    assert "$ref" in refused.value.path


@pytest.mark.parametrize("case", _params("tests") + _params("not_tests"))
def test_case_through_the_match_dialect(case: dict[str, Any]) -> None:
    """The same answer as a ``match`` filter over an event whose ``data`` is the input."""
    event = FilterEvent({"id": "1"}, {"id": "1", "data": case["input"]})
    plain = compile_filters([{"match": {"data": case["schema"]}}])
    inverted = compile_filters([{"match": {"$not": {"data": case["schema"]}}}])
    assert plain.matches(event) is case["expected"]
    assert inverted.matches(event) is (not case["expected"])
