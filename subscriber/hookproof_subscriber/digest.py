"""RFC 9530 ``Content-Digest`` (``sha-256`` and ``sha-512``) over exact body bytes."""

from __future__ import annotations

import base64
import hashlib
import hmac

from http_sfv.dictionary import Dictionary
from http_sfv.item import Item

__all__ = [
    "DigestError",
    "content_digest",
    "parse_content_digest",
    "verify_content_digest",
]

_ALGORITHMS = {"sha-256": hashlib.sha256, "sha-512": hashlib.sha512}


class DigestError(ValueError):
    """The Content-Digest field is not a valid RFC 9530 Dictionary of Byte Sequences."""


def content_digest(body: bytes, algorithm: str = "sha-256") -> str:
    """Return the ``Content-Digest`` value for *body*, e.g. ``sha-256=:<base64>:``."""
    if not isinstance(body, bytes | bytearray | memoryview):
        raise TypeError("body must be bytes")
    digest = _ALGORITHMS[algorithm](bytes(body)).digest()
    return f"{algorithm}=:{base64.b64encode(digest).decode('ascii')}:"


def parse_content_digest(value: str) -> dict[str, bytes]:
    """Parse a Content-Digest field into ``{algorithm: digest bytes}``; raise DigestError."""
    try:
        parsed = Dictionary()
        parsed.parse(value.encode("ascii"))
    except (ValueError, UnicodeError, AttributeError) as exc:
        raise DigestError("Content-Digest is not a structured Dictionary") from exc
    out: dict[str, bytes] = {}
    for name, member in parsed.items():
        if not isinstance(member, Item) or type(member.value) is not bytes or member.params:
            raise DigestError(f"Content-Digest member {name!r} is not a bare Byte Sequence")
        out[name] = member.value
    return out


def verify_content_digest(value: str, body: bytes, *, required: str = "sha-256") -> bool:
    """True when every known algorithm in *value* matches *body* and *required* is present.

    Raises DigestError when *value* cannot be parsed or lacks the *required* algorithm.
    """
    members = parse_content_digest(value)
    if required not in members:
        raise DigestError(f"Content-Digest has no {required} member")
    data = bytes(body)
    for name, expected in members.items():
        func = _ALGORITHMS.get(name)
        if func is None:
            continue
        if not hmac.compare_digest(func(data).digest(), expected):
            return False
    return True
