"""A relay subscription's ``endpoint``: the local receiver ``hookproof listen`` forwards to.

Only ``http://`` on a loopback host (``localhost``, ``127.0.0.0/8``, ``::1``): the engine never
dials it (the relay session carries the delivery), and the CLI refuses anything else. An HTTPS
subscription's endpoint is always ``https://`` (:mod:`hookproof.engine.egress.endpoint`), so the
scheme alone tells a relay delivery from an HTTPS one wherever only the ledger row is at hand
(:func:`is_relay_endpoint`). Pure.
"""

from __future__ import annotations

import hashlib
import ipaddress
from typing import Final
from urllib.parse import urlsplit

from hookproof.errors import ValidationError
from hookproof.events.subscription_events import DestinationConfig

from ...egress.endpoint import MAX_URL_LENGTH, Endpoint

__all__ = [
    "RELAY_SCHEME",
    "is_loopback_host",
    "is_relay_endpoint",
    "is_relay_peer",
    "normalise_relay_endpoint",
    "relay_config",
    "room_key",
]

RELAY_SCHEME: Final = "http"
_FIELD: Final = "endpoint"


def _reject(code: str, detail: str) -> ValidationError:
    return ValidationError(detail, field=_FIELD, code=code)


def is_relay_endpoint(url: str) -> bool:
    """True for a relay subscription's endpoint (``http://``); never for an HTTPS one."""
    return url.startswith(f"{RELAY_SCHEME}://")


def room_key(subscription_id: str, endpoint: str, endpoint_digest: str) -> str:
    """The key a planned delivery's concurrency room and circuit breaker go by (the ledger's
    ``endpoint_digest``): an HTTPS or broker endpoint's digest (one room per real peer,
    whoever sends to it), but for a relay subscription its own: every developer's receiver
    is ``http://localhost:3000/...``, and one tenant's failing or slow receiver must never
    hold another's relayed deliveries (issue 46). The challenge still binds the endpoint's
    own digest (the subscription's config keeps it)."""
    if not is_relay_endpoint(endpoint):
        return endpoint_digest
    return hashlib.sha256(f"relay\x00{subscription_id}".encode()).hexdigest()


def is_relay_peer(peer_address: str | None) -> bool:
    """True for an attempt's peer that was a relay session (``relay:<sessionId>``)."""
    return peer_address is not None and peer_address.startswith("relay:")


def is_loopback_host(host: str) -> bool:
    """``localhost`` or a loopback address literal (brackets of IPv6 already removed)."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def normalise_relay_endpoint(url: str) -> Endpoint:
    """The canonical ``http://<loopback>[:port]/path[?query]`` or :class:`ValidationError`
    (``endpoint_relay_not_loopback``, ``endpoint_relay_scheme``, ``endpoint_invalid``)."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL_LENGTH:
        raise _reject("endpoint_invalid", "endpoint must be a URL")
    if any(ch <= " " or ch == "\x7f" or ch == "\\" for ch in url):
        raise _reject("endpoint_invalid", "endpoint contains whitespace, control or backslash")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise _reject("endpoint_invalid", "endpoint is not a valid URL") from None
    if parts.scheme.lower() != RELAY_SCHEME:
        raise _reject(
            "endpoint_relay_scheme",
            "a relay destination forwards over plain http:// to a loopback receiver",
        )
    if parts.username is not None or parts.password is not None:
        raise _reject("endpoint_userinfo", "endpoint must not carry userinfo")
    if parts.fragment or "#" in url:
        raise _reject("endpoint_fragment", "endpoint must not have a fragment")
    host = (parts.hostname or "").lower()
    if not host or not is_loopback_host(host):
        raise _reject(
            "endpoint_relay_not_loopback",
            "a relay destination forwards to a loopback receiver only "
            "(localhost, 127.0.0.1 or [::1])",
        )
    effective = port if port is not None else 80
    host_text = f"[{host}]" if ":" in host else host
    port_text = "" if effective == 80 else f":{effective}"
    path = parts.path or "/"
    canonical = f"{RELAY_SCHEME}://{host_text}{port_text}{path}"
    if parts.query:
        canonical += f"?{parts.query}"
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    ip = None if host == "localhost" else ipaddress.ip_address(host)
    return Endpoint(canonical, host, effective, path, parts.query or None, digest, ip)


def relay_config(endpoint: Endpoint) -> DestinationConfig:
    """A relay subscription's ``destination`` as its config binds it: type ``relay``, the
    local receiver as ``url`` and ``uri``, no credentials (nothing is dialled)."""
    return DestinationConfig(
        type="relay",
        scheme=RELAY_SCHEME,
        host=endpoint.host,
        port=endpoint.port,
        url=endpoint.url,
        uri=endpoint.url,
        digest=endpoint.digest,
    )
