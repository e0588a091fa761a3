"""What a broker peer may send, counted as the bytes arrive (DESIGN.md section 13, issue 46).

A broker is a peer like an HTTP endpoint: nothing it announces is believed before it is
counted. The readers here are pure (bytes in, a :class:`PeerLimit` out) and sit in front of
the library's buffer (:mod:`.net` feeds them every chunk the socket gives before the library's
``StreamReader`` sees it), so a refused frame is never buffered:

- :class:`AmqpFrames`: each AMQP 0-9-1 frame's announced size (the 7-byte header) against
  ``frame_max``; a larger frame is ``broker_frame_too_large`` on its header; the server's
  ``Connection.Tune`` proposal lowered to our ``frame_max`` (what the library then accepts);
- :class:`NatsLines`: each NATS control line against its bound (``INFO`` may be longer) and each
  ``MSG``/``HMSG`` payload's announced size against ``max_payload``;
- :class:`ByteBudget`: the bytes a connection may receive in all, granted per exchange (a
  handshake allowance, then so much per publish): ``broker_budget_exceeded`` past it.

:class:`BrokerLimits` holds the numbers and the deadlines of each step.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Final

__all__ = [
    "AmqpFrames",
    "BrokerLimits",
    "ByteBudget",
    "LimitCode",
    "NatsLines",
    "PeerLimit",
]

_AMQP_HEADER: Final = 7  # type (1), channel (2), size (4); the body and 0xCE follow
_TUNE: Final = (10).to_bytes(2, "big") + (30).to_bytes(2, "big")  # Connection.Tune


class LimitCode(enum.StrEnum):
    """Why a broker connection was ended by the engine (stable reason codes)."""

    FRAME_TOO_LARGE = "broker_frame_too_large"
    BUDGET_EXCEEDED = "broker_budget_exceeded"
    HANDSHAKE_TIMEOUT = "broker_handshake_timeout"
    TLS_HANDSHAKE_TIMEOUT = "tls_handshake_timeout"


@dataclass(frozen=True, slots=True)
class BrokerLimits:
    """The bounds of every broker connection (one set per engine).

    Sizes are bytes; deadlines seconds. ``handshake_s`` bounds each protocol step after the
    socket and TLS (AMQP ``Connection.Start`` to ``Connection.OpenOk``, ``Channel.Open`` with
    ``Confirm.Select``; NATS ``INFO``, ``CONNECT`` and the first ``PONG``); the publish and its
    confirmation are bounded by the publisher's ``timeout_s``."""

    #: the largest AMQP frame read (RabbitMQ's default ``frame_max``: 128 KiB)
    amqp_frame_max: int = 131_072
    #: the largest NATS payload read (the NATS server's default ``max_payload``: 1 MiB)
    nats_max_payload: int = 1_048_576
    #: the longest NATS control line read (nats-server's own limit: 4 KiB)
    nats_control_line: int = 4_096
    #: the longest NATS ``INFO`` line (a cluster's ``connect_urls`` make it long)
    nats_info_line: int = 65_536
    #: what a connection may receive before its first publish (handshake, heartbeats)
    budget_base: int = 1_048_576
    #: what each publish adds to the connection's budget, beyond the message's own size (an
    #: AMQP ``basic.return`` carries the message back)
    budget_per_publish: int = 65_536
    handshake_s: float = 5.0
    tls_handshake_s: float = 5.0


class PeerLimit(Exception):
    """A broker peer went past a bound: ``code`` (:class:`LimitCode`) and ``detail``."""

    def __init__(self, code: LimitCode, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


class ByteBudget:
    """Bytes a connection may still receive: ``spend`` raises past it, ``grant`` adds."""

    def __init__(self, allowance: int) -> None:
        self.left = allowance
        self.received = 0

    def grant(self, n: int) -> None:
        self.left += n

    def spend(self, n: int) -> None:
        self.received += n
        self.left -= n
        if self.left < 0:
            raise PeerLimit(
                LimitCode.BUDGET_EXCEEDED,
                f"the broker sent {self.received} bytes, past the connection's budget",
            )


class AmqpFrames:
    """Follows the AMQP 0-9-1 frame boundaries of a byte stream and refuses, on its header,
    any frame announced larger than ``frame_max``. The server's ``Connection.Tune`` is passed
    on with its ``frame_max`` lowered to ours (the library echoes the proposal in
    ``Connection.Tune-Ok``, so the maximum negotiated with the broker is ours). A server
    answering the protocol header with its own (``AMQP...``: a version mismatch) is left to
    the library."""

    def __init__(self, frame_max: int) -> None:
        self.frame_max = frame_max
        self._header = bytearray()
        self._left = 0  # bytes of the current frame still to come (body and end octet)
        self._pre = bytearray()  # whole frames are read until the Tune (each within bounds)
        self._tuned = False
        self._started = False
        self._passthrough = False

    def feed(self, data: bytes) -> bytes:
        """*data* checked, as the library is to read it (the Tune lowered)."""
        if self._tuned or self._passthrough:
            self._follow(data)
            return data
        self._pre += data
        out = bytearray()
        while len(self._pre) >= _AMQP_HEADER:
            if not self._started and self._pre.startswith(b"AMQP"):
                self._passthrough = True  # the library reports the protocol mismatch
                break
            size = self._announced(self._pre)
            self._started = True
            end = _AMQP_HEADER + size + 1
            if len(self._pre) < end:
                return bytes(out)
            frame = self._pre[:end]
            del self._pre[:end]
            if frame[0] == 1 and frame[1:3] == b"\0\0" and frame[7:11] == _TUNE:
                proposed = int.from_bytes(frame[13:17], "big")
                if proposed == 0 or proposed > self.frame_max:  # 0: no limit proposed
                    frame[13:17] = self.frame_max.to_bytes(4, "big")
                self._tuned = True
                out += frame
                break
            out += frame
        if self._tuned or self._passthrough:
            rest = bytes(self._pre)
            self._pre.clear()
            if self._tuned:
                self._follow(rest)
            out += rest
        return bytes(out)

    def _announced(self, header: bytes | bytearray) -> int:
        size = int.from_bytes(header[3:7], "big")
        if size > self.frame_max:
            raise PeerLimit(
                LimitCode.FRAME_TOO_LARGE,
                f"the broker announced a frame of {size} bytes (frame_max {self.frame_max})",
            )
        return size

    def _follow(self, data: bytes) -> None:
        i, n = 0, len(data)
        while i < n and not self._passthrough:
            if self._left:
                take = min(self._left, n - i)
                self._left -= take
                i += take
                continue
            take = min(_AMQP_HEADER - len(self._header), n - i)
            self._header += data[i : i + take]
            i += take
            if len(self._header) < _AMQP_HEADER:
                return
            size = self._announced(self._header)
            self._header.clear()
            self._left = size + 1


_NATS_SIZED: Final = re.compile(rb"^(MSG|HMSG)\s", re.IGNORECASE)


class NatsLines:
    """Follows the NATS protocol of a byte stream (server to client): control lines bounded
    (``INFO`` by ``info_line``, any other by ``control_line``), ``MSG``/``HMSG`` payloads by
    their announced size against ``max_payload``."""

    def __init__(self, *, max_payload: int, control_line: int, info_line: int) -> None:
        self.max_payload = max_payload
        self.control_line = control_line
        self.info_line = info_line
        self._line = bytearray()
        self._left = 0  # payload bytes (and CRLF) of the current message still to come

    def feed(self, data: bytes) -> bytes:
        """*data*, checked."""
        self._follow(data)
        return data

    def _follow(self, data: bytes) -> None:
        i, n = 0, len(data)
        while i < n:
            if self._left:
                take = min(self._left, n - i)
                self._left -= take
                i += take
                continue
            end = data.find(b"\n", i)
            chunk = data[i:] if end < 0 else data[i : end + 1]
            self._line += chunk
            i += len(chunk)
            bound = self.info_line if self._line[:4].upper() == b"INFO" else self.control_line
            if len(self._line) > bound:
                raise PeerLimit(
                    LimitCode.FRAME_TOO_LARGE,
                    f"the broker sent a control line longer than {bound} bytes",
                )
            if end < 0:
                return
            self._left = self._payload(bytes(self._line))
            self._line.clear()

    def _payload(self, line: bytes) -> int:
        """The bytes a ``MSG``/``HMSG`` line announces after it (0 for any other line)."""
        if not _NATS_SIZED.match(line):
            return 0
        try:
            size = int(line.split()[-1])
        except (ValueError, IndexError):
            return 0  # the library reports a malformed line
        if size < 0 or size > self.max_payload:
            raise PeerLimit(
                LimitCode.FRAME_TOO_LARGE,
                f"the broker announced a message of {size} bytes (max_payload {self.max_payload})",
            )
        return size + 2
