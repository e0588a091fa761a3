"""The ``destination`` field of a subscription (DESIGN.md section 13): a RabbitMQ exchange
(``type: "amqp"``) or a NATS JetStream subject (``type: "nats"``) instead of an HTTPS endpoint.

Decoding is strict, as for every API body (unknown fields, wrong types refused). The semantic
checks (URL, host, port, TLS, names) are ``hookproof.engine.destinations.spec``'s, with the
stable reason codes listed here. ``credentials`` is write-only: accepted on the way in, never
echoed (:class:`DestinationOut` carries a keyed digest of it instead).
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

import msgspec

__all__ = [
    "AMQP_DEFAULT_PORTS",
    "BROKER_PORTS",
    "DESTINATION_CODES",
    "DESTINATION_TYPES",
    "NATS_DEFAULT_PORTS",
    "AmqpDestinationIn",
    "BrokerDestinationIn",
    "CredentialsIn",
    "DestinationIn",
    "DestinationOut",
    "NatsDestinationIn",
    "RelayDestinationIn",
    "RelayDestinationOut",
]

DESTINATION_TYPES: Final = ("amqp", "nats", "relay")
#: Scheme -> default port. ``amqps``/``tls`` are TLS; the plain ones need an exact allowance.
AMQP_DEFAULT_PORTS: Final = {"amqps": 5671, "amqp": 5672}
NATS_DEFAULT_PORTS: Final = {"tls": 4222, "nats": 4222}
#: The broker ports that join the egress port allow-list.
BROKER_PORTS: Final = frozenset({5671, 4222})

#: Every reason code a bad ``destination`` is refused with (``field`` names the member).
DESTINATION_CODES: Final = frozenset(
    {
        "destination_invalid",  # not an object, or a field of the wrong type or unknown
        "unknown_destination_type",  # a ``type`` no installed kind has (``installedKinds``)
        "destination_scheme_not_allowed",  # amqps/amqp for amqp, tls/nats for nats only
        "destination_plain_not_allowed",  # amqp:// or nats:// outside an exact allowance pair
        "destination_url_invalid",  # not an absolute URL of the form section 13 gives
        "destination_userinfo",  # credentials belong in ``credentials``, never in the URL
        "destination_query",  # no query (client libraries read TLS options from it)
        "destination_fragment",
        "destination_port_not_allowed",
        "destination_ip_forbidden",
        "destination_numeric_host",
        "destination_host_too_long",
        "destination_vhost_invalid",
        "destination_exchange_invalid",
        "destination_routing_key_invalid",
        "destination_subject_invalid",
        "destination_stream_invalid",
        "destination_credentials_invalid",
    }
)


class _Strict(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, rename="camel"):
    pass


class CredentialsIn(_Strict, kw_only=True):
    """Write-only broker credentials: ``username`` + ``password`` (AMQP and NATS), or for
    NATS ``token``, or ``creds`` (the text of a ``.creds`` file: JWT and NKey seed)."""

    username: Annotated[str, msgspec.Meta(max_length=1024)] | None = None
    password: Annotated[str, msgspec.Meta(max_length=1024)] | None = None
    token: Annotated[str, msgspec.Meta(max_length=4096)] | None = None
    creds: Annotated[str, msgspec.Meta(max_length=16384)] | None = None

    def __repr__(self) -> str:  # never a secret in a repr, a log line or an error
        return "CredentialsIn(<redacted>)"


class _DestinationBase(_Strict, kw_only=True, tag_field="type"):
    url: Annotated[str, msgspec.Meta(max_length=2048)]
    credentials: CredentialsIn | None = None


class AmqpDestinationIn(_DestinationBase, kw_only=True, tag="amqp"):
    """RabbitMQ (AMQP 0-9-1): ``amqps://host:5671/<vhost>`` (the vhost percent-encoded,
    ``%2F`` for ``/``; absent: ``/``), an exchange (``""`` is the default exchange) and the
    routing key every message is published with."""

    exchange: Annotated[str, msgspec.Meta(max_length=255)]
    routing_key: Annotated[str, msgspec.Meta(max_length=255)] = ""


class NatsDestinationIn(_DestinationBase, kw_only=True, tag="nats"):
    """NATS JetStream: ``tls://host:4222``, the subject every message is published on and
    the stream that must acknowledge it."""

    subject: Annotated[str, msgspec.Meta(max_length=255)]
    stream: Annotated[str, msgspec.Meta(max_length=255)]


class RelayDestinationIn(_Strict, kw_only=True, tag_field="type", tag="relay"):
    """A development relay (``hookproof listen``, DESIGN.md section 11): no URL of its own;
    deliveries go over the WebSocket ``GET /v1/relay/{subscriptionId}`` that the listening
    CLI holds open, and the subscription's ``endpoint`` is the local ``http://`` loopback URL
    the CLI forwards to (the signatures cover it, so the local receiver verifies as in
    production). Nothing is dialled by the engine, so no address vetting applies."""


BrokerDestinationIn = AmqpDestinationIn | NatsDestinationIn
DestinationIn = AmqpDestinationIn | NatsDestinationIn | RelayDestinationIn


class DestinationOut(msgspec.Struct, kw_only=True, rename="camel", omit_defaults=True):
    """How a destination is shown: its fields as normalised, its URI without credentials
    (the signed ``@destination``), and the digests; never the credentials."""

    type: Literal["amqp", "nats"]
    url: str
    uri: str
    destination_digest: str
    exchange: str | None = None
    routing_key: str | None = None
    subject: str | None = None
    stream: str | None = None
    credentials_digest: str | None = None


class RelayDestinationOut(msgspec.Struct, kw_only=True, rename="camel"):
    """How a relay destination is shown (``{"type": "relay"}``)."""

    type: Literal["relay"] = "relay"
