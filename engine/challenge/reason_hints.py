"""What to do about the reason codes :mod:`.disclosure`'s first table leaves out: the drift
reasons, the rest of the challenge's checks, the egress, broker and relay codes (pure data).

With it every ``lastReason`` a subscription can show and every ``lastCode`` a delivery can show
has a ``lastReasonDetail`` / ``lastCodeDetail`` a person can act on (a test keeps it so)."""

from __future__ import annotations

from typing import Final

__all__ = ["MORE_HINTS"]

_RESUME = "resume the subscription (POST /v1/subscriptions/{id}/resume: it is challenged again)"
_SCHEMA = "(schemas/challenge.md; the SDKs answer challenges)"

MORE_HINTS: Final[dict[str, str]] = {
    # drift (DESIGN.md 5): what a later connection saw against what the challenge pinned
    "dns_rebinding_denied": (
        "the endpoint's host name now resolves to an address the engine may not reach"
        f" (private, loopback or reserved): nothing was sent. Fix its DNS, then {_RESUME}"
    ),
    "address_set_changed": (
        "the host now resolves to other addresses than the challenge pinned: recorded for an"
        " HTTPS endpoint (deliveries continue); a broker is never followed to new addresses"
        f" (its connection carries credentials), so {_RESUME}"
    ),
    "certificate_issuer_changed": (
        "the endpoint's TLS certificate now comes from another issuer than at the challenge:"
        f" if that is expected, {_RESUME}"
    ),
    "certificate_key_changed": (
        "the endpoint's certificate has a new key from the same issuer (a renewal): recorded;"
        " deliveries continue"
    ),
    # the challenge answer's checks
    "wrong_type": f"the answer's type must be hookproof.challenge-response.v1 {_SCHEMA}",
    "malformed_response": f"the answer must be a JSON object {_SCHEMA}",
    "field_missing": f"the answer must echo all seven of the challenge's fields {_SCHEMA}",
    "unexpected_field": (
        f"the answer has a field the challenge response does not define {_SCHEMA}"
    ),
    "response_replayed": "the answer repeats one already used: answer each challenge once",
    # the egress (HTTPS)
    "egress_invalid_url": "the endpoint URL cannot be sent to as written: register it again",
    "egress_refused_scheme": (
        "only https:// endpoints are sent to (a local http:// receiver: hookproof listen)"
    ),
    "egress_proxy_failed": (
        "the operator's forward proxy (HOOKPROOF_EGRESS_PROXY) did not open the tunnel: the"
        " operator log has its answer; retried"
    ),
    "connection_reset": (
        "the endpoint closed the connection before answering (a crash, a proxy's limit?); retried"
    ),
    "protocol_error": "the answer was not valid HTTP/1.1: check the server or proxy in front",
    "response_too_large": "the answer was larger than the engine reads: answer with less",
    "auth_unavailable": (
        "the endpoint's authentication (an OAuth2 token, a client certificate) could not be had:"
        " check its settings (PATCH auth); retried"
    ),
    # brokers (DESIGN.md 13)
    "broker_nack": (
        "the broker would not take the message (a negative confirmation): check the queue's or"
        " stream's limits; retried"
    ),
    "confirm_timeout": (
        "the broker did not confirm in time (HOOKPROOF_REQUEST_TIMEOUT): it may have the"
        " message; retried with the same message id"
    ),
    "connection_lost": (
        "the connection to the broker ended before its confirmation: it may have the message;"
        " retried with the same message id"
    ),
    "destination_plain_not_allowed": (
        "plain amqp:// or nats:// only towards an exact HOOKPROOF_EGRESS_ALLOW pair: use"
        " amqps:// or tls://, or ask the operator to allow the pair"
    ),
    "jetstream_wrong_stream": (
        "another stream than the destination names takes the subject: fix the destination's"
        " stream or the streams' subjects"
    ),
    "jetstream_error": (
        "JetStream refused the message: check the stream's limits and the user's permissions"
    ),
    # the relay (hookproof listen)
    "relay_detached": (
        "the hookproof listen session ended before it reported: retried when one attaches again"
    ),
    "relay_report_timeout": (
        "hookproof listen did not report in time: does the local receiver answer within 10 s?"
    ),
    "relay_local_unreachable": (
        "hookproof listen could not connect to the local receiver: is it running at --to?"
    ),
    "relay_local_failed": (
        "hookproof listen reached the local receiver but got no complete answer within 10 s"
    ),
    "relay_report_invalid": (
        "hookproof listen sent a report the engine could not read: use the engine's version"
    ),
}
