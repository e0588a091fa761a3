"""A claimed attempt as the dispatcher carries it from its admission to its outcome."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from hookproof.events.subscription_events import RetryPolicy
from hookproof_subscriber import SigningKey

from ..keys.signing import Signer
from .admission import ClaimRow
from .gates import EndpointGates

__all__ = ["Job", "traceparent"]


@dataclass
class Job:
    row: ClaimRow
    attempt: int
    key: SigningKey
    key_generation: int
    version: int
    admitted_at: float
    body: bytes = b""
    signers: list[Signer] = field(default_factory=list)  # as the admission recorded them
    shadow: Signer | None = None  # a rollout's target, verified beside, never sent
    rollout_id: str | None = None
    head_hash: bytes | None = None  # the admission's hash: the outcome's expected_hash
    #: the gates holding this attempt's endpoint slot since its claim (released after the send)
    gates: EndpointGates | None = None
    #: the format's content headers (``formats.render``): Content-Type, and ce-* in binary
    content: dict[str, str] = field(default_factory=lambda: {"Content-Type": "application/json"})

    @property
    def policy(self) -> RetryPolicy:
        return self.row.retry_policy


def traceparent() -> str:
    ids = secrets.token_hex(24)  # trace id and parent id from one read of the random source
    return f"00-{ids[:32]}-{ids[32:]}-01"
