"""The ``destination`` field: normalisation, the destination URI, stable reason codes for bad
input, and write-only credentials (pure: no broker)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from hookproof.engine.destinations.brokers.spec import (
    credentials_digest,
    destination_out,
    digest_key,
    parse_destination,
)
from hookproof.errors import ValidationError
from hookproof.schemas.destinations import DESTINATION_CODES, DestinationIn, DestinationOut
from hookproof_subscriber import amqp_destination_uri, destination_digest, nats_destination_uri

PASSWORD = "s3cret-Pa55word!"
KEY = digest_key(b"k" * 32)


def amqp(url: str = "amqps://Broker.Example.COM/%2F", **kw: Any) -> dict[str, Any]:
    return {"type": "amqp", "url": url, "exchange": "orders", "routingKey": "order.created", **kw}


def nats(url: str = "tls://nats.example.com", **kw: Any) -> dict[str, Any]:
    return {"type": "nats", "url": url, "subject": "orders.created", "stream": "ORDERS", **kw}


def test_amqp_normalised_with_uri_and_digest() -> None:
    dest, creds = parse_destination(amqp(credentials={"username": "u", "password": PASSWORD}))
    assert dest.url == "amqps://broker.example.com:5671/%2F"
    assert dest.uri == "amqps://broker.example.com:5671/%2F/orders/order.created"
    assert dest.digest == destination_digest(dest.uri)
    assert (dest.vhost, dest.exchange, dest.routing_key, dest.tls) == (
        "/",
        "orders",
        "order.created",
        True,
    )
    assert creds is not None and creds.password == PASSWORD
    assert PASSWORD not in repr(creds) and PASSWORD not in str(creds) and PASSWORD not in repr(dest)


def test_amqp_vhost_forms() -> None:
    assert parse_destination(amqp("amqps://b.example.com"))[0].vhost == "/"
    d = parse_destination(amqp("amqps://b.example.com:5671/prod%2Feu", routingKey="a/b #"))[0]
    assert d.vhost == "prod/eu"
    assert d.uri == "amqps://b.example.com:5671/prod%2Feu/orders/a%2Fb%20%23"
    assert d.uri == amqp_destination_uri(
        "amqps", "b.example.com", 5671, "prod/eu", "orders", "a/b #"
    )
    default_exchange = parse_destination(amqp(exchange="", routingKey="queue-1"))[0]
    assert default_exchange.uri.endswith("/%2F//queue-1")


def test_nats_normalised() -> None:
    dest, creds = parse_destination(nats(credentials={"token": "tok-123456"}))
    assert dest.url == "tls://nats.example.com:4222"
    assert dest.uri == "tls://nats.example.com:4222/orders.created"
    assert dest.uri == nats_destination_uri("tls", "nats.example.com", 4222, "orders.created")
    assert dest.stream == "ORDERS" and creds is not None and creds.kind == "token"
    v6 = parse_destination(nats("tls://[2001:4860::8888]:4222"))[0]
    assert v6.uri == "tls://[2001:4860::8888]:4222/orders.created"


@pytest.mark.parametrize(
    ("value", "code"),
    [
        ({"type": "kafka", "url": "x"}, "destination_invalid"),
        ({"type": "amqp", "url": "amqps://b.example.com"}, "destination_invalid"),  # no exchange
        (amqp(extra=1), "destination_invalid"),
        (amqp("https://b.example.com"), "destination_scheme_not_allowed"),
        (nats("amqps://b.example.com"), "destination_scheme_not_allowed"),
        (amqp("amqp://b.example.com/%2F"), "destination_plain_not_allowed"),
        (nats("nats://8.8.8.8:4222"), "destination_plain_not_allowed"),
        (amqp("amqps://u:p@b.example.com/%2F"), "destination_userinfo"),
        (amqp("amqps://b.example.com/%2F?no_verify_ssl=1"), "destination_query"),
        (amqp("amqps://b.example.com/%2F#x"), "destination_fragment"),
        (amqp("amqps://b.example.com:15672/%2F"), "destination_port_not_allowed"),
        (amqp("amqps://10.0.0.5/%2F"), "destination_ip_forbidden"),
        (amqp("amqps://127.0.0.1/%2F"), "destination_ip_forbidden"),
        (nats("tls://[::1]:4222"), "destination_ip_forbidden"),
        (amqp("amqps://localhost/%2F"), "destination_ip_forbidden"),
        (amqp("amqps://0x7f000001/%2F"), "destination_numeric_host"),
        (amqp("amqps://2130706433/%2F"), "destination_numeric_host"),
        (amqp("amqps:/b.example.com"), "destination_url_invalid"),
        (amqp("amqps://b.example.com/a/b"), "destination_url_invalid"),
        (amqp("amqps://b .example.com/"), "destination_url_invalid"),
        (nats("tls://nats.example.com/path"), "destination_url_invalid"),
        (amqp("amqps://b.example.com/"), "destination_vhost_invalid"),
        (amqp("amqps://b.example.com/%zz"), "destination_vhost_invalid"),
        (amqp(exchange="bad exchange"), "destination_exchange_invalid"),
        (amqp(routingKey="a\nb"), "destination_routing_key_invalid"),
        (nats(subject="orders.*"), "destination_subject_invalid"),
        (nats(subject="orders.>"), "destination_subject_invalid"),
        (nats(subject="$JS.API.STREAM.DELETE.X"), "destination_subject_invalid"),
        (nats(subject="a..b"), "destination_subject_invalid"),
        (nats(stream="ORD.ERS"), "destination_stream_invalid"),
        (nats(stream=""), "destination_stream_invalid"),
        (amqp(credentials={"username": "u"}), "destination_credentials_invalid"),
        (amqp(credentials={"token": "t"}), "destination_credentials_invalid"),
        (
            nats(credentials={"token": "t", "username": "u", "password": "p"}),
            "destination_credentials_invalid",
        ),
        (nats(credentials={"creds": "not a creds file"}), "destination_credentials_invalid"),
        (nats(credentials={"username": "u", "password": ""}), "destination_credentials_invalid"),
    ],
)
def test_bad_input_has_a_stable_code(value: dict[str, Any], code: str) -> None:
    with pytest.raises(ValidationError) as info:
        parse_destination(value)
    assert info.value.code == code
    assert code in DESTINATION_CODES
    assert str(info.value.field).startswith("destination")
    assert info.value.status == 400


def test_plain_only_to_exact_allowance_pairs() -> None:
    pairs = [("127.0.0.1", 5672)]
    dest = parse_destination(amqp("amqp://127.0.0.1:5672/%2F"), allow_pairs=pairs)[0]
    assert not dest.tls and dest.uri == "amqp://127.0.0.1:5672/%2F/orders/order.created"
    for url in ("amqp://127.0.0.1:5673/%2F", "amqp://127.0.0.2:5672/%2F"):
        with pytest.raises(ValidationError) as info:
            parse_destination(amqp(url), allow_pairs=pairs)
        assert info.value.code == "destination_plain_not_allowed"
    # a name on an allowed pair's port passes here; the connect checks every address exactly
    assert (
        parse_destination(amqp("amqp://rabbit.test:5672/%2F"), allow_pairs=pairs)[0].host
        == "rabbit.test"
    )


def test_credentials_digest_keyed_and_distinct() -> None:
    _, a = parse_destination(amqp(credentials={"username": "u", "password": PASSWORD}))
    _, b = parse_destination(amqp(credentials={"username": "u", "password": PASSWORD + "x"}))
    da, db = credentials_digest(a, KEY), credentials_digest(b, KEY)
    assert da is not None and da.startswith("hmac-sha256:") and da != db
    assert credentials_digest(a, digest_key(b"z" * 32)) != da  # keyed
    assert credentials_digest(None, KEY) is None
    dest = parse_destination(amqp(credentials={"username": "u", "password": PASSWORD}))[0]
    out = msgspec.json.encode(destination_out(dest, da))
    assert PASSWORD.encode() not in out and b'"credentialsDigest"' in out
    assert msgspec.json.decode(out, type=DestinationOut).uri == dest.uri
    assert dest.bound_fields(da)["credentialsDigest"] == da


def test_decoded_struct_never_echoes_credentials() -> None:
    raw = msgspec.convert(amqp(credentials={"username": "u", "password": PASSWORD}), DestinationIn)
    assert PASSWORD not in repr(raw)


def test_the_json_schema_agrees_on_shape() -> None:
    import json
    from pathlib import Path

    import jsonschema_rs

    path = Path(__file__).resolve().parents[2] / "schemas" / "destination.v1.schema.json"
    validator = jsonschema_rs.validator_for(json.loads(path.read_text()))
    good = [
        amqp(credentials={"username": "u", "password": PASSWORD}),
        nats(credentials={"token": "t"}),
        nats(),
    ]
    for doc in good:
        assert validator.is_valid(doc)
        parse_destination(doc)  # and the engine accepts them
    for doc in (amqp(extra=1), nats(credentials={"token": "t", "creds": "c"}), {"type": "kafka"}):
        assert not validator.is_valid(doc)
