"""How old a broker message may be (DESIGN.md section 13, "Freshness").

A broker message may wait in a queue for hours; that is not a replay. Its age is measured from
the broker's own enqueue time where the broker gives one (the AMQP ``timestamp`` property,
JetStream message metadata), else from the signature's creation time, and must stay within a
window the consumer sets (default 7 days), never the HTTP profile's 300 s. Replay protection
for broker messages is the delivery id (``message_id``, ``Nats-Msg-Id``): the consumer dedupes
by it, so a redelivered message (same nonce) is not refused as a replay.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

__all__ = ["DEFAULT_MAX_AGE", "Freshness", "epoch_seconds"]

#: The default freshness window of a broker message: 7 days, in seconds.
DEFAULT_MAX_AGE = 7 * 24 * 3600


def epoch_seconds(value: datetime | float | None) -> int | None:
    """Whole Unix seconds of an enqueue time given as a timezone-aware ``datetime`` (aio-pika's
    ``message.timestamp``, nats-py's ``msg.metadata.timestamp``) or as seconds; None stays
    None. A naive ``datetime`` is read as UTC (AMQP timestamps carry no zone)."""
    if value is None:
        return None
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return int(value.timestamp())
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError("an enqueue time is a datetime or Unix seconds")
    return int(value)


@dataclass(frozen=True, slots=True)
class Freshness:
    """The age rule of one broker message: ``max_age`` seconds from ``enqueued_at`` (the
    broker's enqueue time, Unix seconds) or, without one, from the signature's creation."""

    max_age: int = DEFAULT_MAX_AGE
    enqueued_at: int | None = None

    def __post_init__(self) -> None:
        if isinstance(self.max_age, bool) or not isinstance(self.max_age, int):
            raise TypeError("max_age is whole seconds")
        if self.max_age <= 0:
            raise ValueError("max_age must be positive")

    def judge(
        self, created: int, expires: int, now: int, skew: int
    ) -> tuple[tuple[str, str] | None, int]:
        """``(problem, at)``: *problem* is ``(reason, detail)`` or None, *at* the instant the
        message is judged at (the enqueue time, else *created*; keys are checked there)."""
        at = created if self.enqueued_at is None else self.enqueued_at
        if self.enqueued_at is not None:
            if created > at + skew:
                return ("not_yet_valid", "signed after the broker's enqueue time"), at
            if expires < at - skew:
                return ("expired", "the signature had expired when the broker took it"), at
        if at > now + skew:
            return ("not_yet_valid", "the message is dated in the future"), at
        if now - at > self.max_age:
            return ("expired", f"older than the freshness window ({self.max_age} s)"), at
        return None, at
