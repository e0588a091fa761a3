"""The pinned egress transport over real HTTPS (trustme) and a real DNS server (dnslib)."""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import socket

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from hookproof.config import Settings
from hookproof.engine.egress import FAILURE_CODES, EgressPolicy, EgressTransport, Outcome
from hookproof.engine.egress import adapter as adapter_mod

from .conftest import close_after_request, respond

BODY = b'{"type":"t","eventId":"e1"}'


def _spki(pem: bytes) -> str:
    cert = x509.load_pem_x509_certificate(pem)
    der = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return hashlib.sha256(der).hexdigest()


async def test_2xx_through_dns_name_with_exact_allowance(
    dns, make_server, make_transport, pki, socket_guard
):
    server = await make_server(respond(204, b""))
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(
        f"https://HOOKS.test:{server.port}/in?x=1", BODY, {"Content-Type": "application/json"}
    )
    assert result.ok and result.code is None and result.outcome is Outcome.RESPONSE
    assert result.status == 204
    assert result.url == f"https://hooks.test:{server.port}/in?x=1"
    assert result.peer_address == "127.0.0.1" and result.peer_port == server.port
    assert result.resolved == ("127.0.0.1",)
    assert result.request_started and result.request_written
    assert result.allowance_used
    assert result.spki_sha256 == _spki(pki.cert.cert_chain_pems[0].bytes())
    assert result.certificate is not None and "trustme" in result.certificate.issuer
    t = result.timings
    assert t.resolved is not None and t.connected is not None and t.response_headers is not None
    assert t.resolved <= t.connected <= t.response_headers <= t.total
    (req,) = server.requests
    assert (req.method, req.target, req.body) == ("POST", "/in?x=1", BODY)
    assert req.headers["host"] == f"hooks.test:{server.port}"
    assert req.headers["content-type"] == "application/json"
    assert req.headers["accept-encoding"] == "identity"
    assert ("hooks.test", "A", "udp") in dns.queries
    assert socket_guard.connects_to(server.port) == 1


async def test_ip_literal_with_exact_allowance(make_server, make_transport, dns):
    server = await make_server()
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}", BODY)
    assert result.ok and result.body == b"ok" and result.url.endswith("/")
    assert dns.queries == []  # literals are vetted, not resolved


async def test_allowance_is_exact_pair_not_address(make_server, make_transport, socket_guard):
    server = await make_server()
    transport = make_transport(allow=(("127.0.0.1", server.port + 1),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.outcome is Outcome.REFUSED and result.code == "egress_refused_address"
    assert socket_guard.attempts == [] and server.connections == 0


async def test_ipv6_loopback_allowance(make_server, make_transport):
    try:
        server = await make_server(host="::1")
    except OSError:
        pytest.skip("no IPv6 loopback here")
    transport = make_transport(allow=(("::1", server.port),))
    result = await transport.post(f"https://[::1]:{server.port}/", BODY)
    assert result.ok and result.peer_address == "::1"


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
async def test_redirect_is_failure_and_never_followed(
    status, dns, make_server, make_transport, socket_guard
):
    target = await make_server()
    dns.records["hooks-b.test"] = ["127.0.0.1"]
    location = f"https://hooks-b.test:{target.port}/stolen"
    source = await make_server(respond(status, b"", {"Location": location}))
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", source.port), ("127.0.0.1", target.port)))
    result = await transport.post(f"https://hooks.test:{source.port}/", BODY)
    assert result.outcome is Outcome.REDIRECT and result.code == "redirect" and not result.ok
    assert result.status == status and result.location == location
    assert target.connections == 0 and socket_guard.connects_to(target.port) == 0
    assert ("hooks-b.test", "A", "udp") not in dns.queries


@pytest.mark.parametrize("chunked", [False, True])
async def test_body_over_bound(chunked, make_server, make_transport):
    server = await make_server(respond(200, b"x" * 5000, chunked=chunked))
    transport = make_transport(allow=(("127.0.0.1", server.port),), max_response_bytes=4096)
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.code == "response_too_large" and not result.ok
    assert result.status == 200 and result.outcome is Outcome.RESPONSE
    assert len(result.body) <= 4096


async def test_body_at_bound_is_fine(make_server, make_transport):
    server = await make_server(respond(200, b"y" * 4096, chunked=True))
    transport = make_transport(allow=(("127.0.0.1", server.port),), max_response_bytes=4096)
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.ok and result.body == b"y" * 4096


async def test_no_automatic_decompression(make_server, make_transport):
    packed = gzip.compress(b'{"ok":true}')
    server = await make_server(respond(200, packed, {"Content-Encoding": "gzip"}))
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.ok and result.body == packed and result.header("content-encoding") == "gzip"


async def test_slow_responder_past_timeout_is_unknown(make_server, make_transport):
    server = await make_server(respond(200, b"late", delay=5))
    transport = make_transport(allow=(("127.0.0.1", server.port),), total_timeout_s=0.5)
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.code == "response_timeout" and result.status is None
    assert result.request_written and result.outcome is Outcome.UNKNOWN
    assert server.requests[0].body == BODY
    assert 0.4 < result.timings.total < 2.0


async def test_server_closes_after_reading_request_is_unknown(make_server, make_transport):
    server = await make_server(close_after_request)
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.code == "connection_reset" and result.outcome is Outcome.UNKNOWN
    assert result.request_written and result.status is None
    assert server.requests[0].body == BODY


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_connect_refused_is_not_sent(make_transport, socket_guard):
    port = _closed_port()
    transport = make_transport(allow=(("127.0.0.1", port),))
    result = await transport.post(f"https://127.0.0.1:{port}/", BODY)
    assert result.code == "connect_failed" and result.outcome is Outcome.NOT_SENT
    assert not result.request_written and not result.request_started
    assert socket_guard.connects_to(port) == 1


async def test_connect_timeout_is_not_sent(make_transport):
    # a listener whose accept queue is full never completes the handshake: a TLS-level stall
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(0)
        port = listener.getsockname()[1]
        transport = make_transport(allow=(("127.0.0.1", port),), connect_timeout_s=0.3)
        result = await transport.post(f"https://127.0.0.1:{port}/", BODY)
    assert result.code == "connect_timeout" and result.outcome is Outcome.NOT_SENT
    assert not result.request_written


async def test_tls_name_mismatch(dns, make_server, make_transport, pki):
    other = pki.ca.issue_cert("other.example")
    server = await make_server(cert=other)
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://hooks.test:{server.port}/", BODY)
    assert result.code == "tls_error" and result.outcome is Outcome.NOT_SENT
    assert not result.request_written and server.requests == []


async def test_untrusted_ca_without_extra_bundle(make_server, make_transport):
    server = await make_server()
    transport = make_transport(allow=(("127.0.0.1", server.port),), ca=False)
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.code == "tls_error" and server.requests == []


async def test_dns_failures(dns, make_transport, socket_guard):
    transport = make_transport(allow=(("127.0.0.1", 8443),))
    nx = await transport.post("https://missing.test/", BODY)
    assert nx.code == "dns_failure" and nx.outcome is Outcome.NOT_SENT
    dns.silent = True
    dns.records["slow.test"] = ["127.0.0.1"]
    slow = await transport.post("https://slow.test:8443/", BODY)
    assert slow.code == "dns_failure" and slow.outcome is Outcome.NOT_SENT
    assert socket_guard.attempts == []


async def test_cname_chain_is_vetted_at_the_end(dns, make_server, make_transport, socket_guard):
    server = await make_server()
    dns.records["hooks.test"] = "cname:edge.hooks.test"
    dns.records["edge.hooks.test"] = ["10.1.2.3"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    refused = await transport.post(f"https://hooks.test:{server.port}/", BODY)
    assert refused.code == "egress_refused_address" and refused.resolved == ("10.1.2.3",)
    dns.records["edge.hooks.test"] = ["127.0.0.1"]
    assert (await transport.post(f"https://hooks.test:{server.port}/", BODY)).ok
    assert socket_guard.connects_to(server.port) == 1


async def test_rebinding_refused_before_any_connect(dns, make_server, make_transport, socket_guard):
    server = await make_server()
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    url = f"https://hooks.test:{server.port}/"
    first = await transport.post(url, BODY)
    assert first.ok
    pin = first.resolved
    attempts_before = len(socket_guard.attempts)

    for rebound in (["10.0.0.1"], ["127.0.0.2"], ["169.254.169.254"], ["127.0.0.1", "10.0.0.1"]):
        dns.records["hooks.test"] = rebound
        result = await transport.post(url, BODY, pin=pin)
        assert result.code == "egress_refused_address", rebound
        assert result.outcome is Outcome.REFUSED and not result.request_started
        assert result.drift is not None and result.drift.changed and result.drift.denied
        assert len(socket_guard.attempts) == attempts_before
    assert server.connections == 1


async def test_pin_drift_reported_and_enforced(dns, make_server, make_transport, socket_guard):
    server = await make_server()
    dns.records["hooks.test"] = ["127.0.0.1"]
    allow = (("127.0.0.1", server.port), ("127.0.0.3", server.port))
    transport = make_transport(allow=allow)
    url = f"https://hooks.test:{server.port}/"
    same = await transport.post(url, BODY, pin=["127.0.0.1"])
    assert same.ok and same.drift is not None and not same.drift.changed

    dns.records["hooks.test"] = ["127.0.0.3"]
    moved = await transport.post(url, BODY, pin=["127.0.0.1"], enforce_pin=True)
    assert moved.code == "egress_pin_mismatch" and moved.outcome is Outcome.REFUSED
    assert moved.drift is not None
    assert moved.drift.added == {"127.0.0.3"} and moved.drift.removed == {"127.0.0.1"}
    assert not moved.drift.denied
    assert socket_guard.connects_to(server.port) == 1


HOSTILE_LITERALS = [
    ("https://10.0.0.1/", "egress_refused_address"),
    ("https://172.16.5.4/", "egress_refused_address"),
    ("https://192.168.1.1/", "egress_refused_address"),
    ("https://127.0.0.1/", "egress_refused_address"),
    ("https://0.0.0.0/", "egress_refused_address"),
    ("https://100.64.0.1/", "egress_refused_address"),
    ("https://169.254.169.254/latest/meta-data", "egress_refused_address"),
    ("https://198.18.0.1/", "egress_refused_address"),
    ("https://240.0.0.1/", "egress_refused_address"),
    ("https://255.255.255.255/", "egress_refused_address"),
    ("https://224.0.0.1/", "egress_refused_address"),
    ("https://192.0.0.1/", "egress_refused_address"),
    ("https://[::1]/", "egress_refused_address"),
    ("https://[::]/", "egress_refused_address"),
    ("https://[::ffff:10.0.0.1]/", "egress_refused_address"),
    ("https://[::ffff:127.0.0.1]:8443/", "egress_refused_address"),
    ("https://[::ffff:a9fe:a9fe]/", "egress_refused_address"),
    ("https://[::10.0.0.1]/", "egress_refused_address"),
    ("https://[64:ff9b::a00:1]/", "egress_refused_address"),
    ("https://[64:ff9b::808:808]/", "egress_refused_address"),
    ("https://[64:ff9b:1::a00:1]/", "egress_refused_address"),
    ("https://[2002:a00:1::]/", "egress_refused_address"),
    ("https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "egress_refused_address"),
    ("https://[2001:db8::1]/", "egress_refused_address"),
    ("https://[3fff::1]/", "egress_refused_address"),
    ("https://[fc00::1]/", "egress_refused_address"),
    ("https://[fd00:ec2::254]/", "egress_refused_address"),
    ("https://[fe80::1]/", "egress_refused_address"),
    ("https://[fec0::1]/", "egress_refused_address"),
    ("https://[ff02::1]/", "egress_refused_address"),
    ("https://[100::1]/", "egress_refused_address"),
    ("https://0x7f000001/", "egress_refused_address"),
    ("https://0177.0.0.1/", "egress_refused_address"),
    ("https://2130706433/", "egress_refused_address"),
    ("https://127.1/", "egress_refused_address"),
    ("https://0x7f.0.0.1/", "egress_refused_address"),
    ("https://10.0.0.1./", "egress_refused_address"),
    ("https://\uff11\uff10\uff0e\uff10\uff0e\uff10\uff0e\uff11/", "egress_refused_address"),
    ("https://localhost/", "egress_refused_address"),
    ("https://api.localhost/", "egress_refused_address"),
    ("http://hooks.test/", "egress_refused_scheme"),
    ("ftp://hooks.test/", "egress_refused_scheme"),
    ("https://hooks.test:8080/", "egress_refused_port"),
    ("https://8.8.8.8:22/", "egress_refused_port"),
    ("https://user:pw@hooks.test/", "egress_invalid_url"),
    ("https://[fe80::1%25eth0]/", "egress_invalid_url"),
    ("https://hooks.test/#frag", "egress_invalid_url"),
]


@pytest.mark.parametrize(("url", "code"), HOSTILE_LITERALS)
async def test_hostile_urls_refused_without_a_socket(url, code, make_transport, socket_guard, dns):
    transport = make_transport()
    result = await transport.post(url, BODY)
    assert result.code == code and result.outcome is Outcome.REFUSED
    assert socket_guard.attempts == [] and dns.queries == []


HOSTILE_NAMES = [
    ["10.0.0.1"],
    ["192.168.0.10"],
    ["169.254.169.254"],
    ["100.100.100.200"],
    ["127.0.0.1"],
    ["0.0.0.0"],
    ["::1"],
    ["fd00::5"],
    ["fe80::1"],
    ["::ffff:10.0.0.1"],
    ["::ffff:127.0.0.1"],
    ["64:ff9b::a00:1"],
    ["2002:a00:1::"],
    ["2001::1"],
    ["8.8.8.8", "10.0.0.1"],
    ["93.184.215.14", "::1"],
    ["2606:4700::1111", "fc00::1"],
]


@pytest.mark.parametrize("answers", HOSTILE_NAMES, ids=lambda a: "+".join(a))
async def test_names_resolving_to_denied_ranges_refused(answers, dns, make_transport, socket_guard):
    dns.records["evil.test"] = answers
    transport = make_transport()
    result = await transport.post("https://evil.test/", BODY)
    assert result.code == "egress_refused_address" and result.outcome is Outcome.REFUSED
    assert set(result.resolved) == set(answers)
    assert socket_guard.attempts == []


async def test_mixed_allowed_and_denied_answers_refused(
    dns, make_server, make_transport, socket_guard
):
    server = await make_server()
    dns.records["hooks.test"] = ["127.0.0.1", "10.9.9.9"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://hooks.test:{server.port}/", BODY)
    assert result.code == "egress_refused_address"
    assert socket_guard.attempts == [] and server.connections == 0


async def test_public_answer_on_unlisted_port_refused(dns, make_transport, socket_guard):
    dns.records["hooks.test"] = ["8.8.8.8"]
    transport = make_transport(allow=(("127.0.0.1", 9999),))
    result = await transport.post("https://hooks.test:9999/", BODY)
    assert result.code == "egress_refused_port" and socket_guard.attempts == []


async def test_socket_guard_is_the_last_line(
    dns, make_server, make_transport, socket_guard, monkeypatch
):
    """A buggy resolver handing out an unvetted address is stopped at socket creation."""
    server = await make_server()
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))

    async def buggy(self, host, port=0, family=0):
        return [
            {
                "hostname": host,
                "host": "127.0.0.9",
                "port": port,
                "family": socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST,
            }
        ]

    monkeypatch.setattr(adapter_mod.VettedResolver, "resolve", buggy)
    result = await transport.post(f"https://hooks.test:{server.port}/", BODY)
    assert result.code == "egress_refused_address" and result.outcome is Outcome.REFUSED
    assert socket_guard.attempts == [] and server.connections == 0


async def test_connector_refuses_requests_without_vetting():
    """Outside ``post`` (no per-request state) the resolver and the socket guard refuse."""
    with pytest.raises(OSError):
        await adapter_mod.VettedResolver().resolve("hooks.test", 443)
    with pytest.raises(OSError):
        adapter_mod.guarded_socket(
            (socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", ("127.0.0.1", 443))
        )


@pytest.mark.solo  # timing across processes: after the parallel part, alone (Makefile)
async def test_concurrent_requests_do_not_share_vetting(
    dns, make_server, make_transport, socket_guard
):
    good = await make_server()
    dns.records["hooks.test"] = ["127.0.0.1"]
    dns.records["evil.test"] = ["127.0.0.1", "10.0.0.7"]
    transport = make_transport(allow=(("127.0.0.1", good.port),))
    urls = [
        f"https://hooks.test:{good.port}/{i}"
        if i % 2 == 0
        else f"https://evil.test:{good.port}/{i}"
        for i in range(20)
    ]
    results = await asyncio.gather(*(transport.post(u, BODY) for u in urls))
    for i, result in enumerate(results):
        if i % 2 == 0:
            assert result.ok, result
        else:
            assert result.code == "egress_refused_address", result
    assert good.connections == 10 and socket_guard.connects_to(good.port) == 10


async def test_environment_proxy_ignored(make_server, make_transport, monkeypatch):
    monkeypatch.setenv("HTTPS_PROXY", "http://10.66.66.66:3128")
    monkeypatch.setenv("https_proxy", "http://10.66.66.66:3128")
    server = await make_server()
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://127.0.0.1:{server.port}/", BODY)
    assert result.ok and result.peer_address == "127.0.0.1"


async def test_failure_codes_are_declared():
    assert {
        "egress_refused_address",
        "egress_refused_port",
        "egress_refused_scheme",
        "dns_failure",
        "connect_timeout",
        "connect_failed",
        "tls_error",
        "response_timeout",
        "connection_reset",
        "response_too_large",
        "redirect",
    } <= FAILURE_CODES


async def test_closed_transport_refuses_use(make_transport):
    transport: EgressTransport = make_transport()
    await transport.close()
    with pytest.raises(RuntimeError):
        await transport.post("https://hooks.test/", BODY)


async def test_dns_over_tcp_after_truncation(dns, make_server, make_transport):
    """A truncated UDP answer makes the resolver retry over TCP; vetting is unchanged."""
    server = await make_server()
    dns.truncate_udp = True
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    assert (await transport.post(f"https://hooks.test:{server.port}/", BODY)).ok
    dns.records["hooks.test"] = ["10.0.0.1"]
    refused = await transport.post(f"https://hooks.test:{server.port}/", BODY)
    assert refused.code == "egress_refused_address"
    assert ("hooks.test", "A", "tcp") in dns.queries


async def test_idn_host_resolved_and_verified_as_a_label(dns, make_server, make_transport, pki):
    server = await make_server(cert=pki.ca.issue_cert("xn--bcher-kva.test"))
    dns.records["xn--bcher-kva.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(f"https://B\u00fccher.test:{server.port}/", BODY)
    assert result.ok and result.host == "xn--bcher-kva.test"
    assert server.requests[0].headers["host"] == f"xn--bcher-kva.test:{server.port}"


async def test_framing_headers_belong_to_the_transport(make_server, make_transport):
    server = await make_server()
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    result = await transport.post(
        f"https://127.0.0.1:{server.port}/",
        BODY,
        {
            "Host": "internal.example",
            "Content-Length": "1",
            "Transfer-Encoding": "chunked",
            "X-Custom": "kept",
        },
    )
    assert result.ok
    headers = server.requests[0].headers
    assert headers["host"] == f"127.0.0.1:{server.port}"
    assert headers["content-length"] == str(len(BODY)) and "transfer-encoding" not in headers
    assert headers["x-custom"] == "kept" and server.requests[0].body == BODY


async def test_total_deadline_covers_dns_and_request(dns, make_transport):
    dns.silent = True
    dns.records["slow.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", 8443),), dns_timeout_s=5, total_timeout_s=0.4)
    result = await transport.post("https://slow.test:8443/", BODY)
    assert result.code == "dns_failure" and result.timings.total < 1.5


async def test_evidence_is_json_and_names_denied_addresses(dns, make_server, make_transport):
    import json

    server = await make_server()
    dns.records["hooks.test"] = ["127.0.0.1"]
    transport = make_transport(allow=(("127.0.0.1", server.port),))
    url = f"https://hooks.test:{server.port}/"
    ok = await transport.post(url, BODY, pin=["127.0.0.1"])
    evidence = json.loads(json.dumps(ok.evidence()))
    assert evidence["outcome"] == "response" and evidence["status"] == 200
    assert evidence["peerAddress"] == "127.0.0.1" and evidence["spkiSha256"] == ok.spki_sha256
    assert evidence["requestWritten"] is True and evidence["bodyBytes"] == 2

    # another name (a fresh answer set for it)
    dns.records["hooks-b.test"] = ["127.0.0.1", "::ffff:192.168.1.1"]
    refused = await transport.post(f"https://hooks-b.test:{server.port}/", BODY, pin=["127.0.0.1"])
    assert refused.denied == (("::ffff:192.168.1.1", "ipv4_mapped:ipv4_private"),)
    assert refused.drift is not None and refused.drift.added == {"::ffff:192.168.1.1"}
    evidence = json.loads(json.dumps(refused.evidence()))
    assert evidence["addressDrift"]["denied"] == {"::ffff:192.168.1.1": "ipv4_mapped:ipv4_private"}


async def test_partial_dns_failure_is_a_failure(dns, make_transport, socket_guard):
    """A SERVFAIL for AAAA must not let the A answers be vetted as the whole set."""
    dns.records["half.test"] = ["127.0.0.1", "fd00::1"]
    dns.servfail.add("AAAA")
    transport = make_transport(allow=(("127.0.0.1", 8443),))
    result = await transport.post("https://half.test:8443/", BODY)
    assert result.code == "dns_failure" and result.outcome is Outcome.NOT_SENT
    assert socket_guard.attempts == []


async def test_connector_peer_check_behind_the_socket_guard(
    dns, make_server, make_transport, monkeypatch
):
    """With the resolver AND the socket guard broken, the connector still refuses to send a
    request over a connection whose peer was not vetted (defence in depth)."""
    stray = await make_server(host="127.0.0.9")
    dns.records["hooks.test"] = ["127.0.0.1"]

    async def buggy(self, host, port=0, family=0):
        return [
            {
                "hostname": host,
                "host": "127.0.0.9",
                "port": port,
                "family": socket.AF_INET,
                "proto": 0,
                "flags": socket.AI_NUMERICHOST,
            }
        ]

    def no_guard(addr_info):
        family, type_, proto, _, _ = addr_info
        sock = socket.socket(family=family, type=type_, proto=proto)
        sock.setblocking(False)
        return sock

    monkeypatch.setattr(adapter_mod.VettedResolver, "resolve", buggy)
    monkeypatch.setattr(adapter_mod, "guarded_socket", no_guard)
    transport = make_transport(allow=(("127.0.0.1", stray.port),))
    result = await transport.post(f"https://hooks.test:{stray.port}/", BODY)
    assert result.code == "egress_refused_address" and result.outcome is Outcome.REFUSED
    assert not result.request_started and stray.requests == []


async def test_raise_for_refusal(make_transport, make_server):
    from hookproof.errors import EgressRefused

    transport = make_transport()
    refused = await transport.post("https://10.0.0.1/", BODY)
    with pytest.raises(EgressRefused) as info:
        refused.raise_for_refusal()
    assert info.value.code == "egress_refused_address" and info.value.status == 422
    server = await make_server()
    ok = await make_transport(allow=(("127.0.0.1", server.port),)).post(
        f"https://127.0.0.1:{server.port}/", BODY
    )
    ok.raise_for_refusal()


async def test_policy_from_settings_uses_the_contract_names(pki, make_server, dns):
    server = await make_server()
    dns.records["hooks.test"] = ["127.0.0.1"]
    settings = Settings.from_env(
        {
            "HOOKPROOF_EGRESS_ALLOW": f"127.0.0.1:{server.port},[::1]:9443",
            "HOOKPROOF_DNS_SERVERS": f"127.0.0.1:{dns.port}",
            "HOOKPROOF_EGRESS_CA_FILE": str(pki.ca_file),
            "HOOKPROOF_CONNECT_TIMEOUT": "1.5",
            "HOOKPROOF_REQUEST_TIMEOUT": "2.5",
        }
    )
    policy = EgressPolicy.from_settings(settings)
    assert policy.allow_pairs == {("127.0.0.1", server.port), ("::1", 9443)}
    assert policy.dns_servers == (("127.0.0.1", dns.port),)
    assert policy.allowed_ports == {443, 8443}
    assert (policy.connect_timeout_s, policy.total_timeout_s) == (1.5, 2.5)
    async with EgressTransport.from_settings(settings) as transport:
        assert (await transport.post(f"https://hooks.test:{server.port}/", BODY)).ok
