"""The ``nats`` kind's registration (entry point ``hookproof.destinations: nats``)."""

from __future__ import annotations

from hookproof.schemas.destinations import NATS_DEFAULT_PORTS

from ..brokers.kind import BROKER_FIELDS, build
from ..kind import FieldSpec, KindSpec

__all__ = ["KIND"]

KIND = KindSpec(
    name="nats",
    summary="NATS JetStream: published on a subject, the stream's acknowledgement as evidence",
    build=build,
    fields=(
        *BROKER_FIELDS,
        FieldSpec("subject", description="the subject every message is published on"),
        FieldSpec("stream", description="the stream that must acknowledge it"),
    ),
    evidence=("jetstream_ack",),
    signs_own_form=True,
    schemes=frozenset(NATS_DEFAULT_PORTS),
)
