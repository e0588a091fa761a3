"""The regex cost function (engine/event_types/regex_cost.py): counted repetitions multiply,
nested ones too; anchored bounded patterns cost per string; it never raises on any pattern;
and a definition whose regex is past the bound is refused with ``pattern_too_complex``."""

from __future__ import annotations

import jsonschema_rs
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from hookproof.engine.event_types.errors import PatternTooComplex, SchemaInvalid
from hookproof.engine.event_types.limits import MAX_WORK, compile_schema
from hookproof.engine.event_types.regex_cost import (
    BASE_WEIGHT,
    MAX_POSITIONS,
    POSITION_WEIGHT,
    regex_cost,
)

_ATOMS = ["a", "b", ".", r"\d", r"\w", "[ab]", "[^x]", r"\p{L}", "[a-z&&[^q]]", r"\x41"]


@st.composite
def regexes(draw: st.DrawFn, depth: int = 3) -> str:
    """Rust-syntax regexes built from atoms, groups, alternation and quantifiers."""
    parts = []
    for _ in range(draw(st.integers(1, 4))):
        if depth and draw(st.booleans()):
            inner = draw(regexes(depth - 1))
            atom = draw(st.sampled_from(["({})", "(?:{})", "(?i:{})", "(?x:{} )"])).format(inner)
        else:
            atom = draw(st.sampled_from(_ATOMS))
        q = draw(st.sampled_from(["", "", "*", "+", "?", "{2}", "{1,3}", "{3,}", "*?", "{0,5}"]))
        parts.append(atom + q)
    if draw(st.booleans()):
        return "|".join(parts)
    return "".join(parts)


def _compiles(pattern: str) -> bool:
    try:
        jsonschema_rs.Draft202012Validator(
            {"pattern": pattern},
            pattern_options=jsonschema_rs.RegexOptions(size_limit=64 * 1024),
        )
    except jsonschema_rs.ValidationError:
        return False
    return True


def test_the_hostile_pattern_of_the_issue() -> None:
    cost = regex_cost("[ab]*a[ab]{600}c")
    assert (cost.positions, cost.span, cost.parsed) == (603, None, True)
    assert cost.positions > MAX_POSITIONS
    assert cost.weight == BASE_WEIGHT + POSITION_WEIGHT * 603
    # a 250 KB payload: priced far past the work bound, refused before any validation
    assert cost.work(250_000, 3) > 100 * MAX_WORK


def test_anchored_bounded_patterns_cost_per_string() -> None:
    uuid = regex_cost("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
    assert uuid.positions == 36 and uuid.span == 36 * 4
    assert uuid.work(1_000_000, 2) == uuid.weight * 2 * (uuid.span + 1)
    assert regex_cost("^a|b").span is None  # one branch is not anchored
    assert regex_cost("(?m)^abc").span is None  # multi-line: ^ after any newline
    assert regex_cost("^?abc").span is None  # an optional anchor anchors nothing
    assert regex_cost("^[a-z]+$").span is None  # unbounded
    assert regex_cost(r"\Aab").span == 8


@given(n=st.integers(0, 2000), m=st.integers(0, 50))
def test_counted_repetitions_multiply(n: int, m: int) -> None:
    # x{0} is counted as one copy: never less than the regex written once
    assert regex_cost(f"a[ab]{{{n}}}c").positions == max(n, 1) + 2
    assert regex_cost(f"(?:x[ab]{{{n}}}){{{m}}}").positions == max(m, 1) * (max(n, 1) + 1)
    assert regex_cost(f"a{{{n},}}").positions == max(n, 1)
    assert regex_cost(f"(a|bc){{0,{n}}}").positions == 3 * max(n, 1)


@given(a=regexes(), b=regexes(), n=st.integers(1, 20))
@settings(max_examples=300)
def test_cost_grows_with_the_pattern(a: str, b: str, n: int) -> None:
    """Concatenation and alternation add, repetition multiplies, grouping changes nothing."""
    ca, cb = regex_cost(a), regex_cost(b)
    assert ca.parsed and cb.parsed, (a, b)
    assert regex_cost(f"(?:{a})(?:{b})").positions == ca.positions + cb.positions
    assert regex_cost(f"(?:{a})|(?:{b})").positions == ca.positions + cb.positions
    assert regex_cost(f"(?:{a}){{{n}}}").positions == n * ca.positions
    assert regex_cost(f"(?:{a}){{{n + 1}}}").weight >= regex_cost(f"(?:{a}){{{n}}}").weight
    assert regex_cost(f"(?:{a})*").positions == ca.positions


@given(pattern=st.text(max_size=40))
@settings(max_examples=500)
def test_it_never_raises_and_prices_what_it_cannot_read(pattern: str) -> None:
    cost = regex_cost(pattern)
    assert cost.weight >= BASE_WEIGHT
    if not cost.parsed:
        assert cost.positions >= len(pattern)


@given(pattern=regexes())
@settings(max_examples=200, deadline=None)
def test_every_pattern_the_engine_compiles_is_read(pattern: str) -> None:
    assume(_compiles(pattern))
    assert regex_cost(pattern).parsed, pattern


@pytest.mark.parametrize(
    "pattern",
    [
        "[ab]*a[ab]{600}c",
        "(?:[ab]{30}){20}",
        r"a\w{513}",
        "(a|b){300}",
    ],
)
def test_a_definition_with_a_costly_regex_is_refused(pattern: str) -> None:
    schema = {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}}
    with pytest.raises(PatternTooComplex) as refused:
        compile_schema(schema, "versions.1.schema", defining=True)
    assert refused.value.code == "pattern_too_complex"
    assert isinstance(refused.value, SchemaInvalid)
    assert refused.value.extra["positions"] > MAX_POSITIONS
    # a stored type holding it still compiles (limited at use by its price, not trusted)
    compiled = compile_schema(schema)
    assert compiled.work(b'{"s":"' + b"ab" * 100_000 + b'"}') > MAX_WORK


def test_patterns_within_the_bound_are_accepted_and_priced() -> None:
    schema = {
        "type": "object",
        "properties": {"id": {"type": "string", "pattern": "^[a-z]{1,255}$"}},
        "patternProperties": {"^x-[0-9]{3}$": {"type": "string"}},
    }
    compiled = compile_schema(schema, defining=True)
    assert sorted(r.positions for r in compiled.regexes) == [5, 255]
    small = b'{"id":"abc"}'
    assert compiled.work(small) < 100_000
