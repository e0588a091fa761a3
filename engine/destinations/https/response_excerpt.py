"""What an attempt keeps of the answer it got: bounded, with secrets redacted (pure).

Limits (stated once, here): at most :data:`EXCERPT_BYTES` (2 KiB) of the response body, decoded
as UTF-8 (undecodable bytes replaced), at most :data:`HEADERS_MAX` (32) response headers, each
value cut to :data:`HEADER_VALUE_MAX` (256) characters; about 10 KiB per attempt at worst. It
is stored in the attempt's event in the delivery stream, so ``hookproof archive run`` moves it
to the archive with the rest of the delivery (retention covers it).

Redacted: the values of headers that carry credentials or signatures (:func:`is_secret_header`),
and, in headers and body alike, any echo of a value the engine itself sent in a secret-bearing
request header (an echo endpoint would otherwise store the attempt's signature back), and of
the endpoint authentication's credentials in any case and encoding
(:mod:`~hookproof.engine.common.secret_scrub`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache
from typing import Final

from hookproof.events.delivery_events import AttemptResponse

from ...common.secret_scrub import scrubber

__all__ = [
    "EXCERPT_BYTES",
    "HEADERS_MAX",
    "HEADER_VALUE_MAX",
    "REDACTED",
    "is_secret_header",
    "response_of",
]

EXCERPT_BYTES: Final = 2_048
HEADERS_MAX: Final = 32
HEADER_VALUE_MAX: Final = 256
REDACTED: Final = "[redacted]"
#: body bytes read past the limit before redaction (longer than any header value we send)
_SCRUB_MARGIN: Final = 1_024

_SECRET_NAMES: Final = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "www-authenticate",
        "proxy-authenticate",
    }
)
_SECRET_PARTS: Final = ("signature", "secret", "token", "api-key", "apikey", "password")


def is_secret_header(name: str) -> bool:
    """A header whose value is a credential or a signature (never stored, never shown)."""
    if len(name) <= _CACHED_NAME_MAX:  # asked for every header of every attempt: names repeat
        return _is_secret_cached(name)
    return _is_secret(name)


def _is_secret(name: str) -> bool:
    low = name.lower()
    return low in _SECRET_NAMES or any(part in low for part in _SECRET_PARTS)


#: header names up to this long are remembered (at most 512 of them: a peer sending new names
#: in every answer costs a bounded few dozen KiB, never more)
_CACHED_NAME_MAX: Final = 64
_is_secret_cached = lru_cache(maxsize=512)(_is_secret)


def _scrub(text: str, sent: Iterable[str]) -> str:
    for value in sent:
        if value and value in text:
            text = text.replace(value, REDACTED)
    return text


def response_of(
    status: int | None,
    headers: Iterable[tuple[str, str]],
    body: bytes,
    sent: Mapping[str, str],
    credentials: Iterable[str] = (),
) -> AttemptResponse | None:
    """The bounded, redacted record of an answer; ``None`` when no response came back.
    ``sent`` is the request's headers: the values of its secret ones are scrubbed from what
    is kept (each value and each space-separated part of it, signatures come as lists).
    ``credentials``: the endpoint authentication's values the attempt sent (DESIGN.md 14),
    whatever their header's name: scrubbed in every form a peer can echo them in
    (:mod:`~hookproof.engine.common.secret_scrub`), before anything is stored."""
    if status is None:
        return None
    creds = scrubber(credentials)
    secrets = sorted(
        {
            part
            for name, value in sent.items()
            if is_secret_header(name)
            for part in (value, *value.split(" "), *value.split(","))
            if len(part) >= 16
        },
        key=len,
        reverse=True,
    )
    items = list(headers)
    kept: list[tuple[str, str]] = []
    for name, value in items[:HEADERS_MAX]:
        shown = REDACTED if is_secret_header(name) else _scrub(value, secrets)
        kept.append((name.lower(), creds.text(shown, REDACTED)[:HEADER_VALUE_MAX]))
    # scrubbed before the cut, so no secret's beginning is left at the excerpt's end
    head = body[: EXCERPT_BYTES + max(_SCRUB_MARGIN, creds.longest)]
    for value in secrets:
        head = head.replace(value.encode(), REDACTED.encode())
    head = creds.bytes(head, REDACTED.encode(), limit=EXCERPT_BYTES)
    return AttemptResponse(
        headers=kept,
        excerpt=head[:EXCERPT_BYTES].decode("utf-8", errors="replace"),
        body_bytes=len(body),
        excerpt_truncated=len(body) > EXCERPT_BYTES,
        headers_truncated=len(items) > HEADERS_MAX,
    )
