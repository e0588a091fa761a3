"""Safety of the broker path: a broker host that resolves to a private address is refused
before any socket (the SSRF rules of section 5, through the broker publishers), plain schemes
only to exact allowance pairs, drift from the pinned set refused, and credentials never in a
log line, an error or the evidence (real brokers; the egress tests' socket guard is on)."""

from __future__ import annotations

import dataclasses
import json
import logging
import secrets
from typing import Any

import pytest
from structlog.testing import capture_logs

from hookproof.engine.cli.embedded_nats import EmbeddedNats
from hookproof.engine.destinations.brokers.evidence import BrokerOutcome
from hookproof.engine.destinations.brokers.spec import parse_destination
from tests.egress.conftest import DnsServer, SocketGuard

from .conftest import Rabbit, message_for


def _dest(kind: str, host: str, port: int, scheme: str | None = None, **extra: Any) -> Any:
    pairs = extra.pop("allow_pairs", ())
    if kind == "amqp":
        doc = {
            "type": "amqp",
            "url": f"{scheme or 'amqps'}://{host}:{port}/%2F",
            "exchange": "x",
            "routingKey": "k",
        }
    else:
        doc = {
            "type": "nats",
            "url": f"{scheme or 'tls'}://{host}:{port}",
            "subject": "a.b",
            "stream": "S",
        }
    doc.update(extra)
    return parse_destination(doc, allow_pairs=pairs)


@pytest.mark.parametrize("kind", ["amqp", "nats"])
@pytest.mark.parametrize(
    "answers",
    [
        ["10.0.0.5"],
        ["127.0.0.1"],
        ["93.184.215.14", "192.168.1.7"],
        ["::1"],
        ["fd00::5"],
        ["::ffff:10.0.0.1"],
    ],
)
async def test_a_private_answer_is_refused_before_any_socket(
    kind: str, answers: list[str], dns: DnsServer, socket_guard: SocketGuard, make_publishers: Any
) -> None:
    port = 5671 if kind == "amqp" else 4222
    dns.records["broker.test"] = answers
    dest, _ = _dest(kind, "broker.test", port)
    pubs = make_publishers(dns_servers=(("127.0.0.1", dns.port),))
    ev = await pubs.publish(dest, message_for(dest))
    assert ev.outcome is BrokerOutcome.REFUSED and ev.code == "egress_refused_address", (
        ev.evidence()
    )
    assert not ev.published and ev.peer_address is None
    assert set(ev.resolved) == {str(a) if ":" not in a else a for a in ev.resolved}
    assert socket_guard.connects_to(port) == 0  # refused by the policy, not by the guard


async def test_loopback_allowance_is_exact(
    dns: DnsServer, socket_guard: SocketGuard, nats_server: EmbeddedNats, make_publishers: Any
) -> None:
    # the server's own pair is allowed; the same address on another port is not
    dns.records["broker.test"] = ["127.0.0.1"]
    dest, _ = _dest(
        "nats",
        "broker.test",
        nats_server.port,
        scheme="nats",
        allow_pairs=[("127.0.0.1", nats_server.port)],
    )
    other = make_publishers(
        ("127.0.0.1", nats_server.port + 1), dns_servers=(("127.0.0.1", dns.port),)
    )
    ev = await other.publish(dest, message_for(dest))
    assert ev.outcome is BrokerOutcome.REFUSED and ev.code == "egress_refused_address"
    assert socket_guard.connects_to(nats_server.port) == 0
    # plain nats:// to a name: every answer must be an exact pair
    dns.records["broker.test"] = ["127.0.0.1", "127.0.0.2"]
    both = make_publishers(("127.0.0.1", nats_server.port), dns_servers=(("127.0.0.1", dns.port),))
    mixed = await both.publish(dest, message_for(dest))
    assert mixed.code in ("egress_refused_address", "destination_plain_not_allowed")
    assert not mixed.published


async def test_drift_from_the_pinned_addresses_is_refused(
    dns: DnsServer, nats_server: EmbeddedNats, make_publishers: Any
) -> None:
    dns.records["broker.test"] = ["127.0.0.1"]
    pair = ("127.0.0.1", nats_server.port)
    dest, _ = _dest("nats", "broker.test", nats_server.port, scheme="nats", allow_pairs=[pair])
    pubs = make_publishers(pair, dns_servers=(("127.0.0.1", dns.port),))
    ev = await pubs.publish(dest, message_for(dest), pinned=["127.0.0.9"])
    assert ev.outcome is BrokerOutcome.REFUSED and ev.code == "egress_pin_mismatch"


def _all_text(ev: Any, logs: list[dict[str, Any]], caplog: pytest.LogCaptureFixture) -> str:
    parts = [json.dumps(ev.evidence()), ev.detail, repr(ev)]
    err: BaseException | None = ev.error
    while err is not None:
        parts += [str(err), repr(err)]
        err = err.__cause__ or err.__context__
    parts += [json.dumps(entry, default=str) for entry in logs]
    parts += [r.getMessage() for r in caplog.records]
    parts += [str(r.args) for r in caplog.records]
    return "\n".join(parts)


async def test_amqp_credentials_never_in_logs_or_errors(
    rabbit: Rabbit, make_publishers: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    dest, creds = rabbit.destination("amq.direct", "nowhere")
    secret = f"pw-{secrets.token_hex(12)}"
    wrong = dataclasses.replace(creds, password=secret)
    pubs = make_publishers((rabbit.host, rabbit.port))
    with capture_logs() as logs:
        bad = await pubs.publish(dest, message_for(dest), wrong)
        good = await pubs.publish(dest, message_for(dest), creds)
    assert bad.outcome is BrokerOutcome.REJECTED and bad.code == "broker_auth_failed"
    assert good.code == "unroutable"  # logged in; nothing is bound to amq.direct "nowhere"
    text = _all_text(bad, logs, caplog) + _all_text(good, logs, caplog)
    assert secret not in text
    assert creds.password not in json.dumps(good.evidence())


async def test_nats_credentials_never_in_logs_or_errors(
    tmp_path: Any, make_publishers: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    password = f"pw-{secrets.token_hex(12)}"
    server = EmbeddedNats(tmp_path / "nats", users={"app": password})
    server.start()
    try:
        pair = (server.host, server.port)
        url = server.url
        wrong_secret = f"wrong-{secrets.token_hex(12)}"
        dest, creds = parse_destination(
            {
                "type": "nats",
                "url": url,
                "subject": "a.b",
                "stream": "S",
                "credentials": {"username": "app", "password": wrong_secret},
            },
            allow_pairs=[pair],
        )
        _, good_creds = parse_destination(
            {
                "type": "nats",
                "url": url,
                "subject": "a.b",
                "stream": "S",
                "credentials": {"username": "app", "password": password},
            },
            allow_pairs=[pair],
        )
        pubs = make_publishers(pair)
        with capture_logs() as logs:
            bad = await pubs.publish(dest, message_for(dest), creds)
            good = await pubs.publish(dest, message_for(dest), good_creds)
        assert bad.outcome is BrokerOutcome.REJECTED and bad.code == "broker_auth_failed", (
            bad.evidence()
        )
        assert good.code == "jetstream_no_stream"  # logged in; no stream declared
        text = _all_text(bad, logs, caplog) + _all_text(good, logs, caplog)
        assert wrong_secret not in text and password not in text
    finally:
        server.cleanup()
