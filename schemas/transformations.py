"""A subscription's ``transformation`` as written (DESIGN.md section 17)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

__all__ = ["TransformationIn", "TransformationView"]


class TransformationIn(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, rename="camel"):
    """``function handler(webhook)`` (the Svix contract) in JavaScript, run in the sandbox
    before each attempt is signed."""

    language: Literal["javascript"]
    code: Annotated[str, msgspec.Meta(min_length=1, max_length=65536)]


class TransformationView(msgspec.Struct, kw_only=True, rename="camel"):
    """A subscription's transformation as shown: the code and its digest (hex sha-256 of the
    code's UTF-8 bytes, the one each transformed attempt records)."""

    language: Literal["javascript"]
    code: str
    digest: str
