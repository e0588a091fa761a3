"""The JSON match syntax where its table is silent (the choices docs/filters.md records),
and that no document or value makes it raise anything but its typed error."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.engine.filters import FilterError, compile_match


@pytest.mark.parametrize(
    ("schema", "value", "matches"),
    [
        # a missing field matches only $exist: false, $neq and $nin
        ({"a": {"$exist": False}}, {}, True),
        ({"a": {"$neq": 1}}, {}, True),
        ({"a": {"$nin": [1, 2]}}, {}, True),
        ({"a": {"$eq": None}}, {}, False),
        ({"a": None}, {}, False),
        ({"a": {"$in": [1, 2]}}, {}, False),
        ({"a": {"$gt": 0}}, {}, False),
        ({"a": {"$startsWith": "x"}}, {}, False),
        # numbers by value, never Booleans
        ({"a": 1}, {"a": 1.0}, True),
        ({"a": 1}, {"a": True}, False),
        ({"a": {"$eq": [1, {"b": True}]}}, {"a": [1.0, {"b": True}]}, True),
        ({"a": {"$eq": [1, {"b": True}]}}, {"a": [1, {"b": 1}]}, False),
        ({"a": {"$in": [True]}}, {"a": 1}, False),
        # ordering: two numbers or two strings, else false
        ({"a": {"$gt": "10"}}, {"a": 9}, False),
        ({"a": {"$lte": 2}}, {"a": False}, False),
        ({"a": {"$gte": "b"}}, {"a": "é"}, True),
        # $in on an object value does not combine: neither $in nor $nin holds
        ({"a": {"$in": "x"}}, {"a": {"x": 1}}, False),
        ({"a": {"$nin": "x"}}, {"a": {"x": 1}}, False),
        # plain keys against an array: one element holds them all
        ({"a": {"b": 1, "c": 2}}, {"a": [{"b": 1}, {"c": 2}]}, False),
        ({"a": {"b": 1, "c": 2}}, {"a": [{"b": 1}, {"b": 1, "c": 2}]}, True),
        ({}, {"a": 1}, True),
        ({}, [1], False),
    ],
)
def test_choices(schema: Any, value: Any, matches: bool) -> None:
    assert compile_match(schema).matches(value) is matches


def test_a_value_nested_past_the_stack_does_not_match() -> None:
    value: Any = {"b": 1}
    for _ in range(5000):
        value = [value]
    assert compile_match({"a": {"b": 1}}).matches({"a": value}) is False
    assert compile_match({"b": 1}).matches(value) is False


_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=4)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.one_of(st.sampled_from(["a", "b", "$eq", "$in", "$or", "$not", "$exist", "$gt",
                                       "$startsWith", "$nin", "$and", "$ref"]), st.text(max_size=3)),
            inner,
            max_size=3,
        ),
    ),
    max_leaves=12,
)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(schema=_JSON, value=_JSON)
def test_any_document_compiles_or_is_refused_and_matching_never_raises(
    schema: Any, value: Any
) -> None:
    try:
        document = compile_match(schema)
    except FilterError as refused:
        assert refused.code == "filter_invalid_match"
        assert refused.dialect == "match"
        return
    assert document.matches(value) in (True, False)
    assert compile_match({"$not": schema}).matches(value) is (not document.matches(value))
