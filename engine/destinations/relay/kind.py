"""The ``relay`` kind's registration (entry point ``hookproof.destinations: relay``):
``destination: {"type": "relay"}``, delivered through a ``hookproof listen`` session."""

from __future__ import annotations

from ..context import KindContext
from ..kind import KindSpec
from .adapter import RelayDestination
from .codes import RELAY_REPORTED
from .endpoint import is_relay_endpoint
from .exchange import RelayExchange

__all__ = ["KIND"]


def build(context: KindContext) -> RelayDestination | None:
    """Over the engine's relay hub (``parts["relay_hub"]``); none without one."""
    hub: RelayExchange | None = context.parts.get("relay_hub")
    return None if hub is None else RelayDestination(hub)


KIND = KindSpec(
    name="relay",
    summary="a development relay: the session `hookproof listen` holds open forwards it",
    build=build,
    evidence=("relay_report",),
    recognise=is_relay_endpoint,
    reported_as=RELAY_REPORTED,
    own_rooms=True,
)
