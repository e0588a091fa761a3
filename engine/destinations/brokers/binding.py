"""A broker destination as a subscription binds it (``SubscriptionConfig.destination``) and
back (pure). The config is what events carry: bound fields, URL, URI, digests and the sealed
credentials' id, never a credential."""

from __future__ import annotations

import ipaddress
from typing import Any

from hookproof.events.subscription_events import DestinationConfig

from ..fields import KindDestination
from .spec import Destination

__all__ = [
    "BOUND_DESTINATION_FIELDS",
    "bound_view",
    "config_of",
    "destination_of",
    "kind_config_of",
    "view_of",
]

#: the members whose change is a new generation (DESIGN.md 13); ``credentials_id`` is not one
#: (the same credentials sealed again keep their digest)
BOUND_DESTINATION_FIELDS = (
    "type",
    "scheme",
    "host",
    "port",
    "vhost",
    "exchange",
    "routing_key",
    "subject",
    "stream",
    "credentials_digest",
    "fields",
)


def config_of(
    dest: Destination, credentials_id: str | None, credentials_digest: str | None
) -> DestinationConfig:
    return DestinationConfig(
        type=dest.type,
        scheme=dest.scheme,
        host=dest.host,
        port=dest.port,
        url=dest.url,
        uri=dest.uri,
        digest=dest.digest,
        vhost=dest.vhost,
        exchange=dest.exchange,
        routing_key=dest.routing_key,
        subject=dest.subject,
        stream=dest.stream,
        credentials_id=credentials_id,
        credentials_digest=credentials_digest,
    )


def kind_config_of(
    dest: KindDestination, digest: str, credentials_id: str | None, credentials_digest: str | None
) -> DestinationConfig:
    """The config of an installed kind's destination: its URI, its public members."""
    return DestinationConfig(
        type=dest.kind,
        scheme=dest.scheme,
        host=dest.host,
        port=dest.port or 0,
        url=dest.uri,
        uri=dest.uri,
        digest=digest,
        credentials_id=credentials_id,
        credentials_digest=credentials_digest,
        fields=dict(dest.public),
    )


def bound_view(cfg: DestinationConfig) -> tuple[Any, ...]:
    """The bound members, comparable: equal views are the same binding."""
    return tuple(getattr(cfg, name) for name in BOUND_DESTINATION_FIELDS)


def destination_of(cfg: DestinationConfig) -> Destination:
    """The :class:`Destination` a publisher takes, from the bound config."""
    try:
        ip: Any = ipaddress.ip_address(cfg.host)
    except ValueError:
        ip = None
    return Destination(
        cfg.type,
        cfg.scheme,
        cfg.host,
        cfg.port,
        cfg.url,
        cfg.uri,
        cfg.digest,
        ip,
        vhost=cfg.vhost,
        exchange=cfg.exchange,
        routing_key=cfg.routing_key,
        subject=cfg.subject,
        stream=cfg.stream,
    )


def view_of(cfg: DestinationConfig) -> dict[str, Any]:
    """How the API shows a destination: no credential, only its digest."""
    out: dict[str, Any] = {"type": cfg.type, "url": cfg.url, "uri": cfg.uri}
    if cfg.fields is not None:  # an installed kind: its public members as checked
        out = {"type": cfg.type, **cfg.fields, "uri": cfg.uri}
    elif cfg.type == "amqp":
        out.update(exchange=cfg.exchange, routingKey=cfg.routing_key)
    elif cfg.type == "nats":
        out.update(subject=cfg.subject, stream=cfg.stream)
    out["destinationDigest"] = cfg.digest
    out["credentialsDigest"] = cfg.credentials_digest
    return out
