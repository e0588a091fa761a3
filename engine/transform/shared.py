"""The process's one transformation sandbox (its pool of worker threads), built on first use,
for the API's checks when a transformation is written and for the dispatcher's runs."""

from __future__ import annotations

import threading

from hookproof.engine.transform.sandbox import Sandbox

__all__ = ["shared_sandbox"]

_SANDBOX: Sandbox | None = None
_LOCK = threading.Lock()


def shared_sandbox() -> Sandbox:
    """The process's sandbox under the default bounds (docs/transformations.md)."""
    global _SANDBOX
    with _LOCK:
        if _SANDBOX is None:
            _SANDBOX = Sandbox()
        return _SANDBOX
