"""``hookproof listen``: the CLI side of a relay session.

It finds (same local URL and topics) or creates the relay subscription, opens
``GET /v1/relay/{subscriptionId}`` with the token, POSTs each request it is sent to the local
receiver with the exact headers and body bytes, and reports the status it got back (for a
challenge, the answer's body too: the engine checks the proof in it). The connection is opened
again after a loss, with backoff (0.5 s doubling to 15 s); attempts made meanwhile wait under
the subscription's retry policy. A refused handshake (401, 404, 409) ends the command; so does
another ``listen`` attaching to the same subscription (close code 4409).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import aiohttp

from hookproof.errors import HookproofError

from ..destinations.relay_codes import RelayCode
from ..destinations.relay_endpoint import normalise_relay_endpoint
from . import protocol

__all__ = ["DEFAULT_ENGINE", "ListenOptions", "ListenRefused", "find_or_create", "listen"]

DEFAULT_ENGINE: Final = "http://127.0.0.1:8080"
#: how long the local receiver may take (below the engine's wait for the report)
LOCAL_TIMEOUT_S: Final = 10.0
BACKOFF_FIRST_S: Final = 0.5
BACKOFF_MAX_S: Final = 15.0
CLOSE_REPLACED: Final = 4409
#: a request frame: the delivery's body (base64) and headers
MAX_FRAME: Final = 64 * 1024 * 1024


class ListenRefused(HookproofError):
    """The engine refused the relay (a bad token, no such subscription, not a relay)."""

    code = "listen_refused"
    status = 400
    title = "Listen refused"


@dataclass(frozen=True, slots=True)
class ListenOptions:
    to: str
    topics: tuple[str, ...]
    engine: str
    token: str
    json: bool = False
    receipt_key: dict[str, Any] | None = None  # {"keyId", "publicKeyJwk"}


def _headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def _problem(resp: aiohttp.ClientResponse) -> str:
    try:
        doc = await resp.json(content_type=None)
        return f"{resp.status} {doc.get('code')}: {doc.get('detail')}"
    except Exception:
        return f"{resp.status}"


async def find_or_create(http: aiohttp.ClientSession, opts: ListenOptions) -> dict[str, Any]:
    """The relay subscription for ``opts.to`` and ``opts.topics``: an open one the token
    already has, else a new one (``PENDING_CHALLENGE``: the attach challenges it)."""
    wanted = sorted(set(opts.topics))
    cursor: str | None = None
    while True:
        params = {"limit": "200", **({"cursor": cursor} if cursor else {})}
        async with http.get(
            f"{opts.engine}/v1/subscriptions", params=params, headers=_headers(opts.token)
        ) as resp:
            if resp.status != 200:
                raise ListenRefused(f"listing subscriptions: {await _problem(resp)}")
            page = await resp.json()
        for s in page["items"]:
            if (
                (s.get("destination") or {}).get("type") == "relay"
                and s["endpoint"] == opts.to
                and sorted(s["topics"]) == wanted
                and s["state"] not in ("REVOKED", "EXPIRED")
            ):
                return dict(s)
        cursor = page.get("nextCursor")
        if not cursor:
            break
    body: dict[str, Any] = {
        "endpoint": opts.to,
        "topics": list(opts.topics),
        "eventVersions": [1],
        "region": "local",
        "signatureAlgorithm": "ed25519",
        "owner": "hookproof listen",
        "destination": {"type": "relay"},
    }
    if opts.receipt_key is not None:
        body["receiptKey"] = opts.receipt_key
    async with http.post(
        f"{opts.engine}/v1/subscriptions", json=body, headers=_headers(opts.token)
    ) as resp:
        if resp.status != 201:
            raise ListenRefused(f"creating the relay subscription: {await _problem(resp)}")
        return dict(await resp.json())


class Relay:
    """One ``listen`` run: forward, report, reconnect."""

    def __init__(
        self,
        http: aiohttp.ClientSession,
        opts: ListenOptions,
        subscription_id: str,
        out: Callable[[str], None],
    ) -> None:
        self.http = http
        self.opts = opts
        self.subscription_id = subscription_id
        self.out = out
        self._send_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()

    async def run(self) -> int:
        delay = BACKOFF_FIRST_S
        url = f"{self.opts.engine}/v1/relay/{self.subscription_id}"
        while True:
            try:
                async with self.http.ws_connect(
                    url,
                    headers=_headers(self.opts.token),
                    heartbeat=20.0,
                    autoping=True,
                    max_msg_size=MAX_FRAME,
                ) as ws:
                    delay = BACKOFF_FIRST_S
                    code = await self._session(ws)
                    if code == CLOSE_REPLACED:
                        self.out_line({"event": "replaced"}, "replaced by another listen; done")
                        return 3
            except aiohttp.WSServerHandshakeError as exc:
                if exc.status in (401, 403, 404, 409):
                    raise ListenRefused(
                        f"the engine refused the relay: {exc.status} {exc.message}"
                    ) from exc
            except (aiohttp.ClientError, OSError, TimeoutError):
                pass
            self.out_line({"event": "reconnecting", "inS": round(delay, 2)}, "reconnecting")
            await asyncio.sleep(delay * (0.5 + random.random() / 2))
            delay = min(delay * 2, BACKOFF_MAX_S)

    def out_line(self, doc: dict[str, Any], text: str) -> None:
        self.out(json.dumps(doc) if self.opts.json else text)

    async def _session(self, ws: aiohttp.ClientWebSocketResponse) -> int | None:
        async for msg in ws:
            if msg.type != aiohttp.WSMsgType.TEXT:
                continue
            try:
                frame = json.loads(msg.data)
            except ValueError:
                continue
            if frame.get("type") == "request":
                task = asyncio.ensure_future(self._forward(ws, frame))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)
        return ws.close_code

    async def _forward(self, ws: aiohttp.ClientWebSocketResponse, frame: dict[str, Any]) -> None:
        challenge = frame["kind"] == "challenge"
        report: dict[str, Any] = {
            "type": "report",
            "exchangeId": frame["exchangeId"],
            "deliveryId": frame["deliveryId"],
            "attempt": frame["attempt"],
            "status": None,
            "error": None,
        }
        try:
            body = protocol.unb64(frame["body"])
            async with self.http.post(
                self.opts.to,
                data=body,
                headers=frame["headers"],
                allow_redirects=False,
                timeout=aiohttp.ClientTimeout(total=LOCAL_TIMEOUT_S),
            ) as resp:
                answer = await resp.content.read(protocol.MAX_REPORT_BODY)
                report["status"] = resp.status
                if challenge:
                    report["contentType"] = resp.headers.get("Content-Type")
                    report["body"] = protocol.b64(answer)
        except (aiohttp.ClientConnectorError, ConnectionRefusedError):
            report["error"] = RelayCode.LOCAL_UNREACHABLE.value
        except (aiohttp.ClientError, OSError, TimeoutError, ValueError):
            report["error"] = RelayCode.LOCAL_FAILED.value
        what = "challenge" if challenge else frame["deliveryId"]
        self.out_line(
            {
                "event": "forwarded",
                "kind": frame["kind"],
                "deliveryId": frame["deliveryId"],
                "attempt": frame["attempt"],
                "status": report["status"],
                "error": report["error"],
            },
            f"{what} attempt {frame['attempt']} -> {report['status'] or report['error']}",
        )
        with contextlib.suppress(Exception):
            async with self._send_lock:
                await ws.send_str(json.dumps(report))


async def listen(opts: ListenOptions, out: Callable[[str], None] = print) -> int:
    """Run until SIGINT/SIGTERM (0), a refusal (raised), or a replacement (3)."""
    to = normalise_relay_endpoint(opts.to).url  # refuses anything but http:// to loopback
    opts = ListenOptions(
        to, opts.topics, opts.engine.rstrip("/"), opts.token, opts.json, opts.receipt_key
    )
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        async with aiohttp.ClientSession(auto_decompress=False) as http:
            sub = await find_or_create(http, opts)
            sid = sub["id"]
            if opts.json:
                out(json.dumps({"subscriptionId": sid, "to": to}))
            else:
                out(f"listening {sid} -> {to}")
            relay = Relay(http, opts, sid, out)
            runner = asyncio.ensure_future(relay.run())
            stopper = asyncio.ensure_future(stop.wait())
            done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if runner in done:
                stopper.cancel()
                return runner.result()
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
            return 0
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


def parse_topics(raw: str | None) -> tuple[str, ...]:
    topics = tuple(t.strip() for t in (raw or "").split(",") if t.strip())
    return topics or ("*",)
