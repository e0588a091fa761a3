"""What an attempt keeps of its answer: the stated bounds, and secrets redacted."""

from __future__ import annotations

from hookproof.engine.delivery.response_excerpt import (
    EXCERPT_BYTES,
    HEADER_VALUE_MAX,
    HEADERS_MAX,
    REDACTED,
    response_of,
)


def test_no_answer_keeps_nothing() -> None:
    assert response_of(None, [], b"", {}) is None


def test_the_body_and_headers_are_cut_at_the_stated_limits() -> None:
    headers = [(f"X-H{i}", "v" * 1000) for i in range(HEADERS_MAX + 8)]
    body = "é".encode() * EXCERPT_BYTES  # two bytes a character
    kept = response_of(200, headers, body, {})
    assert kept is not None
    assert len(kept.headers) == HEADERS_MAX and kept.headers_truncated
    assert all(len(v) == HEADER_VALUE_MAX for _, v in kept.headers)
    assert kept.headers[0][0] == "x-h0"
    assert len(kept.excerpt.encode()) <= EXCERPT_BYTES and kept.excerpt_truncated
    assert kept.body_bytes == len(body)
    small = response_of(204, [], b"ok", {})
    assert small is not None and (small.excerpt, small.excerpt_truncated) == ("ok", False)


def test_credentials_and_echoed_signatures_are_redacted() -> None:
    signature = "sig1=:" + "A" * 86 + "==:"
    sent = {"Signature": signature, "Content-Type": "application/json"}
    body = ("x" * (EXCERPT_BYTES - 20) + signature).encode()  # the echo straddles the cut
    kept = response_of(
        500,
        [("Set-Cookie", "sid=1"), ("X-Api-Key", "k"), ("X-Echo", signature), ("Server", "t")],
        body,
        sent,
    )
    assert kept is not None
    assert dict(kept.headers) == {
        "set-cookie": REDACTED,
        "x-api-key": REDACTED,
        "x-echo": REDACTED,
        "server": "t",
    }
    assert "AAAAAAAA" not in kept.excerpt and kept.excerpt.endswith(REDACTED[:20])
