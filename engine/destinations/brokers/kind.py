"""What the broker kinds' registrations share: the ``destination`` fields every broker has
and the adapter factory (one :class:`~.adapter.BrokerDestination` serves both kinds)."""

from __future__ import annotations

from typing import Any

from ..context import KindContext
from ..kind import FieldSpec
from ..port import Destination
from .adapter import BrokerDestination

__all__ = ["BROKER_FIELDS", "build"]

#: ``url`` (no userinfo, query or fragment) and the write-only ``credentials``
BROKER_FIELDS = (
    FieldSpec("url", description="the broker's URL (DESIGN.md 13)"),
    FieldSpec(
        "credentials",
        type="object",
        required=False,
        secret=True,
        description="username+password, token or creds; sealed, shown as a digest",
    ),
)


def build(context: KindContext) -> Destination | None:
    """The engine's broker destination (``parts["brokers"]``); none without one."""
    brokers: Any = context.parts.get("brokers")
    return brokers if isinstance(brokers, BrokerDestination) else None
