"""A fake AMQP 0-9-1 broker on loopback speaking just enough of the protocol (pamqp frames):
the connection handshake, channels in confirm mode, ``basic.publish`` with its content, acks.

``mode`` says how it misbehaves (:data:`MODES`); ``good`` confirms every publish and records it
(:attr:`FakeAmqp.published`: what a challenge answer is read from). Changing ``mode`` applies
to connections opened after; :meth:`FakeAmqp.drop_all` ends the open ones.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any

from pamqp import commands as c
from pamqp import frame as pframe
from pamqp.body import ContentBody
from pamqp.header import ContentHeader, ProtocolHeader
from pamqp.heartbeat import Heartbeat

from .base import GIANT_SIZE, FakeServer, stream_giant

__all__ = ["MODES", "FakeAmqp", "Published"]

#: good | hang_start | hang_tune | hang_open | hang_channel | hang_confirm_select |
#: confirm_never | confirm_late | close_after_publish | giant_start | giant_confirm | endless
MODES = (
    "good",
    "hang_start",
    "hang_tune",
    "hang_open",
    "hang_channel",
    "hang_confirm_select",
    "confirm_never",
    "confirm_late",
    "close_after_publish",
    "giant_start",
    "giant_confirm",
    "endless",
)

_PROPERTIES: dict[str, Any] = {
    "product": "fake",
    "capabilities": {
        "publisher_confirms": True,
        "basic.nack": True,
        "consumer_cancel_notify": True,
        "connection.blocked": True,
    },
}


@dataclass
class Published:
    exchange: str
    routing_key: str
    properties: Any
    body: bytes

    @property
    def headers(self) -> dict[str, Any]:
        return dict(self.properties.headers or {})


@dataclass
class FakeAmqp(FakeServer):
    mode: str = "good"
    late_s: float = 3.0
    published: list[Published] = field(default_factory=list)
    #: the frame_max the broker proposes in Connection.Tune (0: no limit)
    propose_frame_max: int = 0
    #: the frame_max the client answered in Connection.Tune-Ok (the negotiated maximum)
    negotiated: int | None = None

    async def session(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        mode = self.mode
        await reader.readexactly(8)  # the protocol header
        if mode == "hang_start":
            return await self.hang()
        if mode == "giant_start":
            return await stream_giant(writer, _giant_header(0))
        writer.write(pframe.marshal(c.Connection.Start(server_properties=_PROPERTIES), 0))
        frames = _Frames(reader)
        await frames.next()  # StartOk
        if mode == "hang_tune":
            return await self.hang()
        writer.write(pframe.marshal(c.Connection.Tune(2047, self.propose_frame_max, 0), 0))
        _, tune_ok = await frames.next()
        self.negotiated = tune_ok.frame_max
        await frames.next()  # Open
        if mode == "hang_open":
            return await self.hang()
        writer.write(pframe.marshal(c.Connection.OpenOk(), 0))
        tags: dict[int, int] = {}
        pending: dict[int, tuple[c.Basic.Publish, ContentHeader | None, bytearray]] = {}
        while True:
            channel, f = await frames.next()
            if isinstance(f, c.Channel.Open):
                if mode == "hang_channel":
                    continue  # never answered
                writer.write(pframe.marshal(c.Channel.OpenOk(), channel))
            elif isinstance(f, c.Confirm.Select):
                if mode == "hang_confirm_select":
                    continue
                writer.write(pframe.marshal(c.Confirm.SelectOk(), channel))
            elif isinstance(f, c.Basic.Publish):
                pending[channel] = (f, None, bytearray())
            elif isinstance(f, ContentHeader):
                pub, _, body = pending[channel]
                pending[channel] = (pub, f, body)
                if f.body_size == 0:
                    await self._published(writer, channel, tags, pending.pop(channel))
            elif isinstance(f, ContentBody):
                pub, header, body = pending[channel]
                body += f.value
                assert header is not None
                if len(body) >= header.body_size:
                    await self._published(writer, channel, tags, pending.pop(channel))
            elif isinstance(f, c.Channel.Close):
                writer.write(pframe.marshal(c.Channel.CloseOk(), channel))
            elif isinstance(f, c.Connection.Close):
                writer.write(pframe.marshal(c.Connection.CloseOk(), 0))
                await writer.drain()
                return
            await writer.drain()

    async def _published(
        self,
        writer: asyncio.StreamWriter,
        channel: int,
        tags: dict[int, int],
        got: tuple[c.Basic.Publish, ContentHeader | None, bytearray],
    ) -> None:
        pub, header, body = got
        tags[channel] = tag = tags.get(channel, 0) + 1
        self.publishes += 1
        mode = self.mode_at_publish()
        if mode == "good":
            assert header is not None
            self.published.append(
                Published(pub.exchange, pub.routing_key, header.properties, bytes(body))
            )
        if mode == "confirm_never":
            return
        if mode == "close_after_publish":
            raise ConnectionResetError("closed between publish and confirm")
        if mode == "giant_confirm":
            await stream_giant(writer, _giant_header(channel))
            return
        if mode == "endless":
            await _endless(writer)
            return
        if mode == "confirm_late":
            await asyncio.sleep(self.late_s)
        writer.write(pframe.marshal(c.Basic.Ack(tag), channel))


class _Frames:
    """Frames from the client's byte stream."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.buf = bytearray()

    async def next(self) -> tuple[int, Any]:
        while True:
            if len(self.buf) >= 7:
                size = int.from_bytes(self.buf[3:7], "big")
                if len(self.buf) >= size + 8:
                    used, channel, f = pframe.unmarshal(bytes(self.buf[: size + 8]))
                    del self.buf[:used]
                    if isinstance(f, Heartbeat | ProtocolHeader):
                        continue
                    return channel, f
            data = await self.reader.read(65536)
            if not data:
                raise ConnectionResetError("the client left")
            self.buf += data


def _giant_header(channel: int) -> bytes:
    """A method frame header announcing :data:`GIANT_SIZE` bytes."""
    return bytes([1]) + channel.to_bytes(2, "big") + GIANT_SIZE.to_bytes(4, "big")


async def _endless(writer: asyncio.StreamWriter) -> None:
    """Frames without end, each valid and within ``frame_max`` (content for a channel the
    client does not have, which it drops)."""
    beat = pframe.marshal(ContentBody(b"x" * 65_536), 99)
    with contextlib.suppress(ConnectionError):
        while True:
            writer.write(beat)
            await writer.drain()
