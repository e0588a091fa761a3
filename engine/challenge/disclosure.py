"""What a tenant may learn about why its endpoint could not be reached.

Resolution is done with the engine's resolvers, from inside the engine's network. Telling a
tenant *which* address a name resolved to, or whether a name exists there at all (NXDOMAIN
versus a denied answer), turns registration into a probe of internal DNS. Tenants see one
code, ``endpoint_ip_forbidden``, for every such outcome; the specifics go to the operator log.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ENDPOINT_IP_FORBIDDEN",
    "redact_event_data",
    "redact_timeline",
    "tenant_addresses",
    "tenant_dead_letter_reason",
    "tenant_reason",
]

ENDPOINT_IP_FORBIDDEN = "endpoint_ip_forbidden"

#: transport codes that reveal something about the engine's view of DNS or its network
_HIDDEN = frozenset({"egress_refused_address", "dns_failure", "egress_pin_mismatch"})


#: drift reasons whose observed addresses include one the engine refused
_DENIED_DRIFT = frozenset({"dns_rebinding_denied"})


def tenant_reason(code: str | None) -> str | None:
    """The reason code a tenant sees for a transport or challenge reason ``code``."""
    return ENDPOINT_IP_FORBIDDEN if code in _HIDDEN else code


def tenant_dead_letter_reason(reason: str | None) -> str | None:
    """A dead letter's reason as its tenant sees it (``exhausted:<code>`` with the code mapped)."""
    if reason is not None and reason.startswith("exhausted:"):
        return "exhausted:" + str(tenant_reason(reason.removeprefix("exhausted:")))
    return tenant_reason(reason)


def tenant_addresses(reason: str | None, addresses: list[str]) -> tuple[list[str], int]:
    """The addresses of a drift a tenant may see, and how many were withheld."""
    if reason in _DENIED_DRIFT:
        return [], len(addresses)
    return list(addresses), 0


def redact_event_data(event_type: str, data: dict[str, Any]) -> dict[str, Any]:
    """An event's data as shown to its tenant (older events may still carry a detail)."""
    if event_type == "subscription.challenge_failed":
        data = {k: v for k, v in data.items() if k != "detail"}
        data["reason"] = tenant_reason(data.get("reason"))
    elif event_type == "subscription.drift_detected" and data.get("reason") in _DENIED_DRIFT:
        # a denied answer: the engine refused these addresses and connected to none of them
        data = dict(data)
        data["addresses"], data["addressesWithheld"] = tenant_addresses(
            data.get("reason"), list(data.get("addresses") or ())
        )
    elif event_type == "delivery.dead_lettered":
        data = {**data, "reason": tenant_dead_letter_reason(data.get("reason"))}
    elif event_type == "delivery.attempt_failed":
        data = {**data, "code": tenant_reason(data.get("code"))}
    return data


def redact_timeline(doc: dict[str, Any]) -> dict[str, Any]:
    """A timeline (``Timeline.to_json``) as its tenant sees it: hidden codes in outcomes are
    shown as ``endpoint_ip_forbidden`` (the operator's CLI audit shows them as recorded)."""

    def text(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        for code in _HIDDEN:
            value = value.replace(code, ENDPOINT_IP_FORBIDDEN)
        return value

    out = dict(doc)
    out["entries"] = [{**e, "outcome": text(e.get("outcome"))} for e in doc.get("entries", [])]
    if "deliveries" in doc:
        out["deliveries"] = [redact_timeline(d) for d in doc["deliveries"]]
    return out
