"""Run inside ``unshare -n`` (only loopback exists) by ``test_egress_netns.py``.

The namespace has 10.0.0.5 (private) and 93.184.215.14 (an emulated public address) on ``lo``,
TLS listeners on port 443 of both, and a dnslib server on 127.0.0.1. The transport runs with
NO allowance. Prints one JSON object: per-case results, listener connection counts and every
socket-level connect attempt the process made.
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import tempfile
from pathlib import Path
from typing import Any

import trustme

from hookproof.engine.egress import EgressPolicy, EgressTransport

from .conftest import DnsServer, TlsHttpServer, respond

PRIVATE = "10.0.0.5"
PUBLIC = "93.184.215.14"

CONNECTS: list[list[Any]] = []
_real_connect = socket.socket.connect


def _recording_connect(self: socket.socket, address: Any) -> None:
    if self.family in (socket.AF_INET, socket.AF_INET6):
        CONNECTS.append([str(address[0]), int(address[1])])
    return _real_connect(self, address)


socket.socket.connect = _recording_connect  # type: ignore[method-assign]


async def main() -> dict[str, Any]:
    ca = trustme.CA()
    names = (
        "public.test",
        "private.test",
        "mixed.test",
        "rebind.test",
        "pool.test",
        PUBLIC,
        PRIVATE,
    )
    cert = ca.issue_cert(*names)
    folder = Path(tempfile.mkdtemp(prefix="hp-netns-"))
    ca_file = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))

    import ssl

    def ctx() -> ssl.SSLContext:
        c = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        cert.configure_cert(c)
        return c

    public = await TlsHttpServer(ctx(), respond(200, b"public"), PUBLIC, 443).start()
    private = await TlsHttpServer(ctx(), respond(200, b"private"), PRIVATE, 443).start()
    # keep-alive listeners on 8443 for the pinned pool: the public one, and a private one
    # the rebound name points at
    keep = {"Connection": "keep-alive"}
    pool_public = await TlsHttpServer(
        ctx(), respond(200, b"pooled", keep), PUBLIC, 8443, keep_alive=True
    ).start()
    pool_private = await TlsHttpServer(
        ctx(), respond(200, b"private", keep), PRIVATE, 8443, keep_alive=True
    ).start()
    dns = DnsServer()
    await dns.start()
    dns.records.update(
        {
            "public.test": [PUBLIC],
            "private.test": [PRIVATE],
            "mixed.test": [PUBLIC, PRIVATE],
            "rebind.test": [PUBLIC],
            "pool.test": [PUBLIC],
        }
    )
    policy = EgressPolicy(
        dns_servers=(("127.0.0.1", dns.port),),
        ca_file=str(ca_file),
        connect_timeout_s=2.0,
        total_timeout_s=3.0,
        dns_timeout_s=0.5,
        dns_tries=1,
    )
    out: dict[str, Any] = {"cases": {}}

    def record(name: str, r: Any) -> None:
        out["cases"][name] = {
            "code": r.code,
            "outcome": r.outcome.value,
            "status": r.status,
            "peer": r.peer_address,
            "body": r.body.decode(errors="replace"),
            "allowance_used": r.allowance_used,
        }

    try:
        async with EgressTransport(policy) as transport:
            record("public_name", await transport.post("https://public.test/", b"{}"))
            record("public_literal", await transport.post(f"https://{PUBLIC}/", b"{}"))
            record("private_name", await transport.post("https://private.test/", b"{}"))
            record("private_literal", await transport.post(f"https://{PRIVATE}/", b"{}"))
            record("private_mapped", await transport.post(f"https://[::ffff:{PRIVATE}]/", b"{}"))
            record("mixed_name", await transport.post("https://mixed.test/", b"{}"))
            record("rebind_before", await transport.post("https://rebind.test/", b"{}"))
            dns.records["rebind.test"] = [PRIVATE]
            record(
                "rebind_after", await transport.post("https://rebind.test/", b"{}", pin=[PUBLIC])
            )
            # the pinned pool: connections to the public address are open and pooled when the
            # name is rebound to the private one
            url = "https://pool.test:8443/"
            warm = await asyncio.gather(
                *(transport.post(url, b"{}", pin=[PUBLIC]) for _ in range(4))
            )
            warm += [await transport.post(url, b"{}", pin=[PUBLIC]) for _ in range(4)]
            out["pool_warm"] = {
                "ok": all(r.ok for r in warm),
                "connections": pool_public.connections,
                "open": pool_public.open_connections,
                "requests": len(pool_public.requests),
            }
            dns.records["pool.test"] = [PRIVATE]
            record("pool_rebound", await transport.post(url, b"{}", pin=[PUBLIC]))
            out["pool_after"] = {
                "public_requests": len(pool_public.requests),
                "public_connections": pool_public.connections,
                "private_connections": pool_private.connections,
            }
        out["transport_connects"] = list(CONNECTS)
        out["public_connections"] = public.connections
        out["private_connections"] = private.connections
        # Control: the private listener is reachable; the transport simply never went there.
        reader, writer = await asyncio.open_connection(
            PRIVATE,
            443,
            ssl=ssl.create_default_context(cafile=str(ca_file)),
            server_hostname="private.test",
        )
        writer.write(b"POST / HTTP/1.1\r\nHost: private.test\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()
        out["control_response"] = (await reader.read()).split(b"\r\n", 1)[0].decode()
        writer.close()
        await writer.wait_closed()
        out["private_connections_after_control"] = private.connections
    finally:
        await public.close()
        await private.close()
        await pool_public.close()
        await pool_private.close()
        await dns.close()
    return out


if __name__ == "__main__":
    json.dump(asyncio.run(main()), sys.stdout)
