"""The broker byte readers (:mod:`hookproof.engine.destinations.bounds`), pure: a stream of
valid frames passes however the socket splits it; a frame or message announced past its bound
is refused on its header, before its body, however it is split; the budget refuses the byte
past it and a grant extends it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from hookproof.engine.destinations.brokers.bounds import (
    AmqpFrames,
    ByteBudget,
    LimitCode,
    NatsLines,
    PeerLimit,
)

FRAME_MAX = 4096


def amqp_frame(size: int, channel: int = 1) -> bytes:
    return bytes([1]) + channel.to_bytes(2, "big") + size.to_bytes(4, "big") + b"x" * size + b"\xce"


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    parts, last = [], 0
    for p in points:
        parts.append(data[last:p])
        last = p
    parts.append(data[last:])
    return parts


@given(
    sizes=st.lists(st.integers(0, FRAME_MAX), min_size=1, max_size=8),
    cuts=st.lists(st.integers(0, 10**6), max_size=12),
)
def test_amqp_valid_frames_pass_however_split(sizes: list[int], cuts: list[int]) -> None:
    reader = AmqpFrames(FRAME_MAX)
    stream = b"".join(amqp_frame(n) for n in sizes)
    assert b"".join(reader.feed(part) for part in split(stream, cuts)) == stream


def tune(frame_max: int) -> bytes:
    payload = (10).to_bytes(2, "big") + (30).to_bytes(2, "big") + (2047).to_bytes(2, "big")
    payload += frame_max.to_bytes(4, "big") + (60).to_bytes(2, "big")
    return bytes([1, 0, 0]) + len(payload).to_bytes(4, "big") + payload + b"\xce"


@given(
    proposed=st.sampled_from([0, FRAME_MAX + 1, 131_072, 2**32 - 1, 1024, FRAME_MAX]),
    after=st.lists(st.integers(0, FRAME_MAX), max_size=4),
    cuts=st.lists(st.integers(0, 10**6), max_size=12),
)
def test_amqp_tune_lowered_to_our_frame_max(
    proposed: int, after: list[int], cuts: list[int]
) -> None:
    """The library reads the server's Tune with frame_max at most ours (0, "no limit",
    becomes ours); every other byte passes unchanged, however the stream is split."""
    start = amqp_frame(300, channel=0)  # Connection.Start stands in: any frame before Tune
    rest = b"".join(amqp_frame(n) for n in after)
    reader = AmqpFrames(FRAME_MAX)
    got = b"".join(reader.feed(p) for p in split(start + tune(proposed) + rest, cuts))
    want = proposed if 0 < proposed <= FRAME_MAX else FRAME_MAX
    assert got == start + tune(want) + rest


@given(
    before=st.lists(st.integers(0, 64), max_size=4),
    size=st.integers(FRAME_MAX + 1, 2**32 - 1),
    cuts=st.lists(st.integers(0, 10**6), max_size=12),
)
def test_amqp_oversized_frame_refused_on_its_header(
    before: list[int], size: int, cuts: list[int]
) -> None:
    head = b"".join(amqp_frame(n) for n in before)
    announced = bytes([3, 0, 1]) + size.to_bytes(4, "big")  # the body never needs to come
    reader = AmqpFrames(FRAME_MAX)
    with pytest.raises(PeerLimit) as caught:
        for part in split(head + announced, cuts):
            reader.feed(part)
    assert caught.value.code is LimitCode.FRAME_TOO_LARGE


def test_amqp_protocol_header_left_to_the_library() -> None:
    AmqpFrames(FRAME_MAX).feed(b"AMQP\x00\x00\x09\x01" + b"\xff" * 64)


def nats_msg(payload: int) -> bytes:
    return b"MSG _INBOX.a.b 1 %d\r\n" % payload + b"y" * payload + b"\r\n"


@given(
    payloads=st.lists(st.integers(0, 2048), min_size=1, max_size=6),
    cuts=st.lists(st.integers(0, 10**6), max_size=12),
)
def test_nats_valid_stream_passes_however_split(payloads: list[int], cuts: list[int]) -> None:
    reader = NatsLines(max_payload=2048, control_line=4096, info_line=65536)
    stream = b'INFO {"max_payload":2048}\r\nPING\r\n+OK\r\n' + b"".join(map(nats_msg, payloads))
    assert b"".join(reader.feed(part) for part in split(stream, cuts)) == stream


@given(size=st.integers(2049, 10**12), cuts=st.lists(st.integers(0, 10**6), max_size=8))
def test_nats_oversized_message_refused_on_its_line(size: int, cuts: list[int]) -> None:
    reader = NatsLines(max_payload=2048, control_line=4096, info_line=65536)
    with pytest.raises(PeerLimit) as caught:
        for part in split(b"PONG\r\nHMSG _INBOX.a.b 1 10 %d\r\n" % size, cuts):
            reader.feed(part)
    assert caught.value.code is LimitCode.FRAME_TOO_LARGE


def test_nats_endless_line_refused_at_its_bound() -> None:
    reader = NatsLines(max_payload=2048, control_line=4096, info_line=65536)
    reader.feed(b"INFO {" + b"a" * 60_000)  # an INFO may be long
    with pytest.raises(PeerLimit):
        reader.feed(b"a" * 6_000)
    other = NatsLines(max_payload=2048, control_line=4096, info_line=65536)
    with pytest.raises(PeerLimit):
        other.feed(b"-ERR " + b"e" * 5000)


def test_budget_refuses_the_byte_past_it_and_grants_extend_it() -> None:
    budget = ByteBudget(10)
    budget.spend(10)
    budget.grant(5)
    budget.spend(5)
    with pytest.raises(PeerLimit) as caught:
        budget.spend(1)
    assert caught.value.code is LimitCode.BUDGET_EXCEEDED
