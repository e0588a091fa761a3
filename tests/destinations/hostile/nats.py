"""A fake NATS server with JetStream's publish acknowledgement, on loopback: ``INFO``,
``CONNECT``, ``PING``/``PONG``, ``SUB``, ``PUB``/``HPUB`` answered on the reply subject with a
PubAck naming the stream the publish expected (``Nats-Expected-Stream``).

``mode`` says how it misbehaves (:data:`MODES`); ``good`` acknowledges every publish and records
it (:attr:`FakeNats.published`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from dataclasses import dataclass, field

from .base import GIANT_SIZE, FakeServer, stream_giant

__all__ = ["MODES", "FakeNats", "NatsPublished"]

MODES = (
    "good",
    "hang_info",
    "hang_pong",
    "ack_never",
    "ack_late",
    "close_after_publish",
    "giant_info",
    "giant_msg",
    "endless",
)

_INFO = {
    "server_id": "FAKE",
    "server_name": "fake",
    "version": "2.10.0",
    "proto": 1,
    "headers": True,
    "max_payload": 1048576,
    "jetstream": True,
}


@dataclass
class NatsPublished:
    subject: str
    headers: dict[str, str]
    body: bytes


@dataclass
class FakeNats(FakeServer):
    late_s: float = 3.0
    published: list[NatsPublished] = field(default_factory=list)

    async def session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        mode = self.mode
        if mode == "hang_info":
            return await self.hang()
        if mode == "giant_info":  # an INFO line that never ends
            return await stream_giant(writer, b"INFO {")
        writer.write(b"INFO " + json.dumps(_INFO).encode() + b"\r\n")
        await writer.drain()
        subs: list[tuple[str, str]] = []
        seq = 0
        while True:
            line = await reader.readline()
            if not line:
                return
            parts = line.decode().split()
            if not parts:
                continue
            op = parts[0].upper()
            if op == "PING":
                if mode == "hang_pong":
                    continue
                writer.write(b"PONG\r\n")
            elif op == "SUB":
                subs.append((parts[1], parts[-1]))
            elif op in ("PUB", "HPUB"):
                size = int(parts[-1])
                hsize = int(parts[-2]) if op == "HPUB" else 0
                reply = parts[2] if len(parts) > (4 if op == "HPUB" else 3) else None
                data = await reader.readexactly(size + 2)
                headers = _headers(data[:hsize])
                body = bytes(data[hsize:size])
                if reply is None:
                    continue
                self.publishes += 1
                seq += 1
                sid = next((s for p, s in reversed(subs) if _matches(p, reply)), "1")
                await self._answer(writer, reply, sid, parts[1], headers, body, seq)
            await writer.drain()

    async def _answer(
        self,
        writer: asyncio.StreamWriter,
        reply: str,
        sid: str,
        subject: str,
        headers: dict[str, str],
        body: bytes,
        seq: int,
    ) -> None:
        mode = self.mode_at_publish()
        if mode == "good":
            self.published.append(NatsPublished(subject, headers, body))
        if mode == "ack_never":
            return
        if mode == "close_after_publish":
            raise ConnectionResetError("closed between publish and PubAck")
        if mode == "giant_msg":
            await stream_giant(writer, f"MSG {reply} {sid} {GIANT_SIZE}\r\n".encode())
            return
        if mode == "endless":
            await _endless(writer)
            return
        if mode == "ack_late":
            await asyncio.sleep(self.late_s)
        stream = headers.get("Nats-Expected-Stream", "S")
        ack = json.dumps({"stream": stream, "seq": seq}).encode()
        writer.write(f"MSG {reply} {sid} {len(ack)}\r\n".encode() + ack + b"\r\n")


def _matches(pattern: str, subject: str) -> bool:
    p, s = pattern.split("."), subject.split(".")
    if p[-1] == ">":
        p, s = p[:-1], s[: len(p) - 1]
    return len(p) == len(s) and all(a in ("*", b) for a, b in zip(p, s, strict=True))


def _headers(block: bytes) -> dict[str, str]:
    """``NATS/1.0`` header block -> dict (the last value of a repeated name)."""
    out: dict[str, str] = {}
    for raw in block.decode(errors="replace").split("\r\n")[1:]:
        name, sep, value = raw.partition(":")
        if sep:
            out[name.strip()] = value.strip()
    return out


async def _endless(writer: asyncio.StreamWriter) -> None:
    """Messages without end, each valid and within ``max_payload`` (to a subscription the
    client does not have, which it drops)."""
    many = b"MSG nobody.here 999 262144\r\n" + b"z" * 262_144 + b"\r\n"
    with contextlib.suppress(ConnectionError):
        while True:
            writer.write(many)
            await writer.drain()
