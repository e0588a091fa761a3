"""The transformation's typed values: its bounds, its input, and its result (an ``Output`` or
a ``Failure`` with a stable kind). Pure: no wasmtime here."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from hookproof.errors import HookproofError

__all__ = [
    "TRANSFORMATION_FAILED",
    "Bounds",
    "Digests",
    "Failure",
    "FailureKind",
    "Output",
    "Result",
    "TransformInput",
    "TransformationFailed",
]

#: the stable reason code of every failure (the kind says which)
TRANSFORMATION_FAILED = "transformation_failed"


class FailureKind(StrEnum):
    """Why a transformation failed; stable names, kept in the evidence."""

    THROW = "throw"  # the script threw (message and line are the script's)
    SYNTAX = "syntax"  # the code does not parse, or defines no function handler(webhook)
    FUEL = "fuel"  # the instruction budget ran out
    MEMORY = "memory"  # the heap, the linear memory or the stack ran out
    TIMEOUT = "timeout"  # the wall-clock cap
    OUTPUT_TOO_LARGE = "output_too_large"
    INVALID_OUTPUT = "invalid_output"  # not the webhook object, or a field of the wrong shape


@dataclass(frozen=True, slots=True)
class Bounds:
    """The sandbox's bounds. Fuel is wasmtime's count of WebAssembly operators (the 500 M
    default is about 40 ms of CPU for a JavaScript endless loop, bench/results/
    s15_transform.json; an ordinary run uses about 1 M); the memory cap is the whole linear
    memory, the heap cap QuickJS's own allocator limit inside it."""

    fuel: int = 500_000_000
    memory_bytes: int = 64 * 1024 * 1024
    heap_bytes: int = 32 * 1024 * 1024
    timeout_s: float = 1.0
    output_bytes: int = 1024 * 1024
    code_bytes: int = 64 * 1024
    message_chars: int = 500


@dataclass(frozen=True, slots=True)
class TransformInput:
    """What ``handler(webhook)`` receives, and the run's fixed time and seed (so a replay of
    the same input is byte-identical). ``url`` is the endpoint URL's path (and query)."""

    payload: Any
    event_type: str
    url: str
    method: str = "POST"
    now_ms: int = 0
    seed: bytes = b"\0" * 16


@dataclass(frozen=True, slots=True)
class Digests:
    """Hex sha-256 of the code's UTF-8 bytes, of the canonical input document and of the
    canonical output document (None when the run failed)."""

    code: str
    input: str
    output: str | None


@dataclass(frozen=True, slots=True)
class Output:
    """The transformed delivery: ``payload`` is canonical JSON, the bytes to sign and send."""

    payload: bytes
    method: str
    url: str
    cancelled: bool
    digests: Digests
    fuel_used: int


@dataclass(frozen=True, slots=True)
class Failure:
    """A failed run: the kind, the script's message and line where it gave them (bounded)."""

    kind: FailureKind
    message: str
    line: int | None
    digests: Digests
    fuel_used: int

    @property
    def code(self) -> str:
        return TRANSFORMATION_FAILED

    def to_error(self) -> TransformationFailed:
        return TransformationFailed(self.message, kind=self.kind, line=self.line)


Result = Output | Failure


class TransformationFailed(HookproofError):
    """A transformation that failed, as an error for the API (problem+json, 422)."""

    code = TRANSFORMATION_FAILED
    status = 422
    title = "Transformation failed"

    def __init__(self, detail: str, *, kind: FailureKind, line: int | None) -> None:
        super().__init__(detail, kind=kind.value, line=line)
        self.kind = kind
        self.line = line
