"""A destination kind from outside hookproof: each attempt is one ``XADD`` to a Redis stream,
written by hand in RESP over the engine's vetted connection; the evidence is the entry id
Redis assigned. Endpoint: ``redis://<host>:<port>/<stream>`` (plain TCP: only to an exact
``HOOKPROOF_EGRESS_ALLOW`` pair, as the engine's rules say)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any, Final
from urllib.parse import urlsplit

from hookproof.engine.destinations.connect import ConnectRefused, VettedConnector
from hookproof.engine.destinations.context import KindContext, KindSecrets, Target
from hookproof.engine.destinations.kind import FieldSpec, KindSpec
from hookproof.engine.destinations.port import Evidence, SignedMessage
from hookproof.engine.egress.failures import Outcome

__all__ = ["KIND", "RedisStreamDestination"]

#: a reply longer than this is no XADD answer
MAX_REPLY: Final = 4096
TIMEOUT_S: Final = 5.0


def command(*parts: bytes) -> bytes:
    """One RESP array of bulk strings."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        out.append(b"$%d\r\n%s\r\n" % (len(part), part))
    return b"".join(out)


async def read_reply(reader: asyncio.StreamReader) -> tuple[bool, str]:
    """(ok, text): a bulk string (the entry id) or an error line."""
    line = await reader.readuntil(b"\r\n")
    kind, rest = line[:1], line[1:-2]
    if kind == b"$":
        size = int(rest)
        if size < 0 or size > MAX_REPLY:
            return False, "bad reply"
        data = await reader.readexactly(size + 2)
        return True, data[:-2].decode("utf-8", "replace")
    if kind == b"-":
        return False, rest.decode("utf-8", "replace")[:200]
    return False, "unexpected reply"


class RedisStreamDestination:
    """The port for ``redis``: XADD <stream> * body <body> headers <json>."""

    def __init__(self, connect: VettedConnector, secrets: KindSecrets | None) -> None:
        self.connect = connect
        self.secrets = secrets

    async def deliver(self, message: SignedMessage, target: Target) -> Evidence:
        url = urlsplit(target.endpoint)
        stream = url.path.lstrip("/")
        if url.scheme != "redis" or not url.hostname or not stream:
            return Evidence(outcome=Outcome.REFUSED, code="redis_endpoint_invalid")
        try:
            opened = await self.connect.open(url.hostname, url.port or 6379, tls=False)
        except ConnectRefused as exc:
            return Evidence(outcome=exc.outcome, code=exc.code)
        headers = json.dumps(dict(message.headers), sort_keys=True).encode()
        sealed = await self.secrets.of(target) if self.secrets is not None else {}
        try:
            if sealed.get("password"):  # AUTH first: its answer must be +OK
                opened.writer.write(command(b"AUTH", str(sealed["password"]).encode()))
                await opened.writer.drain()
                async with asyncio.timeout(TIMEOUT_S):
                    line = await opened.reader.readuntil(b"\r\n")
                if line != b"+OK\r\n":
                    return Evidence(
                        outcome=Outcome.NOT_SENT,
                        code="redis_auth_failed",
                        peer_address=opened.peer_address,
                        broker={"redis": {"stream": stream, "error": "auth"}},
                    )
            opened.writer.write(
                command(b"XADD", stream.encode(), b"*", b"body", message.body, b"headers", headers)
            )
            await opened.writer.drain()
            async with asyncio.timeout(TIMEOUT_S):
                ok, text = await read_reply(opened.reader)
        except (OSError, TimeoutError, asyncio.IncompleteReadError, ValueError) as exc:
            return Evidence(
                outcome=Outcome.UNKNOWN,
                code="redis_no_answer",
                request_written=True,
                peer_address=opened.peer_address,
                broker={"redis": {"stream": stream, "error": type(exc).__name__}},
            )
        finally:
            opened.writer.close()
        return Evidence(
            outcome=Outcome.RESPONSE,
            code=None if ok else "redis_refused",
            request_written=True,
            peer_address=opened.peer_address,
            broker={"redis": {"stream": stream, "entryId" if ok else "error": text}},
        )


def endpoint(fields: Mapping[str, Any]) -> str:
    """A subscription's deliveries go to ``<url>/<stream>``."""
    return f"{str(fields['url']).rstrip('/')}/{fields['stream']}"


def build(context: KindContext) -> RedisStreamDestination:
    return RedisStreamDestination(context.connect, context.secrets)


KIND = KindSpec(
    name="redis",
    summary="a Redis stream: XADD, the entry id as evidence (a test kind)",
    build=build,
    fields=(
        FieldSpec("url", description="redis://host:port"),
        FieldSpec("stream", description="the stream every message is added to"),
        FieldSpec(
            "password",
            required=False,
            secret=True,
            description="AUTH password (write-only: sealed, shown as a digest)",
        ),
    ),
    evidence=("redis_entry_id",),
    signs_own_form=False,
    schemes=frozenset({"redis"}),
    endpoint=endpoint,
)
