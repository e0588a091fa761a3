"""Canonical JSON: the one encoding whose bytes are stored, hashed and signed."""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = ["canonical_json", "decode_json"]

_ENCODER = msgspec.json.Encoder(order="sorted")


def canonical_json(value: Any) -> bytes:
    """Compact JSON with object keys sorted; the same value always gives the same bytes."""
    return _ENCODER.encode(value)


def decode_json(data: bytes) -> Any:
    return msgspec.json.decode(data)
