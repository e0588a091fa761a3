"""Which connection serves this request: the pinned pool's rule (pure; DESIGN.md section 5).

A connection is opened only to an address vetted for the request that opens it. A pooled
connection carries a later request only for the same origin (scheme, host, port, TLS
settings) and only when its peer address is in that later request's vetted set, while it is
younger than ``max_age_s``, idle no longer than ``idle_s`` and has carried fewer than
``max_requests`` requests; otherwise it is closed, never used. :func:`reuse_refusal` is that
rule; the adapter's :class:`.adapter.Connector` applies it to every pooled connection, and
hands one out only if nothing arrived on it while it was idle (:mod:`.wire`).
"""

from __future__ import annotations

from dataclasses import dataclass

from .addresses import IPAddress
from .result import PeerCertificate

__all__ = [
    "ConnectionFacts",
    "Origin",
    "PoolLimits",
    "over_idle_bound",
    "reuse_refusal",
    "site_is_recurring",
]

#: (scheme, host, port, TLS settings id): what a connection may be reused for.
Origin = tuple[str, str, int, int]


@dataclass(frozen=True, slots=True)
class PoolLimits:
    """Bounded life of a pooled connection. ``enabled=False``: one connection per request.

    ``max_idle``: idle connections kept at most (all origins together), which bounds the
    memory many subscriber sites can take (:func:`over_idle_bound` says which one goes).
    ``keep_recent_s``: an idle connection used this recently is kept rather than the one just
    released (sites cycling through more connections than the bound keep most of theirs,
    where closing the longest idle would close each one just before its next use).
    ``max_idle_first``: of those, idle connections of sites that are not recurring
    (:func:`site_is_recurring`) kept at most: a fan-out to thousands of sites that each get
    one request would otherwise fill the whole bound with connections closed unused at their
    idle timeout (~45 KiB each).
    """

    idle_s: float = 15.0
    max_age_s: float = 60.0
    max_requests: int = 1000
    enabled: bool = True
    max_idle: int = 512
    keep_recent_s: float = 5.0
    max_idle_first: int = 128


@dataclass(slots=True)
class ConnectionFacts:
    """What is known of one connection: recorded once, when it was opened."""

    origin: Origin
    peer: tuple[IPAddress, int]
    peer_text: str
    certificate: PeerCertificate | None
    opened_at: float
    last_used: float
    requests: int = 0
    recurring: bool = True  # its last request had an earlier one to its origin (site_is_recurring)


def reuse_refusal(
    conn: ConnectionFacts,
    origin: Origin,
    vetted: frozenset[tuple[IPAddress, int]],
    now: float,
    limits: PoolLimits,
) -> str | None:
    """Why ``conn`` must not carry this request (``None``: it may)."""
    if not limits.enabled:
        return "pool_disabled"
    if conn.origin != origin:
        return "other_origin"
    if conn.peer not in vetted:
        return "peer_not_vetted"
    if now - conn.opened_at >= limits.max_age_s:
        return "max_age"
    if now - conn.last_used > limits.idle_s:
        return "idle"
    if conn.requests >= limits.max_requests:
        return "max_requests"
    return None


def over_idle_bound(longest_idle_used_at: float, now: float, limits: PoolLimits) -> str:
    """With one idle connection over ``limits.max_idle``: ``"longest_idle"`` (close the
    connection idle the longest) unless that one was used within ``keep_recent_s``, then
    ``"released"`` (close the connection just released instead)."""
    if now - longest_idle_used_at < limits.keep_recent_s:
        return "released"
    return "longest_idle"


def site_is_recurring(
    previous_request_at: float | None, now: float, active_origins: int, limits: PoolLimits
) -> bool:
    """Whether the connection of this request to an origin is worth keeping idle up to
    ``max_idle``: the origin had an earlier request within ``idle_s`` (it is likely to send
    again before the connection idles out), and no more than twice ``max_idle`` origins had
    requests within ``idle_s`` (``active_origins``; with more, the pool could keep fewer
    than half of them, and a sweep over them would find most connections closed anyway)."""
    return (
        previous_request_at is not None
        and now - previous_request_at <= limits.idle_s
        and active_origins <= 2 * limits.max_idle
    )
