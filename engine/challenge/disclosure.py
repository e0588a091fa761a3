"""What a tenant may learn about why its endpoint could not be reached.

Resolution is done with the engine's resolvers, from inside the engine's network. Telling a
tenant *which* address a name resolved to, or whether a name exists there at all (NXDOMAIN
versus a denied answer), turns registration into a probe of internal DNS. Tenants see one
code, ``endpoint_ip_forbidden``, for every such outcome; the specifics go to the operator log.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ENDPOINT_IP_FORBIDDEN", "redact_event_data", "tenant_reason"]

ENDPOINT_IP_FORBIDDEN = "endpoint_ip_forbidden"

#: transport codes that reveal something about the engine's view of DNS or its network
_HIDDEN = frozenset({"egress_refused_address", "dns_failure", "egress_pin_mismatch"})


#: drift reasons whose observed addresses include one the engine refused
_DENIED_DRIFT = frozenset({"dns_rebinding_denied"})


def tenant_reason(code: str | None) -> str | None:
    """The reason code a tenant sees for a transport or challenge reason ``code``."""
    return ENDPOINT_IP_FORBIDDEN if code in _HIDDEN else code


def redact_event_data(event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event's data as shown to its tenant (older events may still carry a detail)."""
    if event_type == "subscription.challenge_failed":
        data = {k: v for k, v in data.items() if k != "detail"}
        data["reason"] = tenant_reason(data.get("reason"))
    elif event_type == "subscription.drift_detected" and data.get("reason") in _DENIED_DRIFT:
        # a denied answer: the engine refused these addresses and connected to none of them
        data = dict(data)
        data["addressesWithheld"] = len(data.get("addresses") or ())
        data["addresses"] = []
    return data
