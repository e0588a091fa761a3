"""The SSRF-safe egress transport (DESIGN.md section 5), in three pieces after httpcore:

- "is this address allowed": :mod:`.addresses` (the deny list) and :mod:`.policy` (vetting and
  drift, pure);
- "which connection serves this request": :mod:`.pool` (the pinned pool: its rules, pure,
  and the ``Connector`` that applies them);
- "how bytes move": :mod:`.adapter` (one exchange), :mod:`.context` (the per-request
  attempt), :mod:`.guard` (vetting resolver, socket guard), :mod:`.head` (the request head),
  :mod:`.connection` (one TLS connection, the no-stale-bytes rule) with its state table
  (:mod:`.machine`), :mod:`.budget` and :mod:`.reader` (the answer's byte bounds, llhttp), on
  public interfaces only; :mod:`.errors` classifies what went wrong.

:mod:`.failures` holds the failure codes and the one outcome rule; :mod:`.endpoint` normalises
the subscriber's URL; :mod:`.transport` composes the pieces.
"""

from __future__ import annotations

from .addresses import DENY_V4, DENY_V6, IPAddress, classify, format_ip, parse_ip
from .failures import FAILURE_CODES, FailureCode, Outcome, is_lost, outcome_of
from .policy import AddressDrift, AddressPolicy, Vetting, address_set
from .pool import PoolLimits, reuse_refusal
from .result import EgressResult, EgressTimings, PeerCertificate
from .transport import EgressPolicy, EgressTransport

__all__ = [
    "DENY_V4",
    "DENY_V6",
    "FAILURE_CODES",
    "AddressDrift",
    "AddressPolicy",
    "EgressPolicy",
    "EgressResult",
    "EgressTimings",
    "EgressTransport",
    "FailureCode",
    "IPAddress",
    "Outcome",
    "PeerCertificate",
    "PoolLimits",
    "Vetting",
    "address_set",
    "classify",
    "format_ip",
    "is_lost",
    "outcome_of",
    "parse_ip",
    "reuse_refusal",
]
