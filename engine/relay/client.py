"""``hookproof listen``: the CLI side of a relay session.

It finds (same local URL and topics) or creates the relay subscription, opens
``GET /v1/relay/{subscriptionId}`` with the token, POSTs each request it is sent to the local
receiver with the exact headers and body bytes, and reports the status it got back (for a
challenge, the answer's body too: the engine checks the proof in it). The connection is opened
again after a loss, with backoff (0.5 s doubling to 15 s); attempts made meanwhile wait under
the subscription's retry policy. A refused handshake (401, 404, 409) ends the command; so does
another ``listen`` attaching to the same subscription (close code 4409).

A challenge's outcome is what the engine judged, not what the receiver answered: after
reporting the answer the CLI reads the subscription back and says ``challenge passed`` (ACTIVE)
or ``challenge refused`` with the engine's reason, its detail and what to do (answer with the
subscriber SDK, or ``--answer-challenge``: the CLI answers for a receiver that has none, its
report says so and the evidence names the CLI); a refusal ends the command (exit 4). No engine
at the URL: one line naming the URL and ``HOOKPROOF_URL``.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import signal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import aiohttp

from hookproof.errors import HookproofError
from hookproof_subscriber.challenge import ChallengeError, build_challenge_response

from ..destinations.relay.codes import RelayCode
from ..destinations.relay.endpoint import normalise_relay_endpoint
from . import protocol

__all__ = [
    "DEFAULT_ENGINE",
    "EXIT_CHALLENGE_REFUSED",
    "EngineUnreachable",
    "ListenOptions",
    "ListenRefused",
    "find_or_create",
    "listen",
]

DEFAULT_ENGINE: Final = "http://127.0.0.1:8080"
#: how long the local receiver may take (below the engine's wait for the report)
LOCAL_TIMEOUT_S: Final = 10.0
BACKOFF_FIRST_S: Final = 0.5
BACKOFF_MAX_S: Final = 15.0
CLOSE_REPLACED: Final = 4409
#: a request frame: the delivery's body (base64) and headers
MAX_FRAME: Final = 64 * 1024 * 1024
#: the exit code when the engine refused the challenge (the subscription stays pending)
EXIT_CHALLENGE_REFUSED: Final = 4
#: how long the CLI waits for the engine's verdict on a challenge it reported
VERDICT_WAIT_S: Final = 30.0
SDK_HINT: Final = (
    "answer challenges with the subscriber SDK (Python: hookproof_subscriber.Subscriber;"
    " TypeScript: answerChallenge), or run listen --answer-challenge to let this CLI answer"
    " for a receiver that has none"
)


class ListenRefused(HookproofError):
    """The engine refused the relay (a bad token, no such subscription, not a relay)."""

    code = "listen_refused"
    status = 400
    title = "Listen refused"


class EngineUnreachable(HookproofError):
    """No hookproof engine answered at the URL tried."""

    code = "engine_unreachable"
    status = 502
    title = "No engine at this URL"


@dataclass(frozen=True, slots=True)
class ListenOptions:
    to: str
    topics: tuple[str, ...]
    engine: str
    token: str
    json: bool = False
    receipt_key: dict[str, Any] | None = None  # {"keyId", "publicKeyJwk"}
    answer_challenge: bool = False


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
        self.exit_code: int | None = None

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
                    if self.exit_code is not None:
                        return self.exit_code
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
        if challenge and self.opts.answer_challenge:
            report.update(self._answer(frame))
        else:
            report.update(await self._post_local(frame, challenge))
        what = "challenge" if challenge else frame["deliveryId"]
        by = " (answered by this CLI: --answer-challenge)" if "answeredBy" in report else ""
        self.out_line(
            {
                "event": "forwarded",
                "kind": frame["kind"],
                "deliveryId": frame["deliveryId"],
                "attempt": frame["attempt"],
                "status": report["status"],
                "error": report["error"],
                **({"answeredBy": report["answeredBy"]} if by else {}),
            },
            f"{what} attempt {frame['attempt']} -> {report['status'] or report['error']}{by}"
            + ("; the engine checks the answer..." if challenge else ""),
        )
        with contextlib.suppress(Exception):
            async with self._send_lock:
                await ws.send_str(json.dumps(report))
        if challenge:
            await self._verdict(ws, frame["deliveryId"], answered_by_cli=bool(by))

    async def _post_local(self, frame: dict[str, Any], challenge: bool) -> dict[str, Any]:
        """POST the exact bytes to the local receiver: what it answered, for the report."""
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
                out: dict[str, Any] = {"status": resp.status}
                if challenge:
                    out["contentType"] = resp.headers.get("Content-Type")
                    out["body"] = protocol.b64(answer)
                return out
        except (aiohttp.ClientConnectorError, ConnectionRefusedError):
            return {"error": RelayCode.LOCAL_UNREACHABLE.value}
        except (aiohttp.ClientError, OSError, TimeoutError, ValueError):
            return {"error": RelayCode.LOCAL_FAILED.value}

    def _answer(self, frame: dict[str, Any]) -> dict[str, Any]:
        """``--answer-challenge``: the challenge response without a proof (this CLI holds no
        secret or receipt key), reported as the CLI's own answer."""
        try:
            body = build_challenge_response(protocol.unb64(frame["body"]))
        except (ChallengeError, ValueError):
            return {"error": RelayCode.LOCAL_FAILED.value, "answeredBy": protocol.ANSWERED_BY_CLI}
        return {
            "status": 200,
            "contentType": "application/json",
            "body": protocol.b64(body),
            "answeredBy": protocol.ANSWERED_BY_CLI,
        }

    async def _verdict(
        self, ws: aiohttp.ClientWebSocketResponse, challenge_id: str, *, answered_by_cli: bool
    ) -> None:
        """Read back what the engine made of the challenge and say it; a refusal ends the
        command (the subscription stays PENDING_CHALLENGE until the next attach)."""
        url = f"{self.opts.engine}/v1/subscriptions/{self.subscription_id}"
        deadline = asyncio.get_running_loop().time() + VERDICT_WAIT_S
        view: dict[str, Any] = {}
        while asyncio.get_running_loop().time() < deadline:
            try:
                async with self.http.get(url, headers=_headers(self.opts.token)) as resp:
                    if resp.status == 200:
                        view = dict(await resp.json())
            except (aiohttp.ClientError, OSError, TimeoutError, ValueError):
                view = {}
            pending = (view.get("pendingChallenge") or {}).get("challengeId")
            if view and pending != challenge_id:
                break
            await asyncio.sleep(0.2)
        else:
            self.out_line(
                {"event": "challenge", "passed": None, "challengeId": challenge_id},
                "challenge: no verdict from the engine yet (see GET /v1/subscriptions/"
                f"{self.subscription_id})",
            )
            return
        if view.get("state") in ("ACTIVE", "ROTATING"):
            self.out_line(
                {"event": "challenge", "passed": True, "state": view.get("state")},
                f"challenge passed: {self.subscription_id} is {view.get('state')};"
                " deliveries follow",
            )
            return
        reason, detail = view.get("lastReason"), view.get("lastReasonDetail")
        hint = (
            "the subscription expects a proof under its secret or receipt key, which only your"
            " receiver holds: answer challenges with the subscriber SDK there"
            if answered_by_cli
            else SDK_HINT
        )
        self.out_line(
            {
                "event": "challenge",
                "passed": False,
                "state": view.get("state"),
                "reason": reason,
                "detail": detail,
                "hint": hint,
            },
            f"challenge refused by the engine: {reason}"
            + (f" ({detail})" if detail else "")
            + f"\nhint: {hint}\n{self.subscription_id} stays {view.get('state')}: fix the"
            " receiver and run listen again (the challenge runs again when it attaches)",
        )
        self.exit_code = EXIT_CHALLENGE_REFUSED
        with contextlib.suppress(Exception):
            await ws.close()


async def listen(opts: ListenOptions, out: Callable[[str], None] = print) -> int:
    """Run until SIGINT/SIGTERM (0), a refusal (raised), or a replacement (3)."""
    to = normalise_relay_endpoint(opts.to).url  # refuses anything but http:// to loopback
    opts = dataclasses.replace(opts, to=to, engine=opts.engine.rstrip("/"))
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        async with aiohttp.ClientSession(auto_decompress=False) as http:
            try:
                sub = await find_or_create(http, opts)
            except (aiohttp.ClientError, OSError, TimeoutError, ValueError) as exc:
                raise EngineUnreachable(
                    f"no hookproof engine answered at {opts.engine} ({_why(exc)}): start one"
                    " (hookproof serve) or point --engine or HOOKPROOF_URL at it"
                ) from exc
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


def _why(exc: BaseException) -> str:
    """A few words on a failed request to the engine (never a traceback)."""
    if isinstance(exc, aiohttp.ClientConnectorError):
        return f"cannot connect: {exc.os_error.strerror or type(exc.os_error).__name__}"
    if isinstance(exc, aiohttp.ContentTypeError):
        return "the answer is not the engine's JSON"
    if isinstance(exc, aiohttp.InvalidURL):
        return "not a URL"
    return type(exc).__name__


def parse_topics(raw: str | None) -> tuple[str, ...]:
    topics = tuple(t.strip() for t in (raw or "").split(",") if t.strip())
    return topics or ("*",)
