"""``hookproof demo``: the whole evidence ladder on one machine, in under a minute.

Starts an embedded Postgres in a fresh folder, the engine (API + dispatcher) and two local
HTTPS subscribers built on the subscriber SDK (one sends signed receipts, one does not),
registers and challenges them, publishes events, rotates the engine key, publishes more, sends
to two consumers (the tenant's own customers) that each receive only their own events, and
prints the evidence ladder and the release gates. Everything it started is stopped at the end.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import socket
import ssl
import tempfile
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, cast

import aiohttp
import trustme
from aiohttp import web
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from hookproof.config import Settings
from hookproof.projections.ledger import OPEN, LedgerState

from ..db.queries import ENGINE_QUERIES
from .demo_broker import nats_destination_demo
from .demo_report import gate_lines, ladder_lines
from .embedded_nats import EmbeddedNats

__all__ = ["run_demo"]

SQL = ENGINE_QUERIES.named("demo_delivery_states", "demo_deliveries")


def _bound_socket() -> socket.socket:
    """A loopback socket bound to a free port and kept: its site listens on this very socket,
    so no other process takes the port between choosing it and listening on it."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    return s


class _Sub:
    """One SDK-built subscriber over HTTPS on loopback."""

    def __init__(self, name: str, sock: socket.socket, ca: trustme.CA) -> None:
        self.name = name
        self.sock = sock
        self.port = int(sock.getsockname()[1])
        self.ca = ca
        self.applied: list[str] = []
        self.verified: list[tuple[str, ...]] = []  # which profiles verified, per event
        self.sdk: Any = None
        self.runner: web.AppRunner | None = None
        self.receipt_key: Any = None

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}/hooks/{self.name}"

    async def start(self, engine_url: str, *, receipts: bool) -> None:
        from hookproof_subscriber import JwksKeyResolver, SigningKey, Subscriber, aiohttp_handler

        async def on_event(event: Any) -> None:
            self.applied.append(event.event_id)
            self.verified.append(self.sdk.last_verified)

        kwargs: dict[str, Any] = {}
        if receipts:
            self.receipt_key = SigningKey.ed25519(f"rk-{self.name}", Ed25519PrivateKey.generate())
            kwargs = {"receipt_key": self.receipt_key, "receipts_url": f"{engine_url}/v1/receipts"}
        sub = Subscriber(
            keys=JwksKeyResolver.for_engine(engine_url, min_refresh_interval=0.5),
            on_event=on_event,
            endpoint=self.url,
            **kwargs,
        )
        self.sdk = sub
        app = web.Application()
        app.router.add_post(f"/hooks/{self.name}", aiohttp_handler(sub))
        ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ca.issue_cert("127.0.0.1").configure_cert(ctx)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        await web.SockSite(self.runner, self.sock, ssl_context=ctx).start()

    def receipt_jwk(self) -> dict[str, Any] | None:
        if self.receipt_key is None:
            return None
        from hookproof_subscriber import public_jwk

        return dict(public_jwk(self.receipt_key))

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()


async def run_demo(events: int = 10, *, keep: bool = False, log: Path | None = None) -> int:
    """The demo; ``keep``: afterwards the daemon stays up (every worker), with the console,
    the tenant token and the real portal link printed, until SIGINT or SIGTERM. ``log``: the
    file the engine's log lines go to (named in the report, kept afterwards)."""
    import pgserver

    from ..db.database import connect_pool
    from ..runtime.daemon import build_engine

    started = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="hookproof-demo-"))
    ca = trustme.CA()
    ca_file = folder / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    socks = [_bound_socket() for _ in range(4)]
    ports = [int(s.getsockname()[1]) for s in socks]
    api_sock = _bound_socket()
    api_port = int(api_sock.getsockname()[1])
    broker = EmbeddedNats(folder / "nats")  # the package's nats-server: nothing to install
    await asyncio.to_thread(broker.start)
    settings = Settings(
        data_dir=folder,
        listen_port=api_port,
        egress_allow=(*(("127.0.0.1", p) for p in ports), (broker.host, broker.port)),
        egress_ca_file=str(ca_file),
        dns_servers=(("127.0.0.1", 9),),  # the demo never resolves names
        connect_timeout_s=2.0,
        request_timeout_s=5.0,
    )
    print(f"[demo] embedded Postgres in {folder}/pg ...", flush=True)
    if log is not None:
        print(f"[demo] the engine's log: {log}", flush=True)
    server = await asyncio.to_thread(
        pgserver.get_server,  # type: ignore[attr-defined]
        str(folder / "pg"),
        cleanup_mode="delete",
    )
    pool = await connect_pool(server.get_uri())
    engine = await build_engine(settings, pool)
    runner = web.AppRunner(engine.app(), access_log=None)
    await runner.setup()
    await web.SockSite(runner, api_sock).start()
    engine_url = f"http://127.0.0.1:{api_port}"
    stop = asyncio.Event()
    workers: list[asyncio.Task[None]] = [
        asyncio.create_task(cast(Coroutine[Any, Any, None], w(stop)))
        for name, w in engine.workers
        if name == "dispatcher"
    ]
    with_receipts = _Sub("ledger", socks[0], ca)
    plain = _Sub("mailer", socks[1], ca)
    customers = [_Sub("acme-corp", socks[2], ca), _Sub("globex", socks[3], ca)]
    try:
        await with_receipts.start(engine_url, receipts=True)
        await plain.start(engine_url, receipts=False)
        print(
            f"[demo] engine on {engine_url}; subscribers {with_receipts.url} (receipts), "
            f"{plain.url} (no receipts)",
            flush=True,
        )
        issued = await engine.tenants.create("demo-tenant")
        auth = {"Authorization": f"Bearer {issued.token}"}
        async with aiohttp.ClientSession(headers=auth) as http:
            subs: dict[str, str] = {}
            for s in (with_receipts, plain):
                body: dict[str, Any] = {
                    "endpoint": s.url,
                    "topics": ["order.*"],
                    "eventVersions": [1],
                    "region": "local",
                    "signatureAlgorithm": "ed25519",
                    "owner": f"team-{s.name}",
                    "retryPolicy": {"initialDelayS": 0.5, "maxDelayS": 2},
                }
                if s is plain:  # the mailer comes from a Standard Webhooks platform
                    body["signatureProfile"] = "standard-webhooks.v1"
                if s.receipt_jwk():
                    body["receiptKey"] = {
                        "keyId": s.receipt_key.key_id,
                        "publicKeyJwk": s.receipt_jwk(),
                    }
                async with http.post(f"{engine_url}/v1/subscriptions", json=body) as r:
                    doc = await r.json()
                    assert r.status == 201, doc
                    subs[s.name] = doc["id"]
            await engine.drain()  # the registration challenges
            for name, sid in subs.items():
                async with http.get(f"{engine_url}/v1/subscriptions/{sid}") as r:
                    doc = await r.json()
                print(
                    f"[demo] {name}: {sid} generation {doc['generation']} -> {doc['state']} "
                    f"(challenge over HTTPS)",
                    flush=True,
                )

            async def publish(start: int, n: int) -> None:
                for i in range(start, start + n):
                    async with http.post(
                        f"{engine_url}/v1/events",
                        json={
                            "eventId": f"order-{i}",
                            "topic": "order.created",
                            "version": "1.2",
                            "aggregateId": f"order-{i % 3}",
                            "aggregateVersion": i // 3 + 1,
                            "occurredAt": "2026-11-30T12:00:00Z",
                            "payload": {"order": i, "total": 10 * i},
                        },
                    ) as r:
                        assert r.status == 202, await r.text()

            async def settle() -> None:
                for _ in range(300):
                    rows = await pool.fetch(SQL["demo_delivery_states"])
                    busy = [
                        r
                        for r in rows
                        if r["state"] in OPEN
                        or (
                            r["application"] == "PENDING"
                            and r["state"] == LedgerState.ENDPOINT_ACCEPTED
                        )
                    ]
                    if not busy:
                        return
                    await asyncio.sleep(0.1)

            await publish(0, events)
            await settle()
            # events keep flowing while the key rotates (the rotation-window gate measures them)
            report, _ = await asyncio.gather(
                engine.services.rotation.rotate_engine_key(actor="demo"), publish(events, events)
            )
            print(
                f"[demo] rotated the engine key to {report['keyId']} (generation "
                f"{report['keyGeneration']}); proved: {len(report['proved'])}, "
                f"suspended: {len(report['suspended'])}; previous key VERIFY_ONLY",
                flush=True,
            )
            await settle()
            await publish(2 * events, events)
            await settle()
            await _rollout(engine, plain, subs["mailer"], publish, settle, 3 * events)
            consumers, portal_url = await _consumers(
                engine, engine_url, http, customers, settle, keep=keep
            )
            subs.update(consumers)

            rows = await pool.fetch(SQL["demo_deliveries"])
            views = []
            for r in rows:
                async with http.get(f"{engine_url}/v1/deliveries/{r['delivery_id']}") as resp:
                    views.append(await resp.json())
            print(f"\n== evidence ladder: {len(views)} deliveries ==")
            print("\n".join(ladder_lines(views, {v: k for k, v in subs.items()})))
        print(
            f"\nledger applied {len(set(with_receipts.applied))} events (receipts sent); "
            f"mailer applied {len(set(plain.applied))} (no receipts: UNOBSERVABLE)"
        )
        await _print_gates(pool)
        async with aiohttp.ClientSession(headers=auth) as http:
            await nats_destination_demo(engine, engine_url, http, broker, settle)
        if keep:
            workers += [
                asyncio.create_task(cast(Coroutine[Any, Any, None], w(stop)))
                for name, w in engine.workers
                if name != "dispatcher"
            ]
            await _kept(engine_url, issued.token, portal_url)
    finally:
        stop.set()
        for t in workers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(t, 10)
        await with_receipts.stop()
        await plain.stop()
        for c in customers:
            await c.stop()
        await runner.cleanup()
        await engine.close()
        await pool.close()
        server.cleanup()
        broker.cleanup()
        shutil.rmtree(folder, ignore_errors=True)
    print(f"\n[demo] finished in {time.perf_counter() - started:.1f}s; nothing left running")
    if log is not None:
        print(f"[demo] the engine's log (kept): {log}")
    return 0


async def _kept(engine_url: str, token: str, portal_url: str) -> None:
    """Print where to look, then wait for SIGINT or SIGTERM."""
    import signal

    print(
        f"\n[demo] kept running (--keep): console {engine_url}/console (tenant token below)\n"
        f"[demo] tenant token: {token}\n"
        f"[demo] portal link: {portal_url}\n"
        "[demo] Ctrl-C stops it",
        flush=True,
    )
    done = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, done.set)
    try:
        await done.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(sig)


async def _consumers(
    engine: Any,
    engine_url: str,
    http: aiohttp.ClientSession,
    customers: list[_Sub],
    settle: Any,
    *,
    keep: bool = False,
) -> tuple[dict[str, str], str]:
    """Two consumers, each with its own endpoint; events published for one reach only its
    endpoint (an event without a consumer reaches neither). Prints a portal link for one
    (whole with ``keep``: the daemon outlives the demo's story); returns it too."""
    print("\n== sending to your customers: two consumers ==")
    subs: dict[str, str] = {}
    for c in customers:
        await c.start(engine_url, receipts=False)
        async with http.post(
            f"{engine_url}/v1/consumers", json={"id": c.name, "name": c.name.title()}
        ) as r:
            assert r.status == 201, await r.text()
        body = {
            "endpoint": c.url,
            "topics": ["invoice.paid"],
            "eventVersions": [1],
            "region": "local",
            "signatureAlgorithm": "ed25519",
            "owner": "team-billing",
            "consumerId": c.name,
        }
        async with http.post(f"{engine_url}/v1/subscriptions", json=body) as r:
            doc: dict[str, Any] = await r.json()
            assert r.status == 201, doc
            subs[c.name] = doc["id"]
    await engine.drain()  # their challenges
    sent: dict[str, list[str]] = {c.name: [] for c in customers}
    for i in range(3):
        for who in [*customers, None]:
            event_id = f"inv-{who.name if who else 'nobody'}-{i}"
            doc = {
                "eventId": event_id,
                "topic": "invoice.paid",
                "version": "1.0",
                "aggregateId": event_id,
                "aggregateVersion": 1,
                "occurredAt": "2026-11-30T12:00:00Z",
                "payload": {"invoice": event_id, "amount": 100 + i},
            }
            if who is not None:
                doc["consumerId"] = who.name
                sent[who.name].append(event_id)
            async with http.post(f"{engine_url}/v1/events", json=doc) as r:
                assert r.status == 202, await r.text()
    await settle()
    for c in customers:
        got = sorted(set(c.applied))
        own = "only its own" if got == sorted(sent[c.name]) else "NOT ONLY ITS OWN"
        print(f"[demo] consumer {c.name} received {', '.join(got)} ({own})", flush=True)
    async with http.post(f"{engine_url}/v1/consumers/{customers[0].name}/portal-sessions") as r:
        link = await r.json()
        assert r.status == 201, link
    shown = (
        link["url"]
        if keep
        else f"{link['url'][: link['url'].index('#') + 12]}... (hookproof demo --keep keeps the"
        " daemon running and shows it whole)"
    )
    print(
        f"[demo] portal link for {customers[0].name} (valid until {link['expiresAt']}): {shown}",
        flush=True,
    )
    return subs, str(link["url"])


async def _rollout(
    engine: Any, mailer: _Sub, sid: str, publish: Any, settle: Any, start: int
) -> None:
    """Move the mailer from Standard Webhooks to hookproof.sig.v1, stage by stage, printing
    the rollout's figures and what the mailer's SDK verified at each stage."""
    from .rollouts import stage_table

    svc = engine.services.rollouts
    print("\n== rollout: mailer from standard-webhooks.v1 to hookproof.sig.v1 ==")
    view = await svc.create(
        target_kind="signatureProfile",
        target="hookproof.sig.v1",
        subscriptions=[sid],
        internal=[sid],
        dual_window_s=3.0,
        actor="demo",
    )
    rid = view.rollout_id
    n = 4
    stages: list[tuple[str, Any]] = [
        ("SHADOW", None),
        ("INTERNAL", lambda: svc.advance(rid, "INTERNAL", None, actor="demo")),
        ("CUTOVER 100% (dual window)", lambda: svc.advance(rid, "CUTOVER", 100, actor="demo")),
        ("CUTOVER 100% (window over)", lambda: asyncio.sleep(3.2)),
        ("COMPLETE", lambda: svc.advance(rid, "COMPLETE", None, actor="demo")),
    ]
    table: list[tuple[str, str]] = []
    for label, step in stages:
        if step is not None:
            await step()
        before = len(mailer.verified)
        await publish(start, n)
        start += n
        await settle()
        await engine.services.dispatcher.flush_shadow()
        seen = sorted({"+".join(v) for v in mailer.verified[before:]})
        table.append((label, ", ".join(seen) or "-"))
    view = await svc.get(rid)
    print("\n".join(stage_table(view, await svc.figures(rid))))
    print(f"  {'stage':<28} what the mailer's SDK verified")
    for label, verified in table:
        print(f"  {label:<28} {verified}")


async def _print_gates(pool: Any) -> None:
    from ..audit.gates import gate_report, gates_failed

    async with pool.acquire() as conn:
        results = await gate_report(conn)
    print("\n== release gates (from the log alone) ==")
    print("\n".join(gate_lines(results)))
    print("  => " + ("FAILED" if gates_failed(results) else "no gate failed"))
