"""The incremental JSON scan: the same depth and entry count as a real decoder, however the
text is split into chunks; escapes and brackets inside strings never count."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.engine.common.jsonscan import JsonScan, TooDeep, TooManyEntries

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='[]{}",\\\\ab\u00e9\n'),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(alphabet='[]{}"\\\\,k', max_size=4), inner, max_size=4)
    ),
    max_leaves=30,
)


def depth_of(value: Any) -> int:
    if isinstance(value, list):
        return 1 + max((depth_of(v) for v in value), default=0)
    if isinstance(value, dict):
        return 1 + max((depth_of(v) for v in value.values()), default=0)
    return 0


def scan(text: bytes, cuts: list[int], limit: int = 1000, **kw: Any) -> JsonScan:
    s = JsonScan(limit, **kw)
    edges = [0, *sorted(c % (len(text) + 1) for c in cuts), len(text)]
    for a, b in zip(edges, edges[1:], strict=False):
        s.feed(text[a:b])
    return s


@settings(max_examples=300, deadline=None)
@given(value=json_values, cuts=st.lists(st.integers(0, 10_000), max_size=6))
def test_depth_matches_a_decoder_whatever_the_chunks(value: Any, cuts: list[int]) -> None:
    text = json.dumps(value).encode()
    depth = depth_of(value)
    assert scan(text, cuts, limit=depth).depth == 0  # exactly deep enough: never refused
    if depth:
        with pytest.raises(TooDeep):
            scan(text, cuts, limit=depth - 1)


@settings(max_examples=200, deadline=None)
@given(
    entries=st.lists(json_values, max_size=12),
    cuts=st.lists(st.integers(0, 10_000), max_size=6),
)
def test_entries_are_counted_at_their_depth_only(entries: list[Any], cuts: list[int]) -> None:
    text = json.dumps({"events": entries}).encode()
    s = scan(text, cuts, count_depth=2)
    assert s.commas == max(len(entries) - 1, 0)
    too_many = TooManyEntries("too many", code="batch_too_large")
    if len(entries) > 1:
        with pytest.raises(TooManyEntries):
            scan(text, cuts, count_depth=2, max_entries=len(entries) - 1, too_many=too_many)
    scan(text, cuts, count_depth=2, max_entries=max(len(entries), 1), too_many=too_many)


def test_a_hostile_batch_is_refused_at_its_first_excess_entry() -> None:
    """16 MiB of ``{},`` entries: the scan stops at entry 1,001, a few kilobytes in."""
    too_many = TooManyEntries("too many", code="batch_too_large")
    s = JsonScan(66, count_depth=2, max_entries=1000, too_many=too_many)
    body = b'{"events":[' + b"{}," * (16 * 1024 * 1024 // 3)
    fed = 0
    with pytest.raises(TooManyEntries):
        for i in range(0, len(body), 4096):
            fed = i + 4096
            s.feed(body[i : i + 4096])
    assert fed <= 4 * 4096  # refused within the first 16 KiB
    assert s.commas == 1000


def test_escaped_quotes_and_a_backslash_split_across_chunks() -> None:
    text = json.dumps({"events": ['a\\"[[[', "\\\\", '"]]]"', {"k": "\\"}]}).encode()
    for cut in range(len(text) + 1):
        s = JsonScan(3, count_depth=2)
        s.feed(text[:cut])
        s.feed(text[cut:])
        assert (s.depth, s.commas) == (0, 3), cut
