"""Pure decisions of a transformation: the canonical input document and its digests, and the
verdict on what the sandbox answered (the runner's envelope, or the bound that stopped it)."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import msgspec

from hookproof.engine.transform.model import (
    Bounds,
    Digests,
    Failure,
    FailureKind,
    Output,
    Result,
    TransformInput,
)
from hookproof.events.canonical import canonical_json, decode_json

__all__ = [
    "METHODS",
    "code_digest",
    "decide",
    "input_document",
    "seed_words",
    "stopped",
    "webhook_document",
]

#: the methods a handler may choose (the Svix contract allows POST and PUT; PATCH too here)
METHODS = frozenset({"POST", "PUT", "PATCH"})
#: a path (and query) of an absolute URL: no scheme, no authority, no fragment, no space
_PATH = re.compile(r"/(?!/)[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*")
_MAX_URL = 2048
_BOUND_MESSAGES = {
    FailureKind.FUEL: "the instruction budget ran out",
    FailureKind.TIMEOUT: "the wall-clock cap was reached",
    FailureKind.MEMORY: "the memory cap was reached",
    FailureKind.OUTPUT_TOO_LARGE: "the output is over the size cap",
}


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def code_digest(code: str) -> str:
    return _sha256(code.encode("utf-8"))


def webhook_document(inp: TransformInput) -> dict[str, Any]:
    """The object ``handler`` receives (the Svix contract's field names)."""
    return {
        "payload": inp.payload,
        "eventType": inp.event_type,
        "method": inp.method,
        "url": inp.url,
        "cancel": False,
    }


def input_document(inp: TransformInput) -> bytes:
    """Everything that decides the output besides the code: the webhook, the time, the seed."""
    return canonical_json(
        {"webhook": webhook_document(inp), "now": inp.now_ms, "seed": inp.seed.hex()}
    )


def seed_words(seed: bytes) -> tuple[int, int, int, int]:
    """The four 32-bit words of the PRNG's state, from the first 16 bytes of the seed."""
    data = hashlib.sha256(seed).digest() if len(seed) != 16 else seed
    return (
        int.from_bytes(data[0:4], "big"),
        int.from_bytes(data[4:8], "big"),
        int.from_bytes(data[8:12], "big"),
        int.from_bytes(data[12:16], "big"),
    )


def _bounded(text: str, bounds: Bounds) -> str:
    return text if len(text) <= bounds.message_chars else text[: bounds.message_chars - 1] + "…"


def stopped(bound: str, digests: Digests, fuel_used: int) -> Failure:
    """A run that a bound stopped from outside the script."""
    kind = FailureKind(bound)
    return Failure(kind, _BOUND_MESSAGES[kind], None, digests, fuel_used)


def decide(envelope: bytes, code: str, input_digest: str, bounds: Bounds, fuel_used: int) -> Result:
    """The verdict on the runner's envelope: ``{"ok": {...}}`` or ``{"error": {...}}``."""
    digests = Digests(code_digest(code), input_digest, None)
    try:
        doc = decode_json(envelope)
    except msgspec.DecodeError:
        return Failure(
            FailureKind.INVALID_OUTPUT, "the output is not JSON", None, digests, fuel_used
        )
    if not isinstance(doc, dict):
        return Failure(
            FailureKind.INVALID_OUTPUT, "the output is not an object", None, digests, fuel_used
        )
    error = doc.get("error")
    if isinstance(error, dict):
        kind = FailureKind(error.get("kind", "throw"))
        name, message = str(error.get("name") or ""), str(error.get("message") or "")
        line = error.get("line")
        text = f"{name}: {message}" if name else message
        return Failure(
            kind,
            _bounded(text, bounds),
            line if isinstance(line, int) else None,
            digests,
            fuel_used,
        )
    out = doc.get("ok")
    problem = _invalid(out)
    if problem is not None:
        return Failure(FailureKind.INVALID_OUTPUT, problem, None, digests, fuel_used)
    assert isinstance(out, dict)
    payload = canonical_json(out["payload"])
    if len(payload) > bounds.output_bytes:
        return stopped("output_too_large", digests, fuel_used)
    cancelled = bool(out.get("cancel", False))
    document = {
        "payload": out["payload"],
        "method": out["method"],
        "url": out["url"],
        "cancel": cancelled,
    }
    digests = Digests(digests.code, input_digest, _sha256(canonical_json(document)))
    return Output(payload, out["method"], out["url"], cancelled, digests, fuel_used)


def _invalid(out: Any) -> str | None:
    if not isinstance(out, dict):
        return "the handler returned no webhook object"
    if "payload" not in out:
        return "webhook.payload is missing (undefined)"
    method = out.get("method")
    if method not in METHODS:
        return f"webhook.method must be one of {', '.join(sorted(METHODS))}"
    url = out.get("url")
    if not isinstance(url, str) or len(url) > _MAX_URL or not _PATH.fullmatch(url):
        return "webhook.url must be a path (and query) starting with one /, at most 2048 characters"
    cancel = out.get("cancel", False)
    if not isinstance(cancel, bool):
        return "webhook.cancel must be true or false"
    return None
