"""A small authoritative DNS server (dnslib) on 127.0.0.1, UDP and TCP on one port, whose
answers the campaign changes while the engine runs. TTL 0: nothing may be cached."""

from __future__ import annotations

import asyncio
import ipaddress
import struct

from dnslib import AAAA, QTYPE, RCODE, RR, SOA, A, DNSRecord

__all__ = ["DnsServer"]


class DnsServer:
    def __init__(self, port: int) -> None:
        self.port = port
        self.records: dict[str, list[str]] = {}
        self.queries = 0
        self._udp: asyncio.DatagramTransport | None = None
        self._tcp: asyncio.Server | None = None

    def answer(self, data: bytes) -> bytes:
        request = DNSRecord.parse(data)
        name = str(request.q.qname).rstrip(".").lower()
        qtype = QTYPE[request.q.qtype]
        self.queries += 1
        reply = request.reply()
        values = self.records.get(name)
        if values is None:
            reply.header.rcode = RCODE.NXDOMAIN
        else:
            for text in values:
                ip = ipaddress.ip_address(text)
                if qtype == "A" and ip.version == 4:
                    reply.add_answer(RR(name, QTYPE.A, rdata=A(text), ttl=0))
                elif qtype == "AAAA" and ip.version == 6:
                    reply.add_answer(RR(name, QTYPE.AAAA, rdata=AAAA(ip.exploded), ttl=0))
        if not reply.rr:
            zone = name.split(".", 1)[-1] or name
            soa = SOA("ns." + zone, "hostmaster." + zone, (1, 0, 0, 0, 0))
            reply.add_auth(RR(zone, QTYPE.SOA, ttl=0, rdata=soa))
        return reply.pack()

    async def start(self) -> DnsServer:
        loop = asyncio.get_running_loop()
        server = self

        class Udp(asyncio.DatagramProtocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                self.transport = transport

            def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
                self.transport.sendto(server.answer(data), addr)  # type: ignore[attr-defined]

        async def tcp(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                while True:
                    (size,) = struct.unpack("!H", await reader.readexactly(2))
                    out = server.answer(await reader.readexactly(size))
                    writer.write(struct.pack("!H", len(out)) + out)
                    await writer.drain()
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            finally:
                writer.close()

        self._udp, _ = await loop.create_datagram_endpoint(Udp, local_addr=("127.0.0.1", self.port))
        self._tcp = await asyncio.start_server(tcp, "127.0.0.1", self.port)
        return self

    async def close(self) -> None:
        if self._udp is not None:
            self._udp.close()
        if self._tcp is not None:
            self._tcp.close()
            await self._tcp.wait_closed()
