"""The SSRF-safe egress transport and its address policy (DESIGN.md section 5).

The transport names are loaded lazily so that :mod:`hookproof.engine.endpoint` can import
:mod:`.addresses` without importing the transport (which imports the endpoint module).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .addresses import DENY_V4, DENY_V6, IPAddress, classify, parse_ip

if TYPE_CHECKING:
    from .transport import (
        FAILURE_CODES,
        AddressDrift,
        EgressPolicy,
        EgressResult,
        EgressTimings,
        EgressTransport,
        Outcome,
        PeerCertificate,
    )

__all__ = [
    "DENY_V4",
    "DENY_V6",
    "FAILURE_CODES",
    "AddressDrift",
    "EgressPolicy",
    "EgressResult",
    "EgressTimings",
    "EgressTransport",
    "IPAddress",
    "Outcome",
    "PeerCertificate",
    "classify",
    "parse_ip",
]

_LAZY = frozenset(__all__) - {"DENY_V4", "DENY_V6", "IPAddress", "classify", "parse_ip"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(".transport", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
