"""Events of a bulk replay (``replay-<id>``, issue 54): who asked for which search, how many
deliveries it selected, and how it ended. Each delivery it replays gets its own
``delivery.replay_requested`` naming the replay (``replay_id``, and the metadata's
``causation_id``)."""

from __future__ import annotations

from .catalogue import Event

__all__ = [
    "REPLAY_EVENT_TYPES",
    "ReplayCancelled",
    "ReplayFinished",
    "ReplayStarted",
    "replay_stream_id",
]


class ReplayStarted(Event, frozen=True, kw_only=True, tag="replay.started"):
    """A replay began: ``query_digest`` is the sha-256 of the search's canonical JSON
    (``query`` the search itself: filters and conditions, never a secret), ``count`` the
    deliveries it selected, ``by`` who asked (``tenant:<id>`` or ``portal:<sessionId>``),
    ``consumer_id`` the portal session's consumer it is confined to."""

    replay_id: str
    tenant_id: str
    query_digest: str
    query: dict[str, object]
    count: int
    rate_per_second: float
    by: str
    consumer_id: str | None = None
    at: str


class ReplayCancelled(Event, frozen=True, kw_only=True, tag="replay.cancelled"):
    """Cancelled by ``by``: ``replayed`` and ``failed`` before it stopped; ``cancelled`` were
    never touched."""

    replay_id: str
    by: str
    replayed: int
    failed: int
    cancelled: int
    at: str


class ReplayFinished(Event, frozen=True, kw_only=True, tag="replay.finished"):
    """Every selected delivery was reached: ``replayed``, or ``failed`` (could not be
    replayed when reached, e.g. in flight or already replayed)."""

    replay_id: str
    replayed: int
    failed: int
    at: str


REPLAY_EVENT_TYPES = ("replay.started", "replay.cancelled", "replay.finished")


def replay_stream_id(replay_id: str) -> str:
    """The stream of one bulk replay: ``replay-<replayId>``."""
    return f"replay-{replay_id}"
