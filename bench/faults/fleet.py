"""One subscriber process of the fault campaign: HTTPS on port 443 of one or more emulated
public addresses, built on the subscriber SDK, with a scripted behaviour per route.

A route is ``<host>/<path>`` (the registered endpoint without its scheme). Behaviours:

- ``sdk``: the SDK verifies (JWKS), answers challenges, applies by event id, sends receipts
  when the route has a receipt key;
- ``slow``: as ``sdk`` after ``delay`` seconds (a subscriber that takes its time);
- ``lossy``: challenges through the SDK; deliveries verified, answered 200, never applied and
  never receipted (2xx, then the work is lost);
- ``drop``: the first request of each delivery id is applied through the SDK, then the
  connection dies after a partial 200 (the 2xx lost on the way back); later ones as ``sdk``;
- ``redirect``: challenges through the SDK; deliveries get a 307 to ``location``;
- ``reencode``: a JSON re-encoding proxy in front of the SDK (challenges pass untouched);
- ``capture`` / ``replay``: challenges answered by the SDK and the answer kept; ``replay``
  answers every challenge with the answer kept for ``replayFrom`` instead.

The control server (plain HTTP on 127.0.0.1) takes ``POST /routes`` (add or change routes),
and answers ``GET /log?since=N`` (what arrived, in order) and ``GET /stats`` (effects applied
per event id, receipts sent and their answers).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import hashlib
import json
import ssl
import sys
import time
from typing import Any

import aiohttp
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hookproof_subscriber import (
    Event,
    InMemoryStore,
    JwksKeyResolver,
    Receipt,
    SigningKey,
    Subscriber,
    averify_request,
    peek_key_id,
    sign_receipt,
)

CHALLENGE = b'"type":"hookproof.challenge.v1"'


def _header(headers: Any, name: str) -> str | None:
    return headers.get(name)


class Route:
    def __init__(self, fleet: Fleet, key: str, cfg: dict[str, Any]) -> None:
        self.fleet = fleet
        self.key = key
        self.cfg: dict[str, Any] = {}
        self.endpoint = f"https://{key}"
        self.effects: dict[str, int] = {}
        self.receipts: list[dict[str, Any]] = []
        self.seen_deliveries: set[str] = set()
        self.requests: dict[str, int] = {}  # delivery requests per event id (Webhook-Id)
        self.retried: dict[str, asyncio.Event] = {}  # set at an event's second request
        self.answer: bytes | None = None
        self.receipt_key: SigningKey | None = None
        self.update(cfg)

    def update(self, cfg: dict[str, Any]) -> None:
        self.cfg.update(cfg)
        rk = cfg.get("receiptKey")
        if rk is not None:
            raw = base64.urlsafe_b64decode(rk["d"] + "==")
            self.receipt_key = SigningKey.ed25519(
                rk["keyId"], Ed25519PrivateKey.from_private_bytes(raw)
            )
        if rk is not None or not hasattr(self, "sdk"):
            self.sdk = Subscriber(
                keys=self.fleet.jwks,
                on_event=self.on_event,
                endpoint=self.endpoint,
                store=InMemoryStore(),
                receipt_key=self.receipt_key,
                receipt_sender=self.send_receipt if self.receipt_key is not None else None,
            )

    @property
    def mode(self) -> str:
        return str(self.cfg.get("mode", "sdk"))

    def on_event(self, event: Event) -> None:
        self.effects[event.event_id] = self.effects.get(event.event_id, 0) + 1

    async def send_receipt(self, receipt: Receipt) -> None:
        """Signed once for the engine's receipts URL; posted to any daemon that answers."""
        assert self.receipt_key is not None
        delay = float(self.cfg.get("receiptDelay", 0))
        if delay:
            await asyncio.sleep(delay)
        if self.cfg.get("receiptAfterRetry"):
            # the dropped 2xx's receipt waits for the engine's retry of that event, however
            # late the engine records the lost response (a loaded machine: seconds): the
            # scenario is about the retry, which a receipt arriving first would make moot
            retried = self.retried.setdefault(receipt.event_id, asyncio.Event())
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(retried.wait(), 180)
        headers, body = sign_receipt(
            receipt, url=self.fleet.receipts_url, key=self.receipt_key, lifetime=600
        )
        entry: dict[str, Any] = {"eventId": receipt.event_id, "status": None}
        self.receipts.append(entry)
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            for url in self.fleet.receipt_targets:
                try:
                    async with self.fleet.http.post(url, data=body, headers=headers) as r:
                        entry["status"] = r.status
                        entry["code"] = (await r.json(content_type=None) or {}).get("code")
                        if r.status < 500:
                            return
                except (aiohttp.ClientError, TimeoutError, ValueError):
                    continue
            await asyncio.sleep(1.0)

    async def handle(self, request: web.Request, body: bytes) -> web.StreamResponse:
        headers = list(request.headers.items())
        hmap = request.headers
        challenge = CHALLENGE in body
        rec: dict[str, Any] = {
            "t": time.time(),
            "route": self.key,
            "kind": "challenge" if challenge else "delivery",
            "webhookId": _header(hmap, "Webhook-Id"),
            "deliveryId": _header(hmap, "Webhook-Delivery-Id"),
            "attempt": _header(hmap, "Webhook-Attempt"),
            "generation": _header(hmap, "Webhook-Generation"),
            "subscription": _header(hmap, "Webhook-Subscription"),
            "keyId": peek_key_id(hmap),
            "digest": hashlib.sha256(body).hexdigest()[:16],
        }
        self.fleet.log.append(rec)
        if not challenge and rec["webhookId"]:
            seen = self.requests[rec["webhookId"]] = self.requests.get(rec["webhookId"], 0) + 1
            if seen >= 2:
                self.retried.setdefault(rec["webhookId"], asyncio.Event()).set()
        mode = self.mode
        if challenge:
            if mode == "replay":
                source = self.fleet.routes.get(str(self.cfg.get("replayFrom", self.key)))
                kept = source.answer if source is not None else None
                rec.update(status=200, reason="replayed")
                return web.Response(body=kept or b"{}", content_type="application/json")
            status, out_headers, payload = await self.sdk.handle(
                "POST", self.endpoint, headers, body
            )
            if status == 200:
                self.answer = payload
            rec.update(status=status, reason=None if status == 200 else _code(payload))
            return web.Response(status=status, headers=out_headers, body=payload)
        if mode == "redirect":
            rec.update(status=307)
            return web.Response(status=307, headers={"Location": str(self.cfg["location"])})
        if mode == "reencode":
            # the proxy parses and re-serialises the JSON (other spacing, sorted keys)
            body = json.dumps(json.loads(body), indent=1, sort_keys=True).encode()
        if mode == "lossy":
            res = await averify_request(
                "POST", self.endpoint, headers, body, keys=self.fleet.jwks, now=int(time.time())
            )
            rec.update(status=200, reason=str(res.reason))
            return web.Response(status=200)  # acknowledged, then the work is lost
        if mode == "slow":
            await asyncio.sleep(float(self.cfg.get("delay", 1.0)))
        status, out_headers, payload = await self.sdk.handle("POST", self.endpoint, headers, body)
        rec.update(status=status, reason="ok" if status < 300 else _code(payload))
        delivery = rec["deliveryId"] or ""
        if mode == "drop" and delivery not in self.seen_deliveries:
            self.seen_deliveries.add(delivery)
            rec.update(status=-1, dropped=True)
            resp = web.StreamResponse(status=200, headers={"Content-Length": "100"})
            await resp.prepare(request)
            await resp.write(b"partial")
            assert request.transport is not None
            request.transport.abort()
            return resp
        return web.Response(status=status, headers=out_headers, body=payload)


def _code(payload: bytes) -> str | None:
    try:
        doc = json.loads(payload)
    except ValueError:
        return None
    return doc.get("code") if isinstance(doc, dict) else None


class Fleet:
    def __init__(self, cfg: dict[str, Any]) -> None:
        self.cfg = cfg
        self.log: list[dict[str, Any]] = []
        self.receipts_url: str = cfg["receiptsUrl"]
        self.receipt_targets: list[str] = cfg["receiptTargets"]
        self.jwks_urls: list[str] = cfg["jwksUrls"]
        self.jwks = JwksKeyResolver(
            self.jwks_urls[0], fetch=self._fetch_jwks, min_refresh_interval=0.2
        )
        self.routes: dict[str, Route] = {}
        self.http: aiohttp.ClientSession

    async def _fetch_jwks(self, _url: str) -> bytes:
        last: Exception | None = None
        for url in self.jwks_urls:
            try:
                async with self.http.get(url, timeout=aiohttp.ClientTimeout(total=2)) as r:
                    if r.status == 200:
                        return await r.read()
            except (aiohttp.ClientError, TimeoutError) as exc:
                last = exc
        raise OSError(f"no JWKS: {last!r}")

    async def serve_hook(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        host = (request.host or "").split(":")[0].lower()
        route = self.routes.get(f"{host}{request.path}")
        if route is None:
            self.log.append({"t": time.time(), "route": f"{host}{request.path}", "kind": "unknown"})
            return web.Response(status=404)
        return await route.handle(request, body)

    async def ctl_routes(self, request: web.Request) -> web.Response:
        doc = await request.json()
        for key, cfg in doc.items():
            if key in self.routes:
                self.routes[key].update(cfg)
            else:
                self.routes[key] = Route(self, key, cfg)
        return web.json_response({"routes": sorted(self.routes)})

    async def ctl_log(self, request: web.Request) -> web.Response:
        since = int(request.query.get("since", "0"))
        return web.json_response({"next": len(self.log), "items": self.log[since:]})

    async def ctl_stats(self, _request: web.Request) -> web.Response:
        return web.json_response(
            {
                key: {
                    "effects": r.effects,
                    "receipts": r.receipts,
                    "receiptErrors": r.sdk.receipt_errors,
                }
                for key, r in self.routes.items()
            }
        )


async def main(cfg: dict[str, Any]) -> None:
    fleet = Fleet(cfg)
    fleet.http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5), trust_env=False)
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cfg["certFile"], cfg["keyFile"])
    hooks = web.Application(client_max_size=1 << 20)
    hooks.router.add_route("*", "/{tail:.*}", fleet.serve_hook)
    hook_runner = web.AppRunner(hooks, access_log=None, shutdown_timeout=0.5)
    await hook_runner.setup()
    for address in cfg["addresses"]:
        await web.TCPSite(hook_runner, address, 443, ssl_context=ctx).start()
    ctl = web.Application(client_max_size=1 << 20)
    ctl.router.add_post("/routes", fleet.ctl_routes)
    ctl.router.add_get("/log", fleet.ctl_log)
    ctl.router.add_get("/stats", fleet.ctl_stats)
    ctl_runner = web.AppRunner(ctl, access_log=None)
    await ctl_runner.setup()
    await web.TCPSite(ctl_runner, "127.0.0.1", int(cfg["controlPort"])).start()
    print("fleet ready", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    import signal

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for r in fleet.routes.values():
        with contextlib.suppress(Exception):
            await asyncio.wait_for(r.sdk.drain(), 2)
    await hook_runner.cleanup()
    await ctl_runner.cleanup()
    await fleet.http.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("config", help="JSON file")
    args = parser.parse_args()
    with open(args.config) as f:
        asyncio.run(main(json.load(f)))
    sys.exit(0)
