"""Per-endpoint concurrency limits and a circuit breaker (one dead endpoint never slows others).

The breaker is one transition table (``BREAKER_TRANSITIONS``) and a pure ``breaker_next``;
``observed`` reads the state at a time without changing anything (an OPEN breaker whose
cool-down has passed reads as HALF_OPEN, which admits one probe). ``EndpointGates`` holds
the in-flight counts and breakers of the endpoints that have either, and the subscriptions
held until a time (``hold``: a rate-limited subscription's bucket is empty until its next
token; the limit is the subscription's, so another subscription to the same URL is not held),
nothing else: an endpoint back to CLOSED with nothing in flight is dropped, and ``prune`` drops
idle entries.
"""

from __future__ import annotations

import enum
import time
from dataclasses import dataclass, field, replace
from typing import Final

__all__ = [
    "BREAKER_TRANSITIONS",
    "RATE_STICKY_S",
    "Breaker",
    "BreakerState",
    "EndpointGates",
    "Reservation",
    "breaker_next",
    "diagram",
    "observed",
]


class BreakerState(enum.StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"


B = BreakerState

# (state, command) -> state. ``trip``: a failure at the threshold, or any failure while not
# CLOSED; ``cool_down``: the open period has passed (applied when the state is read).
BREAKER_TRANSITIONS: Final[dict[tuple[BreakerState, str], BreakerState]] = {
    (B.CLOSED, "success"): B.CLOSED,
    (B.CLOSED, "failure"): B.CLOSED,
    (B.CLOSED, "trip"): B.OPEN,
    (B.OPEN, "success"): B.CLOSED,  # an attempt admitted before it opened came back fine
    (B.OPEN, "trip"): B.OPEN,  # re-armed for another open period
    (B.OPEN, "cool_down"): B.HALF_OPEN,
    (B.HALF_OPEN, "success"): B.CLOSED,
    (B.HALF_OPEN, "trip"): B.OPEN,  # the probe failed
}


@dataclass(frozen=True, slots=True)
class Breaker:
    state: BreakerState = B.CLOSED
    failures: int = 0
    open_until: float = 0.0


CLOSED: Final = Breaker()


def observed(b: Breaker, now: float) -> BreakerState:
    """The breaker's state at ``now`` (pure: reading it changes nothing)."""
    if b.state is B.OPEN and now >= b.open_until:
        return BREAKER_TRANSITIONS[B.OPEN, "cool_down"]
    return b.state


def diagram() -> str:
    """A Mermaid state diagram drawn from the table."""
    lines = ["stateDiagram-v2", "    [*] --> closed"]
    lines += [f"    {s} --> {d}: {c}" for (s, c), d in BREAKER_TRANSITIONS.items()]
    return "\n".join(lines)


def breaker_next(
    b: Breaker, success: bool, now: float, *, threshold: int, open_seconds: float
) -> Breaker:
    """The breaker after an attempt that counted as ``success`` or not."""
    state = observed(b, now)
    if success:
        return Breaker(BREAKER_TRANSITIONS[state, "success"])
    failures = b.failures + 1
    command = "trip" if state is not B.CLOSED or failures >= threshold else "failure"
    after = BREAKER_TRANSITIONS[state, command]
    if after is B.OPEN:
        return Breaker(after, failures, now + open_seconds)
    return replace(b, state=after, failures=failures)


@dataclass(frozen=True, slots=True)
class Reservation:
    """The room one claim holds while it runs (``EndpointGates.reserve``): ``rooms`` per
    endpoint already known to the gates (their slots counted in flight until ``settle``),
    ``blocked`` the known endpoints without room, ``others`` the room of any endpoint not
    named (the limit for the one claim holding that right, else 0), and ``held`` the
    subscriptions waiting for their rate limit's next token (their rows are not claimed)."""

    rooms: dict[str, int]
    blocked: list[str]
    others: int
    #: claim per endpoint and subscription (each pair's oldest rows, each endpoint's up to its
    #: room) even with none blocked or held: a rate-limited subscription's bucket was short
    #: within ``RATE_STICKY_S``, and its backlog must not fill a claim's scan of the due order
    #: ahead of the other subscriptions' rows
    per_endpoint: bool = False
    held: list[str] = field(default_factory=list)

    def room(self, key: str) -> int:
        return self.rooms.get(key, 0 if key in self.blocked else self.others)


#: how long after its bucket was last found short a rate-limited subscription keeps the
#: claims per endpoint and subscription (:attr:`Reservation.per_endpoint`)
RATE_STICKY_S: Final = 1.0


@dataclass
class EndpointGates:
    limit: int = 8
    failure_threshold: int = 5
    open_seconds: float = 30.0
    idle_seconds: float = 600.0  # an entry untouched this long is forgotten by ``prune``
    breakers: dict[str, Breaker] = field(default_factory=dict)
    inflight: dict[str, int] = field(default_factory=dict)
    touched: dict[str, float] = field(default_factory=dict)
    #: a running claim may take rows of endpoints not known here (the gates cannot reserve
    #: their room by name): only one claim at a time holds that right
    others_reserved: bool = False
    #: subscriptions not to claim until a time (monotonic): :meth:`hold`
    held: dict[str, float] = field(default_factory=dict)

    def hold(self, subscription_id: str, until: float) -> None:
        """Claim none of this subscription's rows until ``until`` (its rate limit's bucket is
        empty until its next token): claims leave them out by name, so its held-back backlog
        neither fills a claim nor hides other rows, at other endpoints or at the same URL."""
        self.held[subscription_id] = max(until, self.held.get(subscription_id, until))

    def room(self, key: str, now: float | None = None) -> int:
        """How many more attempts this endpoint may have in flight now."""
        now = time.monotonic() if now is None else now
        busy = self.inflight.get(key, 0)
        state = observed(self.breakers.get(key, CLOSED), now)
        if state is B.OPEN:
            return 0
        if state is B.HALF_OPEN:
            return max(0, 1 - busy)  # one probe at a time
        return max(0, self.limit - busy)

    def blocked(self, now: float | None = None) -> list[str]:
        """Endpoints not to claim for now: saturated, or breaker open (a pure read)."""
        now = time.monotonic() if now is None else now
        return [k for k in self.touched if self.room(k, now) <= 0]

    def rooms(self, now: float | None = None) -> dict[str, int]:
        """Endpoints with some but not all of their room left (a pure read): a claim takes
        at most that many of their rows; any endpoint not named here has ``limit``."""
        now = time.monotonic() if now is None else now
        out = {}
        for k in self.touched:
            n = self.room(k, now)
            if 0 < n < self.limit:
                out[k] = n
        return out

    def reserve(self, now: float | None = None) -> Reservation:
        """The room a claim may use, taken now: every known endpoint's room is counted in
        flight until :meth:`settle`, so claims running at once never share a slot; endpoints
        not known here are left to one claim at a time (``others``)."""
        now = time.monotonic() if now is None else now
        rooms: dict[str, int] = {}
        blocked: list[str] = []
        for k in self.touched:
            n = self.room(k, now)
            if n <= 0:
                blocked.append(k)
                continue
            rooms[k] = n
            self.inflight[k] = self.inflight.get(k, 0) + n
        others = 0 if self.others_reserved else self.limit
        self.others_reserved = self.others_reserved or others > 0
        for k in [k for k, until in self.held.items() if until + RATE_STICKY_S <= now]:
            del self.held[k]
        held = [k for k, until in self.held.items() if until > now]
        return Reservation(rooms, blocked, others, per_endpoint=bool(self.held), held=held)

    def settle(
        self, reservation: Reservation, taken: dict[str, int], now: float | None = None
    ) -> None:
        """End ``reservation``: ``taken`` (endpoint -> attempts admitted) stay in flight (each
        released by :meth:`release` after its send), the rest of the room is given back."""
        now = time.monotonic() if now is None else now
        for k, n in taken.items():
            if n > reservation.room(k):
                raise ValueError(f"claim took {n} of {reservation.room(k)} slots of {k}")
        for k, n in reservation.rooms.items():
            unused = n - taken.get(k, 0)
            busy = max(0, self.inflight.get(k, 0) - unused)
            if busy == 0 and self.breakers.get(k, CLOSED) == CLOSED:
                self._forget(k)
            else:
                self.inflight[k] = busy
        for k, n in taken.items():
            if k not in reservation.rooms and n > 0:
                self.acquire(k, now, n)
        if reservation.others:
            self.others_reserved = False

    def acquire(self, key: str, now: float | None = None, n: int = 1) -> None:
        self.inflight[key] = self.inflight.get(key, 0) + n
        self.touched[key] = time.monotonic() if now is None else now

    def release(self, key: str, *, success: bool, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        busy = max(0, self.inflight.get(key, 0) - 1)
        b = breaker_next(
            self.breakers.get(key, CLOSED),
            success,
            now,
            threshold=self.failure_threshold,
            open_seconds=self.open_seconds,
        )
        if b == CLOSED and busy == 0:  # nothing to remember
            self._forget(key)
            return
        self.inflight[key] = busy
        self.breakers[key] = b
        self.touched[key] = now

    def prune(self, now: float | None = None) -> int:
        """Forget endpoints with nothing in flight and untouched for ``idle_seconds``."""
        now = time.monotonic() if now is None else now
        idle = [
            k
            for k, t in self.touched.items()
            if now - t >= self.idle_seconds and not self.inflight.get(k)
        ]
        for k in idle:
            self._forget(k)
        return len(idle)

    def _forget(self, key: str) -> None:
        self.inflight.pop(key, None)
        self.breakers.pop(key, None)
        self.touched.pop(key, None)

    def states(self, now: float | None = None) -> dict[str, str]:
        """Each remembered endpoint's breaker state (a pure read)."""
        now = time.monotonic() if now is None else now
        return {k: str(observed(self.breakers.get(k, CLOSED), now)) for k in self.touched}
