"""The filter index narrows, never changes the answer: ``matching`` equals checking every
subscription's filters (property), and an event meets only the subscriptions whose indexed
equality it satisfies."""

from __future__ import annotations

from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from hookproof.engine.filters import compile_filters
from hookproof.engine.filters.attributes import FilterEvent
from hookproof.engine.filters.index import FilterIndex, index_key


def _event(attributes: dict[str, Any], data: Any) -> FilterEvent:
    return FilterEvent({"id": "1", **attributes}, {"id": "1", "data": data})


def test_index_keys() -> None:
    # the first attribute in canonical (sorted) order
    assert index_key(compile_filters([{"exact": {"type": "a", "subject": "b"}}])) == (
        "attribute",
        ("subject",),
        ("s", "b"),
    )
    assert index_key(
        compile_filters([{"prefix": {"type": "a"}}, {"all": [{"exact": {"subject": "s"}}]}])
    ) == ("attribute", ("subject",), ("s", "s"))
    assert index_key(compile_filters([{"match": {"data": {"status": "paid"}}}])) == (
        "document",
        ("data", "status"),
        ("s", "paid"),
    )
    assert index_key(
        compile_filters([{"match": {"data": {"$or": [{"a": 1}], "$and": [{"n": {"$eq": 2}}]}}}])
    ) == ("document", ("data", "n"), ("n", 2.0))
    for unindexed in (
        [],
        [{"prefix": {"type": "a"}}],
        [{"any": [{"exact": {"type": "a"}}]}],
        [{"not": {"exact": {"type": "a"}}}],
        [{"sql": "type = 'a'"}],
        [{"match": {"data": {"$not": {"a": 1}}}}],
        [{"match": {"data": {"a": {"$gt": 1}}}}],
        [{"match": {"data": {"a": None}}}],
    ):
        assert index_key(compile_filters(unindexed)) is None, unindexed


def test_an_event_meets_only_its_bucket() -> None:
    index: FilterIndex[str] = FilterIndex()
    for i in range(1000):
        index.add(f"exact-{i}", compile_filters([{"exact": {"subject": f"order-{i}"}}]))
        index.add(f"match-{i}", compile_filters([{"match": {"data": {"customer": i}}}]))
    index.add("all", compile_filters([]))
    event = _event({"subject": "order-7"}, {"customer": 7.0})
    assert index.candidates(event) == ["exact-7", "match-7", "all"]
    assert index.matching(event) == ["exact-7", "match-7", "all"]
    # array contains, and any element of an array along the path
    event = _event({}, [{"customer": [3, 5]}, {"customer": 9}])
    assert index.matching(event) == ["match-3", "match-5", "match-9", "all"]
    index.discard("match-9")
    index.add("match-3", compile_filters([{"match": {"data": {"customer": 4}}}]))
    assert index.matching(event) == ["match-5", "all"]
    assert len(index) == 2000


_NAMES = ["type", "subject"]
_VALUES = ["a", "b", 1, 1.0, True, "1"]
_LEAVES = st.one_of(
    st.builds(lambda n, v: {"exact": {n: str(v)}}, st.sampled_from(_NAMES), st.sampled_from(_VALUES)),
    st.builds(lambda n, v: {"prefix": {n: str(v)}}, st.sampled_from(_NAMES), st.sampled_from(_VALUES)),
    st.builds(lambda n, v: {"match": {"data": {n: v}}}, st.sampled_from(_NAMES), st.sampled_from(_VALUES)),
    st.builds(lambda n, v: {"match": {"data": {"k": {n: {"$eq": v}}}}}, st.sampled_from(_NAMES), st.sampled_from(_VALUES)),
    st.builds(lambda n, v: {"sql": f"{n} = '{v}'"}, st.sampled_from(_NAMES), st.sampled_from(_VALUES)),
)  # fmt: skip
_FILTER = st.recursive(
    _LEAVES,
    lambda inner: st.one_of(
        st.builds(lambda xs: {"all": xs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda xs: {"any": xs}, st.lists(inner, min_size=1, max_size=3)),
        st.builds(lambda x: {"not": x}, inner),
    ),
    max_leaves=5,
)
_SCALAR = st.one_of(st.sampled_from(_VALUES), st.none())
_KEYS = st.sampled_from([*_NAMES, "k"])
_FIELD = st.one_of(
    _SCALAR,
    st.lists(_SCALAR, max_size=3),
    st.dictionaries(_KEYS, st.one_of(_SCALAR, st.lists(_SCALAR, max_size=2)), max_size=2),
    st.lists(st.dictionaries(_KEYS, _SCALAR, max_size=2), max_size=2),
)
_DATA = st.one_of(
    st.fixed_dictionaries({}, optional={"type": _FIELD, "subject": _FIELD, "k": _FIELD}),
    st.lists(st.dictionaries(_KEYS, _FIELD, max_size=3), max_size=3),
    _SCALAR,
)


@settings(max_examples=300, deadline=None)
# the shapes random search meets rarely: an array that contains the value, an array along
# the path, a number that equals another written otherwise, a Boolean that is no number,
# an Integer attribute read as a String
@example([[{"match": {"data": {"type": "a"}}}]], {}, {"type": ["a"]})
@example([[{"match": {"data": {"k": {"type": {"$eq": "a"}}}}}]], {}, [{"k": {"type": "a"}}])
@example([[{"match": {"data": {"type": 1}}}]], {}, {"type": 1.0})
@example([[{"match": {"data": {"type": 1}}}]], {}, {"type": True})
@example([[{"exact": {"type": "1"}}]], {"type": 1}, None)
@given(
    subscriptions=st.lists(st.lists(st.one_of(_LEAVES, _FILTER), max_size=3), max_size=12),
    attributes=st.dictionaries(st.sampled_from(_NAMES), st.sampled_from(_VALUES)),
    data=_DATA,
)
def test_the_index_gives_the_answer_of_checking_everyone(
    subscriptions: list[list[Any]], attributes: dict[str, Any], data: Any
) -> None:
    index: FilterIndex[int] = FilterIndex()
    compiled = [compile_filters(filters) for filters in subscriptions]
    for key, filters in enumerate(compiled):
        index.add(key, filters)
    event = _event(attributes, data)
    assert index.matching(event) == [k for k, f in enumerate(compiled) if f.matches(event)]
