"""The ``filters`` array: the Subscriptions API dialects and ``match`` over a hookproof event,
the evaluate answer, bad filters refused with their codes, the digest, the CloudEvents
attribute mapping, and (property) ``all``/``any``/``not`` and the array are boolean logic."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.engine.filters import (
    FilterError,
    compile_filters,
    digest,
    from_cloudevent,
    from_hookproof_event,
    to_cloudevent_attributes,
)
from hookproof.engine.filters.attributes import FilterEvent
from hookproof.engine.filters.dialects import compile_filter
from hookproof.schemas.api import EventIn

WIRE = {
    "eventId": "evt_1",
    "topic": "order.created",
    "version": "2",
    "aggregateId": "order-9",
    "aggregateVersion": 3,
    "occurredAt": "2026-12-07T10:00:00Z",
    "payload": {"total": 120, "currency": "EUR", "items": [{"sku": "a"}, {"sku": "b"}]},
}
EVENT = from_hookproof_event(WIRE, tenant_id="acme")


def test_the_attribute_mapping() -> None:
    assert to_cloudevent_attributes(WIRE, tenant_id="acme") == {
        "specversion": "1.0",
        "id": "evt_1",
        "source": "/tenants/acme",
        "type": "order.created",
        "subject": "order-9",
        "time": "2026-12-07T10:00:00Z",
        "datacontenttype": "application/json",
        "aggregateversion": 3,
        "eventversion": "2",
    }
    routed = {**WIRE, "source": "https://shop.example/orders", "consumerId": "cons_1"}
    attributes = to_cloudevent_attributes(
        routed, tenant_id="acme", dataschema="https://hookproof.dev/schemas/order.created/2"
    )
    assert attributes["source"] == "https://shop.example/orders"
    assert attributes["consumerid"] == "cons_1"
    assert attributes["dataschema"] == "https://hookproof.dev/schemas/order.created/2"


def test_an_event_struct_maps_as_its_wire_form() -> None:
    struct = msgspec.convert(WIRE, EventIn)
    assert from_hookproof_event(struct, tenant_id="acme") == EVENT
    assert EVENT.document == {
        "id": "evt_1",
        "topic": "order.created",
        "time": "2026-12-07T10:00:00Z",
        "metadata": {"aggregateId": "order-9", "aggregateVersion": 3, "version": "2"},
        "data": WIRE["payload"],
    }


def test_a_cloudevent_in_json() -> None:
    event = from_cloudevent(
        {
            "specversion": "1.0",
            "id": "1",
            "source": "/s",
            "type": "t",
            "hop": 3,
            "big": 2**40,
            "nothing": None,
            "data": {"x": 1},
        }
    )
    assert event.attributes == {
        "specversion": "1.0",
        "id": "1",
        "source": "/s",
        "type": "t",
        "hop": 3,
        "big": str(2**40),
    }
    assert event.document["data"] == {"x": 1}
    assert event.document["metadata"] == {"source": "/s", "hop": 3, "big": 2**40, "nothing": None}


@pytest.mark.parametrize(
    ("filters", "matches"),
    [
        ([], True),
        ([{"exact": {"type": "order.created"}}], True),
        ([{"exact": {"type": "order.created", "subject": "order-8"}}], False),
        ([{"exact": {"aggregateversion": "3"}}], True),  # attributes read as Strings
        ([{"exact": {"nope": "x"}}], False),
        ([{"prefix": {"type": "order."}}], True),
        ([{"prefix": {"type": "Order."}}], False),  # case sensitive
        ([{"suffix": {"type": ".created", "source": "/acme"}}], True),
        ([{"all": [{"prefix": {"type": "order."}}, {"exact": {"subject": "order-9"}}]}], True),
        ([{"all": [{"prefix": {"type": "order."}}, {"exact": {"subject": "x"}}]}], False),
        ([{"any": [{"exact": {"type": "x"}}, {"exact": {"subject": "order-9"}}]}], True),
        ([{"not": {"exact": {"type": "order.created"}}}], False),
        ([{"sql": "type LIKE 'order.%' AND aggregateversion >= 3"}], True),
        ([{"sql": "missing = 1"}], False),
        ([{"sql": "NOT (missing = 1)"}], False),  # an error is false at every level
        ([{"match": {"data": {"total": {"$gte": 100}, "items": {"sku": "b"}}}}], True),
        ([{"match": {"topic": {"$startsWith": "invoice."}}}], False),
        ([{"match": {"metadata": {"aggregateVersion": 3}, "id": "evt_1"}}], True),
        ([{"prefix": {"type": "order."}}, {"match": {"data": {"currency": "USD"}}}], False),
    ],
)
def test_dialects(filters: list[Any], matches: bool) -> None:
    compiled = compile_filters(filters)
    assert compiled.matches(EVENT) is matches
    assert compiled.evaluate(EVENT).matches is matches


def test_evaluate_reports_each_value_and_error() -> None:
    compiled = compile_filters(
        [
            {"exact": {"type": "order.created"}},
            {"sql": "aggregateversion + 1"},
            {"sql": "missing = 1"},
            {"any": [{"sql": "1 / 0 = 0"}, {"exact": {"type": "x"}}]},
        ]
    )
    out = compiled.evaluate(EVENT).to_json()
    assert out["matches"] is False
    assert out["results"][0] == {"value": True}
    assert out["results"][1] == {"value": 4}
    assert out["results"][2]["value"] is False
    assert out["results"][2]["error"]["kind"] == "missingAttribute"
    assert out["results"][3]["value"] is False
    assert out["results"][3]["error"]["kind"] == "math"


@pytest.mark.parametrize(
    ("filters", "code", "dialect", "path", "position"),
    [
        ({"exact": {}}, "filter_invalid", None, "", None),
        ([{"regex": {"type": ".*"}}], "filter_unknown_dialect", "regex", "/0", None),
        ([{"exact": {"type": "a"}, "prefix": {"type": "b"}}], "filter_invalid", None, "/0", None),
        (["exact"], "filter_invalid", None, "/0", None),
        ([{"exact": {"type": ""}}], "filter_invalid", "exact", "/0/exact/type", None),
        ([{"prefix": {"type": 1}}], "filter_invalid", "prefix", "/0/prefix/type", None),
        ([{"suffix": {}}], "filter_invalid", "suffix", "/0/suffix", None),
        ([{"all": []}], "filter_invalid", "all", "/0/all", None),
        ([{"any": {"exact": {"type": "a"}}}], "filter_invalid", "any", "/0/any", None),
        ([{"not": [{"exact": {"type": "a"}}]}], "filter_invalid", None, "/0/not", None),
        ([{"sql": 1}], "filter_invalid", "sql", "/0/sql", None),
        ([{"sql": "type LIKE"}], "filter_parse_error", "sql", "/0/sql", 9),
        (
            [{"exact": {"type": "a"}}, {"all": [{"any": [{"sql": "a = = 1"}]}]}],
            "filter_parse_error",
            "sql",
            "/1/all/0/any/0/sql",
            4,
        ),
        ([{"any": [{"nope": 1}]}], "filter_unknown_dialect", "nope", "/0/any/0", None),
        ([{"match": []}], "filter_invalid_match", "match", "/0/match", None),
        ([{"match": {"data": {"$regex": "x"}}}], "filter_invalid_match", "match", "/0/match/data/$regex", None),
        ([{"match": {"$or": {"a": 1}}}], "filter_invalid_match", "match", "/0/match/$or", None),
        ([{"match": {"a": {"$exist": "yes"}}}], "filter_invalid_match", "match", "/0/match/a/$exist", None),
        ([{"match": {"a": {"$startsWith": 1}}}], "filter_invalid_match", "match", "/0/match/a/$startsWith", None),
        ([{"match": {"a": {"$eq": {"$ref": "b"}}}}], "filter_invalid_match", "match", "/0/match/a/$eq/$ref", None),
        ([{"exact": {"type": "a"}}] * 65, "filter_invalid", None, "", None),
    ],
)  # fmt: skip
def test_bad_filters_are_refused_with_their_code(
    filters: Any, code: str, dialect: str | None, path: str, position: int | None
) -> None:
    with pytest.raises(FilterError) as refused:
        compile_filters(filters)
    error = refused.value
    assert (error.code, error.dialect, error.path, error.position) == (
        code,
        dialect,
        path,
        position,
    )
    problem = error.to_problem()
    assert problem["status"] == 400 and problem["code"] == code
    json.dumps(problem)  # a problem+json body as it stands


def test_compiled_filters_keep_a_copy_of_their_own() -> None:
    filters: list[Any] = [{"exact": {"type": "order.created"}}]
    compiled = compile_filters(filters)
    filters[0]["exact"]["type"] = "changed"
    assert compiled.source == ({"exact": {"type": "order.created"}},)
    assert compiled.matches(EVENT)
    document: dict[str, Any] = {"data": {"currency": {"$in": ["EUR"]}}}
    by_match = compile_filters([{"match": document}])
    document["data"]["currency"]["$in"].clear()
    assert by_match.matches(EVENT)
    assert compiled.digest == digest([{"exact": {"type": "order.created"}}])
    with pytest.raises(FilterError) as refused:
        compile_filters([{"match": {"a": float("inf")}}])
    assert refused.value.code == "filter_invalid_match"


def test_nesting_is_bounded() -> None:
    deep: Any = {"exact": {"type": "a"}}
    for _ in range(20):
        deep = {"not": deep}
    with pytest.raises(FilterError) as refused:
        compile_filters([deep])
    assert refused.value.code == "filter_invalid"
    deep_match: Any = 1
    for _ in range(40):
        deep_match = {"a": deep_match}
    with pytest.raises(FilterError) as refused:
        compile_filters([{"match": deep_match}])
    assert refused.value.code == "filter_invalid_match"


def test_the_digest_is_the_canonical_json_hash() -> None:
    one = [{"exact": {"type": "a", "subject": "b"}}, {"sql": "n > 1"}]
    same = json.loads('[{"exact": {"subject": "b", "type": "a"}}, {"sql": "n > 1"}]')
    assert digest(one) == digest(same) == compile_filters(same).digest
    canonical = b'[{"exact":{"subject":"b","type":"a"}},{"sql":"n > 1"}]'
    assert digest(one) == hashlib.sha256(canonical).hexdigest()
    assert digest(one) != digest([{"exact": {"type": "a"}}, {"sql": "n > 1"}])
    assert digest(one) != digest(list(reversed(one)))  # the order is part of the filters


# -- property: all/any/not compose as boolean logic; filters is the conjunction -------------

_NAMES = ["type", "subject", "x"]
_VALUES = ["a", "b", "ab"]


_LEAVES = st.one_of(
    st.builds(lambda k, n, v: {k: {n: v}}, st.sampled_from(["exact", "prefix", "suffix"]),
              st.sampled_from(_NAMES), st.sampled_from(_VALUES)),
    st.builds(lambda n, v: {"sql": f"{n} = '{v}'"}, st.sampled_from(_NAMES), st.sampled_from(_VALUES)),
    st.builds(lambda n, v: {"match": {"data": {n: v}}}, st.sampled_from(_NAMES), st.sampled_from(_VALUES)),
)  # fmt: skip
_FILTER = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.builds(lambda xs: {"all": xs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda xs: {"any": xs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda x: {"not": x}, inner),
    ),
    max_leaves=8,
)


_EVENTS = st.builds(
    lambda attrs, data: FilterEvent({"id": "1", **attrs}, {"data": data}),
    st.dictionaries(st.sampled_from(_NAMES), st.sampled_from(_VALUES)),
    st.dictionaries(st.sampled_from(_NAMES), st.sampled_from(_VALUES)),
)


def _truth(expression: Any, event: FilterEvent) -> bool:
    """The reference semantics, written from the specification, one dialect at a time."""
    ((dialect, body),) = expression.items()
    if dialect == "all":
        return all(_truth(x, event) for x in body)
    if dialect == "any":
        return any(_truth(x, event) for x in body)
    if dialect == "not":
        return not _truth(body, event)
    if dialect == "sql":
        name, _, quoted = body.partition(" = ")
        return event.attributes.get(name) == quoted.strip("'")
    if dialect == "match":
        ((name, value),) = body["data"].items()
        return event.document["data"].get(name) == value
    ((name, value),) = body.items()
    actual = event.attributes.get(name)
    if not isinstance(actual, str):
        return False
    return {"exact": actual == value, "prefix": actual.startswith(value),
            "suffix": actual.endswith(value)}[dialect]  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(filters=st.lists(_FILTER, max_size=4), event=_EVENTS)
def test_filters_are_boolean_logic(filters: list[Any], event: FilterEvent) -> None:
    compiled = compile_filters(filters)
    each = [compile_filter(f).matches(event) for f in filters]
    assert compiled.matches(event) is all(each)
    assert compiled.evaluate(event).matches is all(each)
    assert each == [_truth(f, event) for f in filters]
    # the combinators against the elements they combine
    if filters:
        assert compile_filter({"all": filters}).matches(event) is all(each)
        assert compile_filter({"any": filters}).matches(event) is any(each)
        for f, holds in zip(filters, each, strict=True):
            assert compile_filter({"not": f}).matches(event) is (not holds)
