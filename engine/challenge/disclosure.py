"""What a tenant may learn about why its endpoint could not be reached.

Resolution is done with the engine's resolvers, from inside the engine's network. Telling a
tenant *which* address a name resolved to, or whether a name exists there at all (NXDOMAIN
versus a denied answer), turns registration into a probe of internal DNS. Tenants see one
code, ``endpoint_ip_forbidden``, for every such outcome; the specifics go to the operator log.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

from .reason_hints import MORE_HINTS

__all__ = [
    "EGRESS_ALLOW_SETTING",
    "ENDPOINT_IP_FORBIDDEN",
    "code_detail",
    "literal_address",
    "reason_hint",
    "redact_event_data",
    "redact_timeline",
    "tenant_addresses",
    "tenant_dead_letter_reason",
    "tenant_reason",
]

ENDPOINT_IP_FORBIDDEN = "endpoint_ip_forbidden"
#: the setting that admits one exact address and port the engine would otherwise refuse
EGRESS_ALLOW_SETTING = "HOOKPROOF_EGRESS_ALLOW"

#: transport codes that reveal something about the engine's view of DNS or its network
_HIDDEN = frozenset({"egress_refused_address", "dns_failure", "egress_pin_mismatch"})


#: drift reasons whose observed addresses include one the engine refused
_DENIED_DRIFT = frozenset({"dns_rebinding_denied", ENDPOINT_IP_FORBIDDEN})


def literal_address(endpoint: str | None) -> tuple[str, int] | None:
    """``(address, port)`` when the endpoint's host is an IP address written out (no DNS is
    involved in reaching it), else None (pure)."""
    if not endpoint:
        return None
    try:
        parts = urlsplit(endpoint)
        address = ipaddress.ip_address(parts.hostname or "")
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme, 0)
    except ValueError:
        return None
    return str(address), port


def _not_allowed(address: str, port: int) -> str:
    pair = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
    return (
        f"the endpoint's address {address} (port {port}) is not one the engine may reach"
        " (private, loopback or otherwise reserved; no DNS is involved). Where the engine runs,"
        f" {EGRESS_ALLOW_SETTING}={pair} allows exactly it (hookproof dev-endpoint prints it for"
        " a local receiver, with HOOKPROOF_EGRESS_CA_FILE); then resume the subscription"
        " (POST /v1/subscriptions/{id}/resume)"
    )


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


#: what to do about a challenge's (tenant-visible) reason: shown beside ``lastReason``
_HINTS = {
    ENDPOINT_IP_FORBIDDEN: (
        "the endpoint's host name did not resolve to an address the engine may reach: check"
        " it for a typo (a name that does not resolve is reported the same way, so tenants"
        " cannot probe the engine's DNS; the operator log has the specifics). A private or"
        " loopback receiver (development) needs HOOKPROOF_EGRESS_ALLOW=<address:port> where"
        " the engine runs, and HOOKPROOF_EGRESS_CA_FILE for its certificate"
        " (hookproof dev-endpoint prints both)"
    ),
    "egress_refused_port": (
        "the endpoint's port is not one the engine sends to (HOOKPROOF_EGRESS_PORTS, default"
        " 443,8443); HOOKPROOF_EGRESS_ALLOW=<address:port> permits one exact address and port"
    ),
    "connect_failed": "nothing accepted the connection: is the receiver running on that port?",
    "connect_timeout": "the connection was not accepted in time (HOOKPROOF_CONNECT_TIMEOUT)",
    "tls_error": (
        "the TLS handshake failed: the receiver's certificate must be valid for the host name;"
        " a private CA (development) needs HOOKPROOF_EGRESS_CA_FILE where the engine runs"
    ),
    "response_timeout": "no answer in time (HOOKPROOF_REQUEST_TIMEOUT)",
    "redirect": "the endpoint redirected; redirects are never followed: register the final URL",
    "bad_content_type": "the challenge answer must be Content-Type: application/json",
    "unexpected_proof": (
        "the answer carries a proof this subscription does not expect: a receiver that signs"
        " with a receipt key needs receiptKey in the subscription (PATCH it to add one: the"
        " endpoint is challenged again)"
    ),
    "missing_proof": (
        "the answer has no proof: an hmac-sha256 subscription needs the HMAC of the challenge"
        " body, one with a receiptKey the Ed25519 signature (schemas/challenge.md)"
    ),
    "bad_proof": "the proof does not verify: wrong secret or receipt key (schemas/challenge.md)",
    "expired": "the answer came after the challenge expired (HOOKPROOF_CHALLENGE_TTL)",
    "no_response": "the endpoint gave no answer: does the receiver answer POSTs at this path?",
    "broker_refused": (
        "the broker refused the challenge's publish: the exchange (RabbitMQ) must exist before"
        " the subscription, and the destination's user may write to it"
    ),
    "unroutable": (
        "the exchange routed the challenge to no queue: bind a queue to it for the routing key"
        " before the subscription (the challenge is read from that queue)"
    ),
    "jetstream_no_stream": (
        "no JetStream stream takes the subject: create a stream for it before the subscription"
    ),
    "relay_not_attached": (
        "no hookproof listen is attached to this relay subscription: run hookproof listen with"
        " its --to URL (deliveries wait under the retry policy meanwhile)"
    ),
    "broker_auth_failed": (
        "the broker refused the destination's credentials: PATCH the destination with a user"
        " that may connect and write"
    ),
}


def code_detail(
    shown: str | None, recorded: str | None, *, endpoint: str | None, said: str | None = None
) -> str | None:
    """``lastCodeDetail`` of a delivery: a broker's own words on its refusal (``said``; never
    for a code whose specifics tenants do not see), then what to do (pure)."""
    hint = reason_hint(shown, endpoint=endpoint)
    if said and shown == recorded:
        return said + (f"; {hint}" if hint else "")
    return hint


def reason_hint(
    reason: str | None, status: int | None = None, endpoint: str | None = None
) -> str | None:
    """One sentence on what to do about a tenant-visible challenge reason (None: no hint);
    ``endpoint``: the subscription's, so a refused literal address is named with the setting
    that would allow it (the tenant wrote that address: naming it reveals nothing)."""
    literal = literal_address(endpoint) if reason == ENDPOINT_IP_FORBIDDEN else None
    if literal is not None:
        return _not_allowed(*literal)
    if reason == "bad_status":
        answered = f"HTTP {status}" if status is not None else "a status other than 200"
        more = " (is the path right?)" if status == 404 else ""
        return (
            f"the endpoint answered the challenge with {answered}{more}; it must answer 200"
            " with the challenge response (schemas/challenge.md; the SDKs do it)"
        )
    if reason is not None and reason.endswith("_mismatch"):
        return "the answer must echo the challenge's fields unchanged (schemas/challenge.md)"
    if reason is None:
        return None
    if reason.startswith("http_") and reason[5:].isdigit():  # a delivery's answered status
        return (
            f"the endpoint answered HTTP {reason[5:]}; only a 2xx accepts a delivery: retried"
            " under the subscription's retry policy, then dead-lettered"
        )
    return _HINTS.get(reason) or MORE_HINTS.get(reason)
