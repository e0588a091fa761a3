"""CESQL beyond the vendored TCK: IN, EXISTS, the grammar's precedence, 32-bit overflow,
parse errors with their positions, bounds, and that no input makes the library raise
anything but its typed error."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.engine.filters import ERROR_KINDS, FilterError, compile_cesql

EVENT = {"specversion": "1.0", "id": "e1", "source": "/s", "type": "order.created", "n": 7}


def _eval(text: str, event: dict[str, Any] | None = None) -> tuple[Any, str | None]:
    result = compile_cesql(text).evaluate(EVENT if event is None else event)
    return result.value, result.error.kind if result.error else None


@pytest.mark.parametrize(
    ("text", "value", "error"),
    [
        ("'a' IN ('a', 'b')", True, None),
        ("3 IN (1, 2)", False, None),
        ("3 NOT IN (1, 2)", True, None),
        ("'3' IN (1, 3)", True, None),  # the left operand's type casts the set
        ("TRUE IN ('true')", True, None),
        ("n IN (7)", True, None),
        ("3 IN (1, 'x')", False, "cast"),
        ("3 IN (3, 'x')", True, None),  # the first equal element answers
        ("3 IN (3, missing)", True, None),
        ("missing IN (1)", False, "missingAttribute"),
        ("3 IN (missing)", False, "missingAttribute"),
        ("EXISTS id", True, None),
        ("EXISTS nope", False, None),
        ("NOT EXISTS nope", True, None),
        ("exists SUBJECT", False, None),
        ("EXISTS ID", True, None),  # attribute names read in lower case
        ("TYPE = 'order.created'", True, None),
        ("3 NOT IN (1, 'x')", False, "cast"),  # NOT over an erring IN: its zero, FALSE
    ],
)
def test_in_and_exists(text: str, value: Any, error: str | None) -> None:
    assert _eval(text) == (value, error)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        # NOT and unary minus are their own rule in CESQLParser.g4: they take the whole
        # expression to their right
        ("NOT TRUE AND FALSE", True),
        ("NOT 1 = 2", True),  # NOT (1 = 2), not (NOT 1) = 2
        ("- 4 + 1", -5),
        ("-4 + 1", -3),  # a sign touching the digits is part of the literal
        ("5-3", 2),
        # AND, OR and XOR are one right-associative level
        ("TRUE OR FALSE AND FALSE", True),
        ("FALSE AND FALSE OR TRUE", False),
        ("TRUE XOR TRUE XOR TRUE", True),
        # arithmetic above comparison, LIKE and IN above arithmetic
        ("1 + 2 = 3", True),
        ("2 * 3 + 1 = 7", True),
        ("'ab' LIKE 'a%' = TRUE", True),
        ("10 - 2 - 3", 5),
        ("-7 / 2", -3),
        ("-7 % 2", -1),
        ("7 % -2", 1),
        ("true aNd NoT false", True),
        ("concat_ws('-', 'a', 1, TRUE)", "a-1-true"),
        ("'it''s'", "it''s"),  # a doubled quote is kept as written (the Go SDK's reading)
        ("'a\\b'", "a\\b"),
        ("'' LIKE '%'", True),
        ("'a.c' LIKE 'a_c'", True),
        ("'abc' LIKE '%b%'", True),
        ("'multi\nline' LIKE 'multi%'", True),
        # an escaped wildcard is a literal wherever it stands
        ("'%abc' LIKE '\\%abc'", True),
        ("'xabc' LIKE '\\%abc'", False),
        ("'ab_' LIKE 'ab\\_'", True),
        ("'abc' LIKE 'ab\\_'", False),
        ("'a\\b' LIKE 'a\\b'", True),
        ("'a\\b' LIKE 'a\\\\b'", False),  # a backslash does not escape itself
        ("'_' LIKE '\\_%'", True),
        ("'x%y' LIKE '%\\%%'", True),
        ("'xy' LIKE '%\\%%'", False),
    ],
)
def test_grammar(text: str, value: Any) -> None:
    assert _eval(text) == (value, None)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("2147483647 + 1", -2147483648),
        ("-2147483648 - 1", 2147483647),
        ("65536 * 65536", 0),
        ("-2147483648 / -1", -2147483648),
        ("-(-2147483648)", -2147483648),
    ],
)
def test_32_bit_overflow_is_a_math_error(text: str, value: int) -> None:
    assert _eval(text) == (value, "math")


@pytest.mark.parametrize(
    ("text", "position"),
    [
        ("", 0),
        ("1 +", 3),
        ("'abc", 0),
        ("a ! b", 2),
        ("x LIKE 123", 7),
        ("foo_bar", 0),
        ("(1", 2),
        ("1 2", 2),
        ("+TRUE", 0),
        ("a IN ()", 6),
        ("a IN 1", 5),
        ("2147483648", 0),
        ("-2147483649", 1),
        ("EXISTS 'id'", 7),
        ("LOWER('a'", 9),
        ("id = = 1", 5),
        ("#", 0),
    ],
)
def test_parse_errors_say_where(text: str, position: int) -> None:
    with pytest.raises(FilterError) as refused:
        compile_cesql(text)
    assert refused.value.code == "filter_parse_error"
    assert refused.value.dialect == "sql"
    assert refused.value.position == position
    assert refused.value.status == 400


def test_an_attribute_of_no_cesql_type_is_a_generic_error_not_a_crash() -> None:
    expression = compile_cesql("n + 1 = 2")
    result = expression.evaluate({"n": 1.5})
    assert (result.value, result.error and result.error.kind) == (False, "generic")
    assert expression.matches({"n": 1.5}) is False


def test_the_most_negative_literal_is_valid() -> None:
    assert _eval("-2147483648") == (-2147483648, None)


def test_nesting_and_length_are_bounded() -> None:
    with pytest.raises(FilterError) as deep:
        compile_cesql("(" * 500 + "1" + ")" * 500)
    assert deep.value.code == "filter_parse_error"
    with pytest.raises(FilterError) as long:
        compile_cesql("1 + " * 2000 + "1")
    assert long.value.code == "filter_invalid"
    chain = " AND ".join(["TRUE"] * 100)
    assert _eval(chain) == (True, None)


def test_parse_once_evaluate_many() -> None:
    expression = compile_cesql("type LIKE 'order.%' AND n > 5")
    assert expression.matches(EVENT)
    assert not expression.matches({**EVENT, "n": 5})
    assert not expression.matches({**EVENT, "type": "invoice.paid"})
    assert not expression.matches({"id": "x"})  # missing attributes: an error, so false


@pytest.mark.parametrize(
    ("text", "matches"),
    [
        ("TRUE", True),
        ("'TRUE'", True),  # coerced to Boolean (Subscriptions API 3.2.4.1.2)
        ("1", False),
        ("'yes'", False),
        ("FALSE", False),
        ("nope = 1", False),
        ("NOT 10", False),  # true, but with a cast error
    ],
)
def test_a_filter_holds_only_for_true_without_error(text: str, matches: bool) -> None:
    assert compile_cesql(text).matches(EVENT) is matches


_TOKENS = st.sampled_from(
    [
        "id", "n", "missing", "type", "TRUE", "FALSE", "NOT", "AND", "OR", "XOR", "LIKE",
        "IN", "EXISTS", "(", ")", ",", "=", "!=", "<>", "<", "<=", ">", ">=", "+", "-", "*",
        "/", "%", "0", "7", "2147483647", "'a%'", "'7'", '"x"', "ABS(", "LENGTH(",
        "CONCAT(", "SUBSTRING(", "LEFT(", "INT(", "BOOL(", "IS_INT(", "NOPE(", "'",
    ]
)  # fmt: skip
_VALUES = st.one_of(st.booleans(), st.integers(-(2**31), 2**31 - 1), st.text(max_size=8))


@settings(max_examples=400, deadline=None)
@given(
    tokens=st.lists(_TOKENS, max_size=14),
    attributes=st.dictionaries(st.sampled_from(["id", "n", "type"]), _VALUES),
)
def test_any_text_compiles_or_is_refused_and_evaluation_never_raises(
    tokens: list[str], attributes: dict[str, Any]
) -> None:
    text = " ".join(tokens)
    try:
        expression = compile_cesql(text)
    except FilterError as refused:
        assert refused.code in ("filter_parse_error", "filter_invalid")
        assert refused.position is not None and 0 <= refused.position <= len(text)
        return
    result = expression.evaluate(attributes)
    assert type(result.value) in (bool, int, str)
    if isinstance(result.value, int) and not isinstance(result.value, bool):
        assert -(2**31) <= result.value <= 2**31 - 1
    assert result.error is None or result.error.kind in ERROR_KINDS
    assert expression.matches(attributes) is (
        result.error is None
        and (
            result.value is True
            or (isinstance(result.value, str) and result.value.lower() == "true")
        )
    )
