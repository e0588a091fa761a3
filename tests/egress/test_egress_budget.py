"""One byte budget per exchange, and truncation as evidence (issue 32, points 1 and 6).

Real TLS on loopback (trustme). Hostile servers answer ``200`` and then never end a trailer
value, a trailer name or a chunk extension: each attempt is a ``protocol_error`` after a bounded
number of answer bytes, not after its deadline (the bounds, from
:mod:`hookproof.engine.egress.connection`: the bytes before the trailers + 8 KiB for trailers, the head
+ 8 KiB for chunk framing, and 4,096 TLS records when the peer writes one byte per record), and
another origin served by the same transport (one worker's pool) keeps its outcome. An answer framed by the connection's end that ends with a bare TCP FIN (no
TLS ``close_notify``) keeps its status and is marked ``body_truncated``.
"""

from __future__ import annotations

import asyncio
import json
import socket
import ssl

import pytest

from hookproof.engine.egress import Outcome
from hookproof.engine.egress.connection import (
    MAX_FRAMING_BYTES,
    MAX_HEAD_BYTES,
    MAX_LINE_BYTES,
    MAX_RECORDS,
    MAX_TRAILER_BYTES,
    MAX_TRAILERS,
    ByteBudget,
    Part,
)

from .conftest import Handler, Request, respond

BODY = b'{"type":"t","eventId":"e1"}'
CHUNKED = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
#: bytes of the chunked answers below before their trailers: "2\r\nok\r\n0\r\n"
BEFORE_TRAILERS = CHUNKED + b"2\r\nok\r\n0\r\n"
#: A safety stop for the server side (the old code read until its deadline).
_SERVER_CAP = 512 * 1024 * 1024


def endless(prefix: bytes, unit: bytes, sent: list[int]) -> Handler:
    """Write ``prefix``, then ``unit`` again and again until the client goes away."""

    async def handler(_request: Request, writer: asyncio.StreamWriter) -> None:
        total = len(prefix)
        writer.write(prefix)
        try:
            while total < _SERVER_CAP and not writer.is_closing():
                writer.write(unit)
                total += len(unit)
                await writer.drain()
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            sent.append(total)

    return handler


#: (answer before the endless part, the endless unit, the most answer bytes the client reads)
STREAMS = {
    "trailer-value": (BEFORE_TRAILERS + b"X-T: ", b"a", len(BEFORE_TRAILERS) + MAX_TRAILER_BYTES),
    "trailer-name": (BEFORE_TRAILERS, b"X", len(BEFORE_TRAILERS) + MAX_TRAILER_BYTES),
    "chunk-extension": (CHUNKED + b"2;e=", b"a", len(CHUNKED) + MAX_FRAMING_BYTES),
    "many-trailers": (BEFORE_TRAILERS, b"X-T: 1\r\n", len(BEFORE_TRAILERS) + MAX_TRAILER_BYTES),
    "leading-zeros": (CHUNKED, b"0", len(CHUNKED) + MAX_FRAMING_BYTES),
    "status-reason": (b"HTTP/1.1 200 ", b"a", MAX_LINE_BYTES),
    "header-value": (b"HTTP/1.1 200 OK\r\nX-H: ", b"a", MAX_LINE_BYTES),
    "informational": (b"", b"HTTP/1.1 100 Continue\r\n\r\n", MAX_HEAD_BYTES),
}


@pytest.mark.parametrize(
    "size", [16 * 1024, 3, 1], ids=["16KiB-writes", "3-byte-records", "1-byte-records"]
)
@pytest.mark.parametrize("stream", list(STREAMS))
async def test_an_endless_answer_is_a_protocol_error_within_its_bound(
    stream, size, make_server, make_transport
):
    """Every byte counts: the attempt ends at its bound, a protocol error, its status kept.
    Dribbled in one-byte TLS records (a TLS read each) it ends at the record bound first."""
    prefix, unit, bound = STREAMS[stream]
    if size < 16 * 1024 and stream not in ("trailer-value", "trailer-name", "chunk-extension"):
        pytest.skip("dribbled: the three streams of issue 32")
    sent: list[int] = []
    server = await make_server(endless(prefix, unit * max(1, size // len(unit)), sent))
    transport = make_transport(allow=(("127.0.0.1", server.port),), total_timeout_s=30.0)
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.code == "protocol_error", (result.code, result.detail)
    assert result.response_bytes <= bound, (result.response_bytes, bound)
    if size == 1:  # the prefix is one record, then one record per byte
        assert f"more than {MAX_RECORDS} TLS records" in result.detail
        assert result.response_bytes <= len(prefix) + MAX_RECORDS
    if stream not in ("status-reason", "header-value", "informational"):
        assert result.status == 200 and result.outcome is Outcome.RESPONSE
        assert result.lost  # the 200 came, the answer never completed: UNKNOWN_TRANSPORT
        if size > 1:
            assert result.response_bytes > bound - 64  # refused at the bound, not before
    else:
        assert result.status is None and result.outcome is Outcome.UNKNOWN


async def test_another_origin_on_the_same_worker_keeps_its_outcome(make_server, make_transport):
    """Four hostile endpoints in flight on one transport (one worker's pool and adapter); the
    other origin's requests all complete with their own answers, on a reused connection."""
    sent: list[int] = []
    good = await make_server(respond(200, b"fine", {"Connection": "keep-alive"}), keep_alive=True)
    kinds = ("trailer-value", "trailer-name", "chunk-extension", "trailer-value")
    hostile = [
        await make_server(endless(STREAMS[k][0], STREAMS[k][1] * 16 * 1024, sent)) for k in kinds
    ]
    pairs = tuple(("127.0.0.1", s.port) for s in [good, *hostile])
    transport = make_transport(allow=pairs, total_timeout_s=30.0)
    bad = [
        asyncio.create_task(transport.post(f"https://127.0.0.1:{s.port}/", BODY)) for s in hostile
    ]
    results = []
    for _ in range(20):
        results.append(await transport.post(f"https://127.0.0.1:{good.port}/", BODY))
    bad_results = await asyncio.gather(*bad)
    assert all(r.ok and r.status == 200 and r.body == b"fine" for r in results)
    assert [r.code for r in bad_results] == ["protocol_error"] * 4
    assert all(r.response_bytes <= STREAMS[k][2] for r, k in zip(bad_results, kinds, strict=True))
    assert good.connections == 1  # the good origin's connection was reused throughout


def _cut(answer: bytes, *, close_notify: bool) -> Handler:
    """Answer with ``answer``; then end the connection with a TLS close_notify, or with a bare
    TCP FIN (what anyone on the path can forge)."""

    async def handler(_request: Request, writer: asyncio.StreamWriter) -> None:
        writer.write(answer)
        await writer.drain()
        if close_notify:
            return  # the server closes the stream: close_notify, then FIN
        for _ in range(100):
            if writer.transport.get_write_buffer_size() == 0:
                break
            await asyncio.sleep(0.01)
        sock = writer.transport.get_extra_info("socket")
        sock.shutdown(socket.SHUT_WR)  # FIN, no close_notify
        await asyncio.sleep(0.2)
        writer.transport.abort()

    return handler


UNFRAMED = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\npartial"


async def test_an_unframed_answer_cut_by_a_bare_fin_is_truncated(make_server, make_transport):
    server = await make_server(_cut(UNFRAMED, close_notify=False))
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    # the status seen stays what it was; the body is marked incomplete
    assert result.status == 200 and result.code is None and result.ok
    assert result.body == b"partial" and result.body_truncated
    evidence = json.loads(json.dumps(result.evidence()))
    assert evidence["bodyTruncated"] is True and evidence["status"] == 200
    assert evidence["responseBytes"] == len(UNFRAMED)


async def test_an_unframed_answer_ended_by_close_notify_is_complete(make_server, make_transport):
    server = await make_server(_cut(UNFRAMED, close_notify=True))
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.ok and result.body == b"partial" and not result.body_truncated
    assert result.evidence()["bodyTruncated"] is False


async def test_a_framed_answer_is_never_marked_truncated(make_server, make_transport):
    server = await make_server(
        _cut(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", close_notify=False)
    )
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.ok and result.body == b"ok" and not result.body_truncated


# -- answers within the bounds are read as before -----------------------------------------------


def _pieces(*parts: bytes, gap: float = 0.02) -> Handler:
    """Write each part as its own TLS record, a moment apart (each is its own read)."""

    async def handler(_request: Request, writer: asyncio.StreamWriter) -> None:
        for part in parts:
            writer.write(part)
            await writer.drain()
            await asyncio.sleep(gap)

    return handler


@pytest.mark.parametrize("cut", [1, 2, 3, 4])
async def test_a_head_whose_end_straddles_two_reads(cut, make_server, make_transport):
    """The head's CRLF CRLF split across reads; a long body without LF right after it."""
    body = b"b" * (MAX_LINE_BYTES + 4096)
    head = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body)
    answer = head + body
    at = len(head) - cut
    server = await make_server(_pieces(answer[:at], answer[at:]))
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.ok and result.body == body, result.detail
    assert result.response_bytes == len(answer)


async def test_chunked_answers_with_trailers_and_lines_in_their_data(make_server, make_transport):
    data = b"line\n" * 2000 + b"z" * 20_000
    chunks = b"".join(
        b"%x\r\n" % len(data[i : i + 7000]) + data[i : i + 7000] + b"\r\n"
        for i in range(0, len(data), 7000)
    )
    trailers = b"".join(b"X-T%d: v\r\n" % i for i in range(MAX_TRAILERS))
    answer = CHUNKED + chunks + b"0;last=1\r\n" + trailers + b"\r\n"
    third = len(answer) // 3
    server = await make_server(
        _pieces(answer[:third], answer[third : 2 * third], answer[2 * third :]), keep_alive=True
    )
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    url = f"https://127.0.0.1:{server.port}/"
    result = await transport.post(url, BODY)
    assert result.ok and result.body == data, result.detail
    assert result.response_bytes == len(answer)
    assert result.header("X-T0") is None  # trailers are counted, never read as header fields
    assert (await transport.post(url, BODY)).ok  # the exchange ended cleanly: reused
    assert server.connections == 1


@pytest.mark.parametrize("pieces", [1, 3], ids=["one-read", "three-reads"])
async def test_a_small_chunked_answer_with_trailers(pieces, make_server, make_transport):
    """Read at once (the rest after the head fits every bound) or in pieces: the same answer,
    every byte counted once, trailers never read as header fields."""
    answer = CHUNKED + b'b\r\n{"ok":true}\r\n3;x=y\r\n\n\n\n\r\n0\r\nX-Sum: 1\r\n\r\n'
    cut = [len(CHUNKED) + 5, len(CHUNKED) + 20] if pieces == 3 else []
    parts = [answer[a:b] for a, b in zip([0, *cut], [*cut, len(answer)], strict=True)]
    server = await make_server(_pieces(*parts), keep_alive=True)
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    url = f"https://127.0.0.1:{server.port}/"
    result = await transport.post(url, BODY)
    assert result.ok and result.body == b'{"ok":true}\n\n\n', result.detail
    assert result.response_bytes == len(answer) and result.header("X-Sum") is None
    assert (await transport.post(url, BODY)).ok and server.connections == 1


async def test_an_answer_in_many_small_records_within_the_bound(make_server, make_transport):
    body = b"x" * 2000
    head = b"HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n"

    async def handler(_request: Request, writer: asyncio.StreamWriter) -> None:
        writer.write(head)
        for i in range(len(body)):  # one TLS record per byte
            writer.write(body[i : i + 1])
            await writer.drain()

    server = await make_server(handler)
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.ok and result.body == body, result.detail


async def test_one_trailer_field_too_many_is_refused(make_server, make_transport):
    trailers = b"".join(b"X-T%d: v\r\n" % i for i in range(MAX_TRAILERS + 1))
    answer = BEFORE_TRAILERS + trailers + b"\r\n"
    server = await make_server(_pieces(answer))
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.code == "protocol_error" and result.status == 200
    assert "trailer fields" in result.detail


# -- the accounting, on its own ---------------------------------------------------------------


def test_the_budget_counts_every_part_against_its_own_bound() -> None:
    budget = ByteBudget(max_body=1000)
    assert budget.bounds == (MAX_HEAD_BYTES, 1000, MAX_FRAMING_BYTES, MAX_TRAILER_BYTES)
    assert budget.limit == MAX_HEAD_BYTES + 1000 + MAX_FRAMING_BYTES + MAX_TRAILER_BYTES
    assert budget.room(Part.HEAD) == MAX_HEAD_BYTES and budget.total == 0
    assert budget.add(Part.HEAD, 100) and budget.add(Part.BODY, 1000)
    assert budget.add(Part.FRAMING, 10) and budget.add(Part.TRAILER, 2)
    assert budget.total == 1112 and budget.counts == [100, 1000, 10, 2]
    assert budget.room(Part.BODY) == 0 and budget.room(Part.TRAILER) == MAX_TRAILER_BYTES - 2
    assert not budget.add(Part.BODY, 1)  # over its bound
    assert budget.room(Part.BODY) == 0
    assert budget.refusal(Part.BODY) == "response body over 1000 bytes"
    assert budget.refusal(Part.TRAILER) == f"response trailer over {MAX_TRAILER_BYTES} bytes"
    assert budget.add(Part.FRAMING, MAX_FRAMING_BYTES - 10)
    assert not budget.add(Part.FRAMING, 1) and budget.room(Part.FRAMING) == 0
    for _ in range(MAX_TRAILERS):
        assert budget.add_trailer_field()
    assert not budget.add_trailer_field()
    assert budget.max_records == MAX_RECORDS
    assert budget.add_records(MAX_RECORDS) and not budget.add_records(1)


def test_bytes_that_may_be_framing_or_trailers_count_against_both() -> None:
    """A piece of a chunked body read at once: its non-data bytes are charged to the framing
    and to the trailers (refusal can only come sooner), unless the answer ended with it; each
    byte is still read once."""
    budget = ByteBudget(max_body=64 * 1024)
    assert budget.add_framing_or_trailer(100, ended=False)
    assert budget.counts[Part.FRAMING] == budget.counts[Part.TRAILER] == 100
    assert budget.total == 100
    assert budget.add_framing_or_trailer(50, ended=True)
    assert (budget.counts[Part.FRAMING], budget.counts[Part.TRAILER]) == (150, 100)
    assert budget.total == 150
    assert not budget.add_framing_or_trailer(MAX_TRAILER_BYTES, ended=False)


def test_chunk_framing_grows_with_the_body_bound() -> None:
    """A body at its bound may come in chunks of 64 bytes or more."""
    assert ByteBudget(max_body=64 * 1024).bounds[Part.FRAMING] == MAX_FRAMING_BYTES
    assert ByteBudget(max_body=1024 * 1024).bounds[Part.FRAMING] == 128 * 1024


def test_no_answer_is_allowed_more_than_the_sum_of_its_bounds() -> None:
    budget = ByteBudget(max_body=64 * 1024)
    for part in (Part.HEAD, Part.BODY, Part.FRAMING, Part.TRAILER):
        budget.add(part, budget.room(part))
        assert budget.room(part) == 0
    assert budget.total == budget.limit
