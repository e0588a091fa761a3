"""The pool's parked connections (:class:`IdleConnections`): one record per connection, taken
per origin last-released first, evicted oldest first, ``first`` counted as they come and go."""

from __future__ import annotations

import ipaddress
from typing import Any

from hookproof.engine.egress.pool import ConnectionFacts, IdleConnections, PooledConnection

A = ("https", "a.example", 443, 1)
B = ("https", "b.example", 443, 1)


def _pooled(origin: tuple[str, str, int, int], *, recurring: bool = True) -> PooledConnection:
    facts = ConnectionFacts(
        origin=origin,
        peer=(ipaddress.ip_address("192.0.2.1"), 443),
        peer_text="192.0.2.1",
        certificate=None,
        opened_at=0.0,
        last_used=0.0,
        recurring=recurring,
    )
    conn: Any = object()  # only its identity is used: the key of its record
    return PooledConnection(conn, facts)


def test_taken_per_origin_last_released_first_and_evicted_oldest_first() -> None:
    idle = IdleConnections()
    a1, b1, a2 = _pooled(A), _pooled(B), _pooled(A)
    for p in (a1, b1, a2):
        idle.park(p)
    assert len(idle) == 3 and idle.oldest() is a1
    assert idle.take(A) is a2
    assert idle.snapshot() == [a1, b1]
    idle.remove(a1)
    assert idle.take(A) is None
    assert idle.oldest() is b1 and idle.take(B) is b1 and len(idle) == 0


def test_first_counts_the_parked_connections_of_sites_that_are_not_recurring() -> None:
    idle = IdleConnections()
    once, again = _pooled(A, recurring=False), _pooled(B)
    idle.park(once)
    idle.park(again)
    assert idle.first == 1 and once.first and not again.first
    idle.remove(once)
    idle.remove(once)  # not parked any more: nothing changes
    assert idle.first == 0 and not once.first and len(idle) == 1
    idle.park(once)
    assert idle.take(A) is once and idle.first == 0
    idle.park(once)
    idle.clear()
    assert idle.first == 0 and len(idle) == 0 and idle.take(A) is None
