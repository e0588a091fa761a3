"""What an attempt keeps of its answer: the stated bounds, and secrets redacted."""

from __future__ import annotations

import base64
import json
import urllib.parse

from hypothesis import given, settings
from hypothesis import strategies as st

from hookproof.engine.destinations.https.response_excerpt import (
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


def _json_escape(c: str) -> str:
    """``c`` as JSON ``\\uXXXX`` escapes (a surrogate pair beyond the BMP)."""
    code = ord(c)
    if code <= 0xFFFF:
        return f"\\u{code:04X}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04x}"


_ENCODINGS = {
    "plain": lambda t: t,
    "lower": str.lower,
    "upper": str.upper,
    "percent": lambda t: urllib.parse.quote(t, safe=""),
    "form": urllib.parse.quote_plus,
    "json": lambda t: json.dumps(t, ensure_ascii=True)[1:-1],
    "json_all": lambda t: "".join(_json_escape(c) for c in t),
    "base64": lambda t: base64.b64encode(t.encode()).decode(),
    "base64url": lambda t: base64.urlsafe_b64encode(t.encode()).decode().rstrip("="),
}
_secret = st.text(
    st.characters(min_codepoint=0x21, max_codepoint=0x1FFFF, exclude_categories=("C", "Z")),
    min_size=8,
    max_size=60,
)


@settings(max_examples=300, deadline=None)
@given(
    _secret,
    st.sampled_from(["Bearer ", "bearer ", "Token ", ""]),
    st.sampled_from(sorted(_ENCODINGS)),
    st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=40),
    st.booleans(),
)
def test_a_credential_is_hidden_in_every_encoding_a_peer_may_echo(
    secret: str, scheme: str, encoding: str, before: str, whole: bool
) -> None:
    """Issue 46: the value sent, with or without its scheme, in any case or encoding, at any
    place in the body or a header, is not in what is kept."""
    sent = (scheme + secret).strip()
    echoed = _ENCODINGS[encoding](sent if whole else secret.strip() or sent)
    prefix = before.encode()  # shifts the echo's alignment (base64 inside a longer text)
    kept = response_of(200, [("X-Echo", before + echoed)], prefix + echoed.encode(), {}, [sent])
    assert kept is not None
    assert echoed not in kept.excerpt and echoed not in kept.headers[0][1]
    core = secret.strip()
    if encoding in ("plain", "lower", "upper") and len(core) >= 8:
        assert core.lower() not in kept.excerpt.lower()


def test_basic_credentials_are_hidden_decoded_too() -> None:
    pair = base64.b64encode(b"svc:hunter2-and-more").decode()
    body = f"{pair} svc:hunter2-and-more HUNTER2-AND-MORE".encode()
    kept = response_of(401, [], body, {}, [f"Basic {pair}"])
    assert kept is not None
    assert "hunter2" not in kept.excerpt.lower() and pair not in kept.excerpt


def test_a_long_credential_straddling_the_cut_is_hidden() -> None:
    token = "t" + "x" * 500
    echoed = urllib.parse.quote("Bearer " + token, safe="")
    body = b"a" * (EXCERPT_BYTES - 10) + echoed.encode()
    kept = response_of(200, [], body, {}, ["Bearer " + token])
    assert kept is not None and "xxxxxxxxxx" not in kept.excerpt
