"""The CloudEvents mapping itself (``engine/ingest/cloudevents.py``, pure): any JSON document
is either an event or a typed 400 (never another exception), and a CloudEvent maps to the same
canonical body whether its attributes came typed (the JSON format) or as header strings (the
binary mode), so a republish in the other mode is idempotent."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.engine.ingest.cloudevents import CloudEventInvalid, from_attributes
from hookproof.engine.ingest.event_checks import NOT_EXTENSIONS, canonical_body
from hookproof.errors import ValidationError

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
    max_leaves=8,
)
_names = st.sampled_from(
    ["specversion", "id", "source", "type", "subject", "time", "datacontenttype", "dataschema"]
    + ["aggregateversion", "eventversion", "consumerid", "region", "Bad", "x-y", ""]
)
_values = st.one_of(
    _json,
    st.sampled_from(["1.0", "/shop", "order.created", "2026-12-07T10:00:00Z", "application/json"]),
)


@settings(max_examples=400, deadline=None)
@given(attributes=st.dictionaries(_names | st.text(max_size=6), _values), typed=st.booleans())
def test_any_attributes_map_or_are_refused_with_a_typed_error(
    attributes: dict[str, Any], typed: bool
) -> None:
    try:
        event = from_attributes(attributes, {"a": 1}, typed=typed)
    except ValidationError as exc:
        assert exc.status == 400 and exc.code
        if isinstance(exc, CloudEventInvalid) and exc.attribute is not None:
            assert exc.to_problem()["attribute"] == exc.attribute[:64]
        return
    assert event.event_id == attributes["id"] and event.topic == attributes["type"]


_ids = st.from_regex(r"\A[A-Za-z0-9._:-]{1,40}\Z")
_words = st.from_regex(r"\A[a-z][a-z0-9]{0,10}\Z")


@settings(max_examples=200, deadline=None)
@given(
    event_id=_ids,
    subject=st.none() | _ids,
    version=st.none() | st.integers(0, 2**40),
    extensions=st.dictionaries(
        _words.filter(lambda n: n not in NOT_EXTENSIONS),
        st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=10),
        max_size=4,
    ),
    data=_json,
)
def test_typed_and_header_attributes_give_the_same_canonical_body(
    event_id: str,
    subject: str | None,
    version: int | None,
    extensions: dict[str, str],
    data: Any,
) -> None:
    base: dict[str, Any] = {
        "specversion": "1.0",
        "id": event_id,
        "source": "/shop/eu",
        "type": "order.created",
        "time": "2026-12-07T10:00:00Z",
        **extensions,
    }
    if subject is not None:
        base["subject"] = subject
    typed, strings = dict(base), dict(base)
    if version is not None:
        typed["aggregateversion"], strings["aggregateversion"] = version, str(version)
    a = from_attributes(typed, data, typed=True)
    b = from_attributes(strings, data, typed=False)
    assert canonical_body(a) == canonical_body(b)
    assert a.aggregate_id == (subject if subject is not None else event_id)
    assert a.aggregate_version == (version or 0) and a.version == "1.0"
    assert a.source == "/shop/eu" and (a.extensions or {}) == extensions


def test_a_lower_case_t_and_z_are_rfc_3339_and_kept_upper_case() -> None:
    attributes = {
        "specversion": "1.0",
        "id": "e1",
        "source": "/s",
        "type": "t",
        "time": "2026-12-07t10:00:00.123456789z",
    }
    event = from_attributes(attributes, None, typed=True)
    assert event.occurred_at == "2026-12-07T10:00:00.123456789Z"
