"""The CESQL 1.0 TCK (vendored under ``cesql_tck/`` with its licence): every case's value
and error kind, through the library."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from hookproof.engine.filters import FilterEvent, compile_filters
from hookproof.engine.filters.cesql import compile_cesql
from hookproof.engine.filters.errors import FilterError

TCK = Path(__file__).parent / "cesql_tck"


class _Loader(yaml.SafeLoader):
    """YAML without implicit timestamps: the TCK's ``time`` values are CloudEvents
    Timestamps, which CESQL reads as Strings."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}

#: cases where one file of the kit disagrees with a later one (see cesql_tck/README.md):
#: the value and error hookproof gives instead, with the reason
KNOWN_DISAGREEMENTS: dict[tuple[str, str], tuple[Any, str | None, str]] = {
    ("negate_operator.yaml", "Minus with boolean cast"): (
        0,
        "cast",
        "binary_math_operators.yaml makes Boolean -> Integer a cast error (5 + TRUE)",
    ),
}


def _cases() -> list[Any]:
    out = []
    for path in sorted(TCK.glob("*.yaml")):
        text = path.read_text()
        suite = yaml.load(text, Loader=_Loader)  # a SafeLoader
        # the expression as written (``expression: TRUE`` is text, not a YAML Boolean)
        raw = yaml.load(text, Loader=yaml.BaseLoader)
        for case, raw_case in zip(suite["tests"], raw["tests"], strict=True):
            case["expression"] = raw_case["expression"]
            out.append(pytest.param(path.name, case, id=f"{path.stem}: {case['name']}"))
    return out


CASES = _cases()


def _event(case: dict[str, Any]) -> dict[str, Any]:
    event = dict(
        case.get("event") or {"specversion": "1.0", "id": "id", "source": "source", "type": "type"}
    )
    event.update(case.get("eventOverrides") or {})
    return event


def test_the_kit_is_all_here() -> None:
    assert len(list(TCK.glob("*.yaml"))) == 14
    assert len(CASES) == 251


@pytest.mark.parametrize(("file", "case"), CASES)
def test_tck_case(file: str, case: dict[str, Any]) -> None:
    expected_value, expected_error = case.get("result"), case.get("error")
    known = KNOWN_DISAGREEMENTS.get((file, case["name"]))
    if known is not None:
        expected_value, expected_error, _ = known
    if expected_error == "parse":
        with pytest.raises(FilterError) as refused:
            compile_cesql(case["expression"])
        assert refused.value.code == "filter_parse_error"
        assert refused.value.dialect == "sql"
        assert refused.value.position is not None
        with pytest.raises(FilterError) as as_filter:
            compile_filters([{"sql": case["expression"]}])
        assert (as_filter.value.code, as_filter.value.path) == ("filter_parse_error", "/0/sql")
        return
    result = compile_cesql(case["expression"]).evaluate(_event(case))
    assert (result.error.kind if result.error else None) == expected_error
    if "result" in case or known is not None:
        assert result.value == expected_value
        assert type(result.value) is type(expected_value)
    # the same through the ``sql`` dialect of a ``filters`` array: the evaluate answer
    # carries the value and the error kind; the filter holds only when the value, coerced
    # to Boolean, is TRUE and nothing erred (``STRING(TRUE)`` holds)
    evaluation = compile_filters([{"sql": case["expression"]}]).evaluate(
        FilterEvent(_event(case), {})
    )
    answer = evaluation.to_json()["results"][0]
    assert answer["value"] == result.value
    assert answer.get("error", {}).get("kind") == expected_error
    coerced_true = result.value is True or str(result.value).lower() == "true"
    assert evaluation.matches is (coerced_true and expected_error is None)
