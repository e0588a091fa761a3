"""Issue 24, point 3: an oversize batch is refused before it costs anything.

A 16 KiB gzip body that expands to 16 MiB of ``{"events":[{},{},...]}`` (5.6 M entries), and
the same body uncompressed, are refused with 400 ``batch_too_large`` while most of the body
has not even been sent: the entries are counted as the body arrives. A compressed body is
limited by its decompressed size. Valid batches still work.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from urllib.parse import urlsplit

from .conftest import Api

HOSTILE = b'{"events":[' + b"{}," * ((16 * 1024 * 1024 - 16) // 3) + b"{}]}"  # 5.6 M entries


def event(event_id: str) -> dict[str, object]:
    return {
        "eventId": event_id,
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"n": event_id},
    }


async def send_part(
    api: Api, path: str, token: str, body: bytes, *, sent: int, encoding: str | None = None
) -> tuple[int, dict[str, object]]:
    """Announce all of ``body`` but send only its first ``sent`` bytes; then read the answer
    (which can only come from a server that refused the body before reading it whole)."""
    url = urlsplit(api.base)
    reader, writer = await asyncio.open_connection(url.hostname, url.port)
    head = [
        f"POST {path} HTTP/1.1",
        "Host: 127.0.0.1",
        f"Authorization: Bearer {token}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
    ]
    if encoding:
        head.append(f"Content-Encoding: {encoding}")
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + body[:sent])
    await writer.drain()
    try:
        status_line = await asyncio.wait_for(reader.readline(), 10)
        headers = await reader.readuntil(b"\r\n\r\n")
        length = next(
            int(line.split(b":", 1)[1])
            for line in headers.split(b"\r\n")
            if line.lower().startswith(b"content-length:")
        )
        doc = json.loads(await reader.readexactly(length))
    finally:
        writer.close()
    return int(status_line.split(b" ", 2)[1]), doc


async def test_hostile_batches_are_refused_before_they_are_read(api: Api, token: str) -> None:
    bomb = gzip.compress(HOSTILE, 9)
    assert len(bomb) < 64 * 1024 and 16_000_000 < len(HOSTILE) <= 16 * 1024 * 1024
    # the gzip bomb: a tenth of its compressed bytes (well under 1 MiB once expanded) suffices
    status, doc = await send_part(
        api, "/v1/events/batch", token, bomb, sent=len(bomb) // 10, encoding="gzip"
    )
    assert (status, doc["code"], doc["field"]) == (400, "batch_too_large", "events"), doc
    # uncompressed: refused after its first 64 KiB (of 16 MiB)
    status, doc = await send_part(api, "/v1/events/batch", token, HOSTILE, sent=64 * 1024)
    assert (status, doc["code"], doc["field"]) == (400, "batch_too_large", "events"), doc
    # and whole: the same answer
    for data, encoding in ((HOSTILE, None), (bomb, "gzip")):
        status, doc = await send_part(
            api, "/v1/events/batch", token, data, sent=len(data), encoding=encoding
        )
        assert (status, doc["code"]) == (400, "batch_too_large"), doc


async def test_compressed_bodies_are_limited_by_their_decompressed_size(
    api: Api, token: str
) -> None:
    # 64 MiB of spaces inside a batch: no entry to count, refused at the 16 MiB batch limit
    spaces = gzip.compress(b'{"events":[' + b" " * (64 * 1024 * 1024) + b"]}", 9)
    status, doc = await send_part(api, "/v1/events/batch", token, spaces, sent=len(spaces))
    assert status == 400  # not gzip-declared: read raw, refused as JSON
    status, doc = await send_part(
        api, "/v1/events/batch", token, spaces, sent=len(spaces), encoding="gzip"
    )
    # spaces inflate ~1,000-fold: refused for that ratio (issue 32) before the 16 MiB limit
    assert (status, doc["code"]) == (413, "compression_ratio"), doc
    # a single event: 256 KiB decompressed at most, whatever the compressed size
    single = gzip.compress(json.dumps(event("e-big"))[:-1].encode() + b" " * (8 << 20) + b"}")
    status, doc = await send_part(
        api, "/v1/events", token, single, sent=len(single), encoding="gzip"
    )
    assert (status, doc["code"]) == (413, "body_too_large"), doc
    deep = gzip.compress(b'{"payload":' * 100_000 + b"1" + b"}" * 100_000)
    status, doc = await send_part(
        api, "/v1/events", token, deep, sent=len(deep) // 4, encoding="gzip"
    )
    assert (status, doc["code"]) == (400, "json_too_deep"), doc


async def test_valid_batches_still_work(api: Api, token: str) -> None:
    docs = [event(f"ok-{i}") for i in range(1000)]
    body = json.dumps({"events": docs}).encode()
    for data, headers in ((body, {}), (gzip.compress(body), {"Content-Encoding": "gzip"})):
        status, _, doc = await api.call(
            "POST", "/v1/events/batch", token=token, data=data, headers=headers
        )
        assert status == 200, doc
        assert [r["eventId"] for r in doc["results"]] == [d["eventId"] for d in docs]
        assert {r["status"] for r in doc["results"]} == {202}
    escaped = {"events": [{**event("esc-1"), "payload": {"s": '\\"[[[{{,,,' * 50}}]}
    status, _, doc = await api.call("POST", "/v1/events/batch", token=token, json=escaped)
    assert status == 200 and doc["results"][0]["status"] == 202, doc
    status, _, doc = await api.call(
        "POST",
        "/v1/events/batch",
        token=token,
        json={"events": [event(f"x-{i}") for i in range(1001)]},
    )
    assert (status, doc["code"]) == (400, "batch_too_large"), doc


async def test_content_encodings(api: Api, token: str) -> None:
    """gzip (several members too) and deflate (zlib or raw) are inflated; a broken or
    truncated stream is 400 ``invalid_encoding``; another coding is 415."""
    body = json.dumps({"events": [event("enc-1"), event("enc-2")]}).encode()
    raw = zlib.compressobj(wbits=-15)
    half = len(body) // 2
    encodings = [
        (gzip.compress(body[:half]) + gzip.compress(body[half:]), "gzip"),
        (zlib.compress(body), "deflate"),
        (raw.compress(body) + raw.flush(), "deflate"),
    ]
    for data, coding in encodings:
        status, doc = await send_part(
            api, "/v1/events/batch", token, data, sent=len(data), encoding=coding
        )
        assert status == 200, (coding, doc)
        assert [r["eventId"] for r in doc["results"]] == ["enc-1", "enc-2"]
    whole = gzip.compress(body)
    for data, coding in ((whole[:-12], "gzip"), (b"not gzip at all", "gzip")):
        status, doc = await send_part(
            api, "/v1/events/batch", token, data, sent=len(data), encoding=coding
        )
        assert (status, doc["code"]) == (400, "invalid_encoding"), doc
    status, doc = await send_part(api, "/v1/events", token, whole, sent=len(whole), encoding="br")
    assert (status, doc["code"]) == (415, "unsupported_encoding"), doc
