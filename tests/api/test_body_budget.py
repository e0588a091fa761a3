"""The body budget (engine/api/body_budget.py): what real compressors produce always fits it,
bodies that inflate to nothing or to a thousand times their size never do."""

from __future__ import annotations

import zlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.engine.api.body_budget import (
    MAX_INFLATE_RATIO,
    RAW_GRACE,
    BodyBudget,
    BodyTooLarge,
    CompressionRatio,
)

_WBITS = {"zlib": zlib.MAX_WBITS, "gzip": 16 + zlib.MAX_WBITS, "raw": -zlib.MAX_WBITS}


def _compress(data: bytes, fmt: str, level: int, flush_every: int | None) -> bytes:
    c = zlib.compressobj(level, zlib.DEFLATED, _WBITS[fmt])
    if not flush_every:
        return c.compress(data) + c.flush()
    out = b""
    for i in range(0, len(data), flush_every):
        out += c.compress(data[i : i + flush_every]) + c.flush(zlib.Z_SYNC_FLUSH)
    return out + c.flush()


def _feed(budget: BodyBudget, raw: bytes, fmt: str, piece: int) -> int:
    """What the reader does: take each raw read, inflate it, take the output, settle."""
    d = zlib.decompressobj(_WBITS[fmt])
    budget.encoded = True
    for i in range(0, len(raw), piece):
        chunk = raw[i : i + piece]
        budget.take_raw(len(chunk))
        budget.take_inflated(len(d.decompress(chunk)))
        budget.settle()
    return budget.inflated


@settings(max_examples=200, deadline=None)
@given(
    data=st.one_of(
        st.binary(max_size=40_000),
        st.text(max_size=20_000).map(str.encode),
        st.integers(0, 300_000).map(lambda n: b'{"a":1},' * (n // 8)),
    ),
    fmt=st.sampled_from(sorted(_WBITS)),
    level=st.integers(0, 9),
    # a sync flush costs ~10 bytes of framing: flushing every 512 bytes or more stays inside
    # the raw grace (limit/64 + 8 KiB) even stored (level 0); every 16 bytes of a 256 KiB
    # body adds ~160 KiB of framing, which the budget refuses on purpose
    flush_every=st.one_of(st.none(), st.integers(512, 4096)),
    piece=st.integers(1, 70_000),
)
def test_what_a_compressor_makes_of_a_body_within_the_limit_fits(
    data: bytes, fmt: str, level: int, flush_every: int | None, piece: int
) -> None:
    limit = 256 * 1024
    raw = _compress(data, fmt, level, flush_every)
    if len(data) <= limit:
        assert _feed(BodyBudget(limit), raw, fmt, piece) == len(data)
    else:
        with pytest.raises(BodyTooLarge):
            _feed(BodyBudget(limit), raw, fmt, piece)


@given(piece=st.integers(5, 65_536), limit=st.sampled_from([16 * 1024, 256 * 1024, 16 << 20]))
def test_empty_blocks_are_refused_within_the_grace(piece: int, limit: int) -> None:
    budget = BodyBudget(limit, encoded=True)
    d = zlib.decompressobj(-zlib.MAX_WBITS)
    chunk = b"\x00\x00\x00\xff\xff" * (piece // 5)
    with pytest.raises(BodyTooLarge) as refused:
        for _ in range(10_000_000):
            budget.take_raw(len(chunk))
            budget.take_inflated(len(d.decompress(chunk)))
            budget.settle()
    assert budget.raw <= RAW_GRACE + len(chunk) and budget.inflated == 0
    assert refused.value.status == 413


def test_a_bomb_is_refused_by_its_ratio_before_its_size() -> None:
    raw = zlib.compress(b"\0" * (12 << 20), 9)
    assert len(raw) * MAX_INFLATE_RATIO < 12 << 20
    with pytest.raises(CompressionRatio) as refused:
        _feed(BodyBudget(16 << 20), raw, "zlib", 65_536)
    assert (refused.value.status, refused.value.code) == (413, "compression_ratio")


def test_identity_bodies_count_once() -> None:
    budget = BodyBudget(10)
    budget.take_raw(10)
    budget.take_inflated(10)
    budget.settle()
    with pytest.raises(BodyTooLarge):
        budget.take_raw(1)
