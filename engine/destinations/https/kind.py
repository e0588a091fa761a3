"""The ``https`` kind's registration (entry point ``hookproof.destinations: https``): the
default kind, a subscription's ``endpoint`` with no ``destination`` object."""

from __future__ import annotations

from typing import Any

from ...endpoint_auth import EndpointAuth
from ..context import KindContext
from ..kind import KindSpec
from .adapter import HttpsDestination

__all__ = ["KIND"]


def build(context: KindContext) -> HttpsDestination:
    """The signed POST through the pinned egress, with the subscription's ``auth``."""
    auth: Any = context.parts.get("endpoint_auth")
    return HttpsDestination(
        context.transport,
        context.drift,
        context.subscriptions,
        auth=auth if isinstance(auth, EndpointAuth) else None,
    )


KIND = KindSpec(
    name="https",
    summary="a signed POST to the subscription's endpoint through the pinned egress",
    build=build,
    evidence=("http_response",),
    schemes=frozenset({"https"}),
    default=True,
)
