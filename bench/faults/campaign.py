"""The fault campaign (DESIGN.md section 12): one run, real processes, inside a network
namespace with only loopback. Started by ``launch.py`` (``make faults``), never directly.

Embedded Postgres (pgserver), two ``hookproof serve`` daemons sharing the queue, a dnslib
server, three HTTPS subscriber processes (``fleet.py``) on emulated public addresses and two
connection counters (the 307 ``Location`` host and a private address). The engine is driven
only through its API, its CLI and signals; the eleven scenarios run while ordinary traffic
flows; then ``hookproof gates`` and ``hookproof audit verify`` read the log of the run.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import trustme
from cryptography.hazmat.primitives import serialization

sys.path.insert(0, str(Path(__file__).resolve().parent))

import checks
from dns_server import DnsServer

from hookproof_subscriber import SigningKey, build_receipt, public_jwk, sign_receipt

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
RESULTS = ROOT / "bench" / "results" / "faults.json"  # ``--out`` for another file
#: every wait for a state the run expects (a subscription ACTIVE, deliveries settled) ends as
#: soon as the state is reached; its bound, for a hung run, is this many times the figure
#: written at the call (beside other CPU-heavy work, outcomes are recorded tens of seconds
#: after the response: a 40 s bound failed a scenario that then passed at once)
WAIT_SCALE = 3.0
#: after the Postgres restart, before the rotation: the pools reconnect, the backlog drains
ROTATION_QUIET_S = 5.0
#: the longest wait for the rotation window's attempts to have their outcomes
ROTATION_SETTLE_S = 120.0
#: ``gates`` and ``audit verify`` read the whole log: on a loaded machine 120 s was too short
CLI_REPORT_S = 600.0

SHOP, EDGE, NEW, REBIND = "93.184.215.10", "93.184.215.11", "93.184.215.12", "93.184.215.13"
ELSEWHERE, PRIVATE = "93.184.215.14", "10.0.0.5"
ADDRESSES = [SHOP, EDGE, NEW, REBIND, ELSEWHERE, PRIVATE]
NAMES = {
    "shop.faults.test": [SHOP],
    "old.faults.test": [EDGE],
    "redirect.faults.test": [EDGE],
    "proxy.faults.test": [EDGE],
    "rebind.faults.test": [REBIND],
    "new.faults.test": [NEW],
    "elsewhere.faults.test": [ELSEWHERE],
}
DNS_PORT = 5353
DAEMON_PORTS = {"A": 18080, "B": 18081}
FLEET_PORTS = {"shop": 19001, "edge": 19002, "new": 19003}
ADMIN_TOKEN = "faults-operator"
ROLE_PREFIX = "hp_daemon_"
OWNER = "team-faults"
FAST = {"initialDelayS": 0.3, "maxDelayS": 1.0, "maxAttempts": 10}
SHORT = {"initialDelayS": 0.2, "maxDelayS": 0.3, "maxAttempts": 2}
TERMINAL = ("ENDPOINT_ACCEPTED", "APPLICATION_CONFIRMED", "DEAD_LETTER", "QUARANTINED")


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def say(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


# -- processes --------------------------------------------------------------------------------


class Counter:
    """A TCP listener that only counts the connections reaching it."""

    def __init__(self, host: str, port: int = 443) -> None:
        self.host, self.port, self.connections = host, port, 0
        self._server: asyncio.Server | None = None

    async def start(self) -> Counter:
        async def seen(_r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            self.connections += 1
            w.close()

        self._server = await asyncio.start_server(seen, self.host, self.port)
        return self

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()


class Daemon:
    def __init__(
        self, name: str, env: dict[str, str], logs: Path, workers_flag: bool, db_url: str
    ) -> None:
        self.name, self.env, self.logs, self.workers_flag = name, env, logs, workers_flag
        self.db_url = db_url
        self.role = f"{ROLE_PREFIX}{name.lower()}"
        self.port = DAEMON_PORTS[name]
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.stopped = False
        self.starts = 0

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self) -> None:
        self.starts += 1
        args = [sys.executable, "-m", "hookproof.engine.cli", "serve"]
        if self.workers_flag:
            args += ["--workers", "1"]
        env = {
            **self.env,
            "HOOKPROOF_LISTEN": f"127.0.0.1:{self.port}",
            "HOOKPROOF_DATABASE_URL": self.db_url,
        }
        out = (self.logs / f"daemon-{self.name}-{self.starts}.log").open("wb")
        self.proc = subprocess.Popen(  # noqa: ASYNC220 (returns at once)
            args, env=env, stdout=out, stderr=subprocess.STDOUT
        )
        await self.wait_ready(60)

    async def wait_ready(self, limit_s: float) -> None:
        deadline = time.monotonic() + limit_s
        async with aiohttp.ClientSession() as http:
            while time.monotonic() < deadline:
                assert self.proc is not None
                if self.proc.poll() is not None:
                    raise RuntimeError(f"daemon {self.name} exited ({self.proc.returncode})")
                with contextlib.suppress(aiohttp.ClientError, TimeoutError):
                    async with http.get(
                        self.base + "/readyz", timeout=aiohttp.ClientTimeout(total=2)
                    ) as r:
                        if r.status == 200:
                            return
                await asyncio.sleep(0.2)
        raise RuntimeError(f"daemon {self.name} not ready after {limit_s}s")

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, sig)
        if sig == signal.SIGSTOP:
            self.stopped = True
        elif sig == signal.SIGCONT:
            self.stopped = False

    async def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.proc.pid, signal.SIGCONT)
            self.proc.terminate()
        for _ in range(100):
            if self.proc.poll() is not None:
                return
            await asyncio.sleep(0.1)
        self.proc.kill()


class FleetProc:
    def __init__(self, name: str, addresses: list[str], base_cfg: dict[str, Any], tmp: Path):
        self.name = name
        self.port = FLEET_PORTS[name]
        self.ctl = f"http://127.0.0.1:{self.port}"
        self.cfg = {**base_cfg, "addresses": addresses, "controlPort": self.port}
        self.tmp = tmp
        self.proc: subprocess.Popen[bytes] | None = None

    async def start(self) -> None:
        path = self.tmp / f"fleet-{self.name}.json"
        path.write_text(json.dumps(self.cfg))
        out = (self.tmp / f"fleet-{self.name}.log").open("wb")
        self.proc = subprocess.Popen(  # noqa: ASYNC220 (returns at once)
            [sys.executable, str(HERE / "fleet.py"), str(path)], stdout=out, stderr=out
        )

    async def ready(self, http: aiohttp.ClientSession) -> None:
        for _ in range(300):
            with contextlib.suppress(aiohttp.ClientError):
                async with http.get(self.ctl + "/stats") as r:
                    if r.status == 200:
                        return
            await asyncio.sleep(0.1)
        raise RuntimeError(f"fleet {self.name} not ready")

    async def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            for _ in range(50):
                if self.proc.poll() is not None:
                    return
                await asyncio.sleep(0.1)
            self.proc.kill()


# -- the campaign -----------------------------------------------------------------------------


class Campaign:
    def __init__(self, events: int, tmp: Path) -> None:
        self.n_events = events
        self.tmp = tmp
        self.started = time.monotonic()
        self.since = now_iso()
        self.scenarios: list[dict[str, Any]] = []
        self.assertions: list[dict[str, Any]] = []
        self.faults: list[dict[str, Any]] = []
        self.accepted: dict[str, list[str]] = {}  # ordinary event id -> delivery ids
        self.all_events: set[str] = set()
        self.deliveries_planned = 0
        self.endpoint_of: dict[tuple[str, str], str] = {}
        self.receipt_routes: list[str] = []
        self.ordinary_routes: list[str] = []
        self.subs: dict[str, str] = {}  # label -> subscription id
        self.route_fleet: dict[str, FleetProc] = {}
        self.http: aiohttp.ClientSession
        self.token = ""
        self.traffic_done = asyncio.Event()
        self.traffic_open = asyncio.Event()  # cleared for a moment before the rotation hold
        self.traffic_open.set()
        self.faults_done = asyncio.Event()  # the traffic goes on until the last fault is over
        self.rechallenged: list[str] = []
        self.traffic_errors: list[str] = []
        self.receipt_keys: dict[str, SigningKey] = {}
        self.stuck: list[str] = []

    # -- environment ----------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        master = base64.urlsafe_b64encode(os.urandom(32)).decode().rstrip("=")
        return {
            **{k: v for k, v in os.environ.items() if not k.startswith("HOOKPROOF_")},
            "HOOKPROOF_DATABASE_URL": self.db_url,
            "HOOKPROOF_DATA_DIR": str(self.tmp / "data"),
            "HOOKPROOF_MASTER_KEY": master,
            "HOOKPROOF_EGRESS_CA_FILE": str(self.tmp / "ca.pem"),
            "HOOKPROOF_DNS_SERVERS": f"127.0.0.1:{DNS_PORT}",
            "HOOKPROOF_ADMIN_TOKEN": ADMIN_TOKEN,
            "HOOKPROOF_RECEIPTS_URL": self.receipts_url,
            "HOOKPROOF_CONNECT_TIMEOUT": "1",
            "HOOKPROOF_REQUEST_TIMEOUT": "3",
            "HOOKPROOF_LEASE_MARGIN": "1",
        }

    async def setup(self) -> None:
        say("setup: certificates, Postgres, DNS, counters, subscriber fleet, two daemons")
        ca = trustme.CA()
        cert = ca.issue_cert(*NAMES, *ADDRESSES)
        ca.cert_pem.write_to_path(str(self.tmp / "ca.pem"))
        cert.private_key_pem.write_to_path(str(self.tmp / "key.pem"))
        cert.cert_chain_pems[0].write_to_path(str(self.tmp / "cert.pem"))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            import pgserver
        (self.tmp / "pg").mkdir()
        self.pg = pgserver.get_server(str(self.tmp / "pg"), cleanup_mode="stop")
        self.db_url = self.pg.get_uri()
        # one database role per daemon: the observer can tell the daemons' sessions apart
        import asyncpg

        conn = await asyncpg.connect(self.db_url)
        try:
            for name in DAEMON_PORTS:
                await conn.execute(f"CREATE ROLE {ROLE_PREFIX}{name.lower()} LOGIN SUPERUSER")
        finally:
            await conn.close()
        self.receipts_url = f"http://127.0.0.1:{DAEMON_PORTS['B']}/v1/receipts"
        self.dns = await DnsServer(DNS_PORT).start()
        self.dns.records.update({k: list(v) for k, v in NAMES.items()})
        self.elsewhere = await Counter(ELSEWHERE).start()
        self.private = await Counter(PRIVATE).start()
        self.http = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=30))
        base_cfg = {
            "certFile": str(self.tmp / "cert.pem"),
            "keyFile": str(self.tmp / "key.pem"),
            "receiptsUrl": self.receipts_url,
            "receiptTargets": [
                f"http://127.0.0.1:{DAEMON_PORTS['B']}/v1/receipts",
                f"http://127.0.0.1:{DAEMON_PORTS['A']}/v1/receipts",
            ],
            "jwksUrls": [
                f"http://127.0.0.1:{p}/.well-known/hookproof/jwks.json"
                for p in (DAEMON_PORTS["B"], DAEMON_PORTS["A"])
            ],
        }
        self.fleets = {
            "shop": FleetProc("shop", [SHOP], base_cfg, self.tmp),
            "edge": FleetProc("edge", [EDGE, REBIND], base_cfg, self.tmp),
            "new": FleetProc("new", [NEW], base_cfg, self.tmp),
        }
        for f in self.fleets.values():
            await f.start()
        env = self.env()
        self.base_env = env
        r = await self.cli(["migrate"])
        assert r[0] == 0, r
        help_text = (await self.cli(["serve", "--help"]))[1]
        workers = "--workers" in help_text
        info = self.pg.get_postmaster_info()
        self.daemons = {
            n: Daemon(
                n,
                env,
                self.tmp,
                workers,
                info.get_uri(user=f"{ROLE_PREFIX}{n.lower()}", database="postgres"),
            )
            for n in ("A", "B")
        }
        await asyncio.gather(*(d.start() for d in self.daemons.values()))
        for f in self.fleets.values():
            await f.ready(self.http)
        code, out = await self.cli(["tenant", "create", "faults", "--json"])
        assert code == 0, out
        # stdout's JSON line (stderr, read with it, says which database the CLI used)
        self.token = json.loads([x for x in out.splitlines() if x.startswith("{")][-1])["token"]
        say(
            f"ready: daemons A pid {self.daemons['A'].pid}, B pid {self.daemons['B'].pid}"
            f" (--workers 1: {workers})"
        )

    async def teardown(self) -> None:
        for d in getattr(self, "daemons", {}).values():
            await d.stop()
        for f in getattr(self, "fleets", {}).values():
            await f.stop()
        for c in (getattr(self, "elsewhere", None), getattr(self, "private", None)):
            if c is not None:
                await c.close()
        if getattr(self, "dns", None) is not None:
            await self.dns.close()
        if getattr(self, "http", None) is not None:
            await self.http.close()
        if getattr(self, "pg", None) is not None:
            import pgserver

            # after the restart the postmaster is a new process pgserver's handle does not
            # know: stop it by its data folder
            with contextlib.suppress(Exception):
                await asyncio.to_thread(
                    pgserver.pg_ctl,
                    ["-w", "-m", "fast", "stop"],
                    pgdata=Path(self.tmp / "pg"),
                    user=self.pg.system_user,
                    timeout=60,
                )
            with contextlib.suppress(Exception):
                self.pg.cleanup()

    async def cli(self, args: list[str], limit_s: float = 120) -> tuple[int, str]:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "hookproof.engine.cli",
            *args,
            env=getattr(self, "base_env", None) or self.env(),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), limit_s)
        code = int(proc.returncode or 0)
        # stdout is what the command answers; stderr (which database it used, warnings) only
        # matters when it failed, and is then appended for the message
        return code, out.decode() + ("" if code == 0 else err.decode())

    # -- the API, through whichever daemon is up ---------------------------------------------

    def live(self) -> list[Daemon]:
        order = [self.daemons["B"], self.daemons["A"]]
        return [d for d in order if not d.stopped and d.proc is not None and d.proc.poll() is None]

    async def api(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        token: str | None = None,
        data: bytes | None = None,
        tries: int = 40,
    ) -> tuple[int, Any]:
        h = {"Authorization": f"Bearer {token or self.token}", **(headers or {})}
        last: Exception | None = None
        for _ in range(tries):
            for d in self.live():
                try:
                    async with self.http.request(
                        method,
                        d.base + path,
                        json=body if data is None else None,
                        data=data,
                        headers=h,
                        timeout=aiohttp.ClientTimeout(total=10),
                    ) as r:
                        raw = await r.read()
                        if r.status >= 500 or r.status == 503:
                            last = RuntimeError(f"{r.status} {raw[:200]!r}")
                            continue
                        doc = json.loads(raw) if raw and "json" in r.content_type else raw
                        return r.status, doc
                except (aiohttp.ClientError, TimeoutError) as exc:
                    last = exc
            await asyncio.sleep(0.5)
        raise RuntimeError(f"{method} {path}: no daemon answered ({last!r})")

    async def fleet_routes(self, fleet: str, routes: dict[str, dict[str, Any]]) -> None:
        f = self.fleets[fleet]
        for key in routes:
            self.route_fleet[key] = f
        async with self.http.post(f.ctl + "/routes", json=routes) as r:
            assert r.status == 200, await r.text()

    async def fleet_log(self, fleet: str) -> list[dict[str, Any]]:
        async with self.http.get(self.fleets[fleet].ctl + "/log") as r:
            return list((await r.json())["items"])

    async def all_logs(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for name in self.fleets:
            out += await self.fleet_log(name)
        return out

    async def stats(self, route: str) -> dict[str, Any]:
        async with self.http.get(self.route_fleet[route].ctl + "/stats") as r:
            return dict((await r.json()).get(route, {}))

    # -- subscriptions and events ------------------------------------------------------------

    async def register(
        self,
        label: str,
        fleet: str,
        route: str,
        topic: str,
        *,
        mode: str = "sdk",
        receipts: bool = False,
        retry: dict[str, Any] | None = None,
        route_cfg: dict[str, Any] | None = None,
        **over: Any,
    ) -> str:
        cfg: dict[str, Any] = {"mode": mode, **(route_cfg or {})}
        body: dict[str, Any] = {
            "endpoint": f"https://{route}",
            "topics": [topic],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": OWNER,
            "retryPolicy": retry or FAST,
            **over,
        }
        if receipts:
            key = SigningKey.generate_ed25519(f"rk-{label}")
            self.receipt_keys[label] = key
            assert key.private_key is not None
            raw = key.private_key.private_bytes(
                serialization.Encoding.Raw,
                serialization.PrivateFormat.Raw,
                serialization.NoEncryption(),
            )
            cfg["receiptKey"] = {
                "keyId": key.key_id,
                "d": base64.urlsafe_b64encode(raw).decode().rstrip("="),
            }
            body["receiptKey"] = {"keyId": key.key_id, "publicKeyJwk": public_jwk(key)}
            self.receipt_routes.append(route)
        await self.fleet_routes(fleet, {route: cfg})
        status, doc = await self.api("POST", "/v1/subscriptions", body)
        assert status == 201, (label, status, doc)
        sid = str(doc["id"])
        self.subs[label] = sid
        self.endpoint_of[(sid, str(doc["generation"]))] = route
        return sid

    async def sub(self, sid: str) -> dict[str, Any]:
        status, doc = await self.api("GET", f"/v1/subscriptions/{sid}")
        assert status == 200, doc
        return dict(doc)

    async def wait_sub(
        self, sid: str, pred: Callable[[dict[str, Any]], bool], limit_s: float = 30
    ) -> dict[str, Any]:
        limit_s *= WAIT_SCALE
        deadline = time.monotonic() + limit_s
        doc = await self.sub(sid)
        while not pred(doc) and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            doc = await self.sub(sid)
        return doc

    async def wait_active(self, sid: str) -> dict[str, Any]:
        """Wait for ``sid`` to be ACTIVE. A challenge that failed before any activation (on a
        loaded machine the campaign's own DNS server can answer too late: dns_failure) is
        issued again, at most twice; each one is listed in ``rechallenged`` in the JSON."""
        for tries in range(3):
            doc = await self.wait_sub(
                sid, lambda s: s["state"] == "ACTIVE" or bool(s.get("lastReason"))
            )
            if doc["state"] == "ACTIVE" or doc["state"] != "PENDING_CHALLENGE" or tries == 2:
                return doc
            self.rechallenged.append(f"{sid}: {doc.get('lastReason')}")
            await self.api("POST", f"/v1/subscriptions/{sid}/challenge")
        return doc

    async def history(self, sid: str) -> list[dict[str, Any]]:
        status, doc = await self.api("GET", f"/v1/subscriptions/{sid}/history")
        assert status == 200, doc
        return list(doc["items"])

    async def publish(
        self, event_id: str, topic: str, payload: Any = None, *, tries: int = 60
    ) -> tuple[int, Any]:
        body = {
            "eventId": event_id,
            "topic": topic,
            "version": "1.0",
            "aggregateId": f"agg-{event_id}",
            "aggregateVersion": 1,
            "occurredAt": "2026-11-30T10:00:00Z",
            "payload": payload if payload is not None else {"id": event_id, "amount": 42},
        }
        status, doc = await self.api("POST", "/v1/events", body, tries=tries)
        if status == 202:
            if event_id not in self.all_events:
                self.deliveries_planned += len(doc.get("deliveries", []))
            self.all_events.add(event_id)
        return status, doc

    async def publish_many(self, prefix: str, topic: str, n: int) -> list[str]:
        ids: list[str] = []
        for i in range(n):
            status, doc = await self.publish(f"{prefix}-{i}", topic)
            assert status == 202, doc
            ids += [d["deliveryId"] for d in doc["deliveries"]]
        return ids

    async def view(self, did: str) -> dict[str, Any]:
        status, doc = await self.api("GET", f"/v1/deliveries/{did}")
        assert status == 200, doc
        return dict(doc)

    async def views(self, ids: list[str]) -> list[dict[str, Any]]:
        return list(await asyncio.gather(*(self.view(d) for d in ids)))

    async def wait_views(
        self, ids: list[str], pred: Callable[[dict[str, Any]], bool], limit_s: float = 40
    ) -> list[dict[str, Any]]:
        deadline = time.monotonic() + limit_s * WAIT_SCALE
        vs = await self.views(ids)
        while not all(pred(v) for v in vs) and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            vs = await self.views(ids)
        return vs

    # -- ordinary traffic ----------------------------------------------------------------------

    async def traffic(self, seconds: float) -> None:
        rate = self.n_events / seconds
        queue: asyncio.Queue[int] = asyncio.Queue()
        for i in range(self.n_events):
            queue.put_nowait(i)
        start = time.monotonic()

        extra = iter(range(self.n_events, 10 * self.n_events))

        async def worker() -> None:
            while not queue.empty() or not self.faults_done.is_set():
                # past the planned events, at the same rate, until the last fault is over
                i = queue.get_nowait() if not queue.empty() else next(extra)
                wait = start + i / rate - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                eid = f"ord-{i}"
                await self.traffic_open.wait()
                try:
                    status, doc = await self.publish(eid, "order.created", {"i": i, "n": "x" * 64})
                except RuntimeError as exc:
                    self.traffic_errors.append(f"{eid}: {exc}")
                    continue
                if status == 202:
                    self.accepted[eid] = [d["deliveryId"] for d in doc["deliveries"]]
                else:
                    self.traffic_errors.append(f"{eid}: {status}")

        await asyncio.gather(*(worker() for _ in range(6)))
        self.traffic_done.set()
        say(f"traffic: {len(self.accepted)} ordinary events accepted")

    # -- scenarios -----------------------------------------------------------------------------

    def record(self, name: str, verdict: tuple[bool, str], protection: str) -> None:
        passed, detail = verdict
        self.scenarios.append(
            {"name": name, "passed": passed, "detail": detail, "protection": protection}
        )
        say(f"scenario {name}: {'PASS' if passed else 'FAIL'}: {detail}")

    async def guarded(self, name: str, protection: str, coro: Awaitable[Any]) -> None:
        try:
            verdict = await coro
        except Exception as exc:  # a scenario that could not run is a failed scenario
            verdict = (False, f"could not run: {type(exc).__name__}: {exc}"[:400])
        self.record(name, verdict, protection)

    async def sc_replayed_challenge(self) -> tuple[bool, str]:
        rp = await self.register("rp", "shop", "shop.faults.test/rp", "faults.rp", mode="capture")
        first = await self.wait_active(rp)
        await self.fleet_routes("shop", {"shop.faults.test/rp": {"mode": "replay"}})
        status, out = await self.api("POST", f"/v1/subscriptions/{rp}/challenge")
        answer = dict(out.get("challenge", out)) if isinstance(out, dict) else {"status": status}
        after = await self.sub(rp)
        passes = [e for e in await self.history(rp) if e["type"] == "subscription.challenge_passed"]
        other = await self.register(
            "rp2",
            "shop",
            "shop.faults.test/rp2",
            "faults.rp",
            mode="replay",
            route_cfg={"replayFrom": "shop.faults.test/rp"},
        )
        await self.wait_sub(
            other, lambda s: s.get("state") != "PENDING_CHALLENGE" or bool(s.get("lastReason")), 8
        )
        await asyncio.sleep(1.0)
        other_doc = await self.sub(other)
        other_hist = await self.history(other)
        other_passes = [e for e in other_hist if e["type"] == "subscription.challenge_passed"]
        return checks.check_replayed_challenge(
            first["state"],
            answer,
            after["state"],
            len(passes),
            other_doc["state"],
            len(other_passes),
        )

    async def sc_conflict(self) -> tuple[bool, str]:
        eid = "conflict-1"
        first = await self.publish(eid, "order.created", {"amount": 10})
        self.accepted[eid] = [d["deliveryId"] for d in first[1]["deliveries"]]
        before = [d["deliveryId"] for d in first[1]["deliveries"]]
        second = await self.publish(eid, "order.created", {"amount": 11})
        again = await self.publish(eid, "order.created", {"amount": 10})
        status, ev = await self.api("GET", f"/v1/events/{eid}")
        after = [d["deliveryId"] for d in ev.get("deliveries", [])] if status == 200 else []
        code, out = await self.cli(["audit", "event", eid, "--json"])
        conflicts = 0
        if code == 0:
            doc = json.loads(out.strip().splitlines()[-1] if out.strip().startswith("{") else out)
            conflicts = int((doc.get("state") or {}).get("payloadConflicts") or 0)
        return checks.check_conflict(first, second, again, before, after, conflicts)

    async def sc_redirect(self) -> tuple[bool, str]:
        sid = await self.register(
            "rd",
            "edge",
            "redirect.faults.test/rd",
            "faults.redirect",
            mode="redirect",
            retry=SHORT,
            route_cfg={"location": "https://elsewhere.faults.test/landing"},
        )
        await self.wait_active(sid)
        ids = await self.publish_many("rd", "faults.redirect", 3)
        vs = await self.wait_views(ids, lambda v: v["state"] in TERMINAL, 30)
        self.scenario_views = getattr(self, "scenario_views", []) + vs
        return checks.check_redirect(vs, self.elsewhere.connections)

    async def sc_reencode(self) -> tuple[bool, str]:
        route = "proxy.faults.test/px"
        sid = await self.register("px", "edge", route, "faults.proxy", retry=SHORT)
        await self.wait_active(sid)
        await self.fleet_routes("edge", {route: {"mode": "reencode"}})
        ids = await self.publish_many("px", "faults.proxy", 3)
        vs = await self.wait_views(ids, lambda v: v["state"] in TERMINAL, 30)
        self.scenario_views = getattr(self, "scenario_views", []) + vs
        recs = [r for r in await self.fleet_log("edge") if r["route"] == route]
        return checks.check_reencode([r for r in recs if r["kind"] == "delivery"], vs)

    async def sc_lossy_and_forged(self) -> None:
        route = "shop.faults.test/lossy"
        sid = await self.register("ls", "shop", route, "faults.lossy", mode="lossy", receipts=True)
        await self.wait_active(sid)
        ids = await self.publish_many("ls", "faults.lossy", 3)
        self.lossy_ids = ids
        vs = await self.wait_views(ids, lambda v: v["state"] in TERMINAL, 30)
        await asyncio.sleep(1.0)  # a receipt, if one were (wrongly) sent, would have landed
        vs = await self.views(ids)
        st = await self.stats(route)
        self.record(
            "2xx then the work is lost",
            checks.check_lossy(vs, st.get("effects", {}), st.get("receipts", [])),
            "application never inferred from a 2xx (tests/e2e/test_ladder.py::"
            "test_2xx_without_enqueue_then_redelivery_applies_exactly_once)",
        )
        await self.guarded(
            "forged receipts",
            "receipt verification (tests/receipts/test_receive.py::"
            "test_forged_receipts_are_refused_with_their_reason_and_move_nothing)",
            self._forged(sid, vs[0]),
        )

    async def _forged(self, sid: str, view: dict[str, Any]) -> tuple[bool, str]:
        real = self.receipt_keys["ls"]
        fields = {
            "subscription_id": sid,
            "event_id": view["eventId"],
            "delivery_id": view["deliveryId"],
            "payload_digest": view["payloadDigest"],
            "operation_id": "op-forged",
        }
        good = build_receipt(**fields, receipt_key_generation=1)
        url = self.receipts_url
        stranger = SigningKey.generate_ed25519("rk-stranger")
        impostor = SigningKey.generate_ed25519(real.key_id)
        cases: list[tuple[str, tuple[dict[str, str], bytes]]] = [
            ("unknown key", sign_receipt(good, url=url, key=stranger)),
            ("another key under the real key id", sign_receipt(good, url=url, key=impostor)),
        ]
        h, body = sign_receipt(good, url=url, key=impostor)
        cases.append(("altered after signing", (h, body.replace(b"op-forged", b"op-f0rged"))))
        wrong_gen = build_receipt(**fields, receipt_key_generation=2)
        cases.append(("wrong key generation", sign_receipt(wrong_gen, url=url, key=real)))
        before = await self.view(view["deliveryId"])
        answers: list[tuple[str, int, str | None]] = []
        for name, (headers, data) in cases:
            status, doc = await self.api(
                "POST", "/v1/receipts", headers=headers, data=data, token="none"
            )
            answers.append((name, status, doc.get("code") if isinstance(doc, dict) else None))
        await asyncio.sleep(0.5)
        after = await self.view(view["deliveryId"])
        return checks.check_forged_receipts(answers, before, after)

    async def sc_lost_response(self) -> tuple[bool, str]:
        route = "shop.faults.test/drop"
        sid = await self.register("dr", "shop", route, "faults.drop", mode="drop")
        rroute = "shop.faults.test/drop-r"
        rsid = await self.register(
            "dr2",
            "shop",
            rroute,
            "faults.dropr",
            mode="drop",
            receipts=True,
            route_cfg={"receiptDelay": 4, "receiptAfterRetry": True},
        )
        await self.wait_active(sid)
        await self.wait_active(rsid)
        ids = await self.publish_many("dr", "faults.drop", 3)
        rids = await self.publish_many("dr2", "faults.dropr", 3)
        vs = await self.wait_views(ids, lambda v: v["state"] in TERMINAL, 40)
        rvs = await self.wait_views(rids, lambda v: v["state"] == "APPLICATION_CONFIRMED", 40)
        self.scenario_views = getattr(self, "scenario_views", []) + vs + rvs
        recs = [r for r in await self.fleet_log("shop") if r["route"] in (route, rroute)]
        passed, detail = checks.check_lost_response(vs + rvs, recs)
        unobservable = {v["evidence"]["application"] for v in vs}
        confirmed = {v["evidence"]["application"] for v in rvs}
        effects = (await self.stats(rroute)).get("effects", {})
        problems = []
        if unobservable != {"UNOBSERVABLE"}:
            problems.append(f"without receipts the application layer is {unobservable}")
        if confirmed != {"CONFIRMED"} or any(n != 1 for n in effects.values()) or not effects:
            problems.append(f"receipt subscription: {confirmed}, effects {effects}")
        if problems:
            return False, "; ".join([*problems, detail])
        return passed, (
            f"{detail}; without receipts UNOBSERVABLE, with receipts CONFIRMED and applied once"
        )

    async def sc_dns_flip(self) -> tuple[bool, str]:
        route = "rebind.faults.test/df"
        sid = await self.register("df", "edge", route, "faults.dns")
        await self.wait_active(sid)
        before = await self.publish_many("df-before", "faults.dns", 1)
        await self.wait_views(before, lambda v: v["state"] in checks.ACCEPTED, 30)
        seen_before = len([r for r in await self.fleet_log("edge") if r["route"] == route])
        self.dns.records["rebind.faults.test"] = [PRIVATE]
        await self.publish_many("df", "faults.dns", 3)
        doc = await self.wait_sub(sid, lambda s: s["state"] == "SUSPENDED", 30)
        await asyncio.sleep(1.0)
        recs = [r for r in await self.fleet_log("edge") if r["route"] == route]
        after = [
            f"{r['webhookId']}#{r['attempt']}"
            for r in recs[seen_before:]
            if r["kind"] == "delivery"
        ]
        return checks.check_dns_flip(
            self.private.connections, doc["state"], doc.get("lastReason"), after
        )

    async def sc_revoke_race(self) -> tuple[bool, str]:
        route = "shop.faults.test/race"
        sid = await self.register(
            "rv", "shop", route, "faults.race", mode="slow", route_cfg={"delay": 0.3}
        )
        await self.wait_active(sid)
        results = await asyncio.gather(*(self.publish(f"rv-{i}", "faults.race") for i in range(40)))
        ids = [d["deliveryId"] for _s, doc in results for d in doc["deliveries"]]
        await asyncio.sleep(0.2)  # the dispatchers are admitting these now
        status, _doc = await self.api("POST", f"/v1/subscriptions/{sid}/revoke", {"reason": "race"})
        assert status == 200, _doc
        vs = await self.wait_views(ids, lambda v: v["state"] in TERMINAL, 30)
        rows = await self.log_query("revoke_race", sid)
        revoke_version = rows[0]["revoke_version"] if rows else None
        admissions = [
            (r["stream_id"], r["generation"], r["seen_version"]) for r in rows if r["stream_id"]
        ]
        return checks.check_revoke_race(revoke_version, admissions, vs)

    async def log_query(self, name: str, *args: Any, readonly: bool = True) -> list[dict[str, Any]]:
        """An observer's query (bench/faults/sql/NAME.sql), read-only unless said otherwise."""
        import asyncpg

        sql = (HERE / "sql" / f"{name}.sql").read_text()
        conn = await asyncpg.connect(self.db_url)
        try:
            async with conn.transaction(readonly=readonly):
                return [dict(r) for r in await conn.fetch(sql, *args)]
        finally:
            await conn.close()

    async def sc_late_worker(self) -> tuple[bool, str]:
        old_route, new_route = "old.faults.test/lw", "new.faults.test/lw"
        sid = await self.register(
            "lw",
            "edge",
            old_route,
            "faults.late",
            mode="slow",
            route_cfg={"delay": 1.5},
            oldGenerationPolicy="quarantine",
        )
        await self.fleet_routes("new", {new_route: {"mode": "sdk"}})
        await self.wait_active(sid)
        stopped: Daemon | None = None
        stop_tries = 0
        held: list[str] = []
        old_ids: list[str] = []
        for round_ in range(4):
            old_ids += await self.publish_many(f"lw-{round_}", "faults.late", 4)
            deadline = time.monotonic() + 8
            while time.monotonic() < deadline and stopped is None:
                holder = await self.holder(old_ids)
                if holder is not None:
                    # stopped at once, wherever it is: its attempt must still be in flight
                    # (a stop inside a transaction is handled by nudge_until)
                    holder.signal(signal.SIGSTOP)
                    stop_tries = 1
                    held = await self.held_by(old_ids, holder)
                    if held:
                        stopped = holder
                    else:  # it finished them while being stopped cleanly: try again
                        holder.signal(signal.SIGCONT)
                await asyncio.sleep(0.05)
            if stopped is not None:
                break
        if stopped is None:
            return False, "no daemon was caught holding an admitted attempt"
        fault = {
            "fault": "SIGSTOP",
            "daemon": stopped.name,
            "at": now_iso(),
            "stopTries": stop_tries,
        }
        self.faults.append(fault)
        say(f"late worker: daemon {stopped.name} stopped holding {len(held)} attempt(s)")
        patch = asyncio.ensure_future(
            self.api(
                "PATCH",
                f"/v1/subscriptions/{sid}",
                {"endpoint": f"https://{new_route}"},
                headers={"If-Match": '"1"'},
            )
        )
        nudges = await self.nudge_until(patch, stopped)
        status, doc = patch.result()
        assert status == 200, doc
        self.endpoint_of[(sid, "2")] = new_route
        await self.wait_sub(sid, lambda s: s["state"] == "ACTIVE" and s["generation"] == 2, 30)
        new_ids = await self.publish_many("lw-new", "faults.late", 4)
        # let the other daemon take over the stopped one's leases, then wake it up
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            vs = await self.views(held)
            if all((v.get("attempts") or [{}])[-1].get("outcome") != "DISPATCHING" for v in vs):
                break
            await asyncio.sleep(0.5)
        stopped.signal(signal.SIGCONT)
        fault["resumedAt"] = now_iso()
        fault["endedTransactions"] = nudges
        await asyncio.sleep(2.0)
        old_vs = await self.wait_views(old_ids, lambda v: v["state"] in TERMINAL, 30)
        new_vs = await self.wait_views(new_ids, lambda v: v["state"] in checks.ACCEPTED, 30)
        self.scenario_views = getattr(self, "scenario_views", []) + old_vs + new_vs
        records = await self.fleet_log("edge") + await self.fleet_log("new")
        return checks.check_late_worker(len(held), old_route, new_route, records, old_vs, new_vs)

    async def holder(self, ids: list[str]) -> Daemon | None:
        """A live daemon holding an admitted, unfinished attempt of one of *ids*."""
        for v in await self.views(ids):
            last = (v.get("attempts") or [{}])[-1]
            if last.get("outcome") == "DISPATCHING":
                for d in self.live():
                    if f":{d.pid}:" in str(last.get("dispatcher")):
                        return d
        return None

    async def held_by(self, ids: list[str], d: Daemon) -> list[str]:
        return [
            v["deliveryId"]
            for v in await self.views(ids)
            if (v.get("attempts") or [{}])[-1].get("outcome") == "DISPATCHING"
            and f":{d.pid}:" in str(v["attempts"][-1].get("dispatcher"))
        ]

    async def nudge_until(self, task: asyncio.Future[Any], stopped: Daemon) -> int:
        """A request may wait on a lock held by a transaction the stopped daemon left open.
        After a second, end those transactions (``sql/terminate_open_transactions.sql``: what
        Postgres does itself after the engine's idle-in-transaction timeout) instead of
        letting the held daemon run. Returns how many sessions were ended."""
        ended = 0
        while not task.done():
            await asyncio.wait({task}, timeout=1.0)
            if not task.done():
                rows = await self.log_query(
                    "terminate_open_transactions", stopped.role, readonly=False
                )
                ended += sum(1 for r in rows if r["terminated"])
        return ended

    async def clean_stop(self, d: Daemon) -> int:
        """SIGSTOP *d* outside any transaction of its own (no session left idle inside one
        after the stop), so the campaign's requests do not wait on its locks. Returns the
        tries; what held a transaction open each time is kept in ``self.stuck``."""
        for tries in range(1, 11):
            d.signal(signal.SIGSTOP)
            await asyncio.sleep(0.1)
            rows = await self.log_query("stuck_transactions", d.role)
            if not rows:
                return tries
            self.stuck.extend(
                f"{r['state']} {r['xact_s']:.1f}s: {str(r['query'])[:90]}" for r in rows[:3]
            )
            d.signal(signal.SIGCONT)
            await asyncio.sleep(0.01 + 0.04 * random.random())
        d.signal(signal.SIGSTOP)
        return 11

    async def rotate_once(self, d: Daemon) -> tuple[int, Any]:
        """One operator rotation request, never repeated (a retry would rotate again)."""
        async with self.http.post(
            d.base + "/v1/keys/rotate",
            headers={"Authorization": f"Bearer {ADMIN_TOKEN}"},
            timeout=aiohttp.ClientTimeout(total=120),
        ) as r:
            return r.status, await r.json(content_type=None)

    async def sc_rotation(self) -> None:
        held = self.daemons["A"]
        start_t = time.time()
        # a quiet moment (2 s without new events) so the daemon can be held outside any of
        # its transactions; the traffic resumes through the other daemon during the rotation
        self.traffic_open.clear()
        await asyncio.sleep(2.0)
        try:
            tries = await self.clean_stop(held)
        finally:
            self.traffic_open.set()
        fault = {
            "fault": "SIGSTOP across key rotation",
            "daemon": held.name,
            "at": now_iso(),
            "stopTries": tries,
        }
        self.faults.append(fault)
        rotate = asyncio.ensure_future(self.rotate_once(self.daemons["B"]))
        nudges = await self.nudge_until(rotate, held)
        status, report = rotate.result()
        await asyncio.sleep(1.5)  # traffic keeps flowing through the other daemon
        held.signal(signal.SIGCONT)
        fault.update(resumedAt=now_iso(), endedTransactions=nudges)
        rotated = status == 200 and isinstance(report, dict) and "keyId" in report
        self.rotation = report if rotated else {}
        self.rotation_ctx = (start_t, rotated, report)
        say(f"rotation done ({nudges} held transaction(s) ended); verdict at the end of the run")

    async def rotation_verdict(self) -> tuple[bool, str]:
        """Judged over every delivery from the rotation to the end of the run (all of it
        inside the previous key's VERIFY_ONLY window)."""
        start_t, rotated, report = self.rotation_ctx
        _s, jwks = await self.api("GET", "/.well-known/hookproof/jwks.json")
        published = {k.get("kid") for k in (jwks or {}).get("keys", [])}
        previous = report.get("previousKeyId") if rotated else None
        delivered = [
            r
            for r in await self.all_logs()
            if r.get("kind") == "delivery" and r.get("route") in self.verifying_routes()
        ]
        records = [r for r in delivered if r.get("t", 0) >= start_t]
        passed, detail = checks.check_rotation(
            rotated,
            previous in published,
            records,
            previous,
            report.get("keyId") if rotated else None,
            {
                r.get("deliveryId")
                for r in delivered
                if r.get("t", 0) < start_t and r.get("reason") == checks.SIGNATURE_OK
            },
        )
        if rotated and report.get("suspended"):
            detail += f"; suspended by the round: {report['suspended']}"
        return passed, detail

    def verifying_routes(self) -> set[str]:
        """Routes whose subscriber verifies every delivery and is meant to accept it."""
        return {
            *self.ordinary_routes,
            "shop.faults.test/drop",
            "shop.faults.test/drop-r",
            "shop.faults.test/lossy",
            "new.faults.test/lw",
            "old.faults.test/lw",
        }

    # -- faults without a scenario of their own --------------------------------------------------

    async def kill_daemon(self) -> None:
        victim = self.daemons["B"]
        say("fault: SIGKILL daemon B mid-traffic")
        victim.signal(signal.SIGKILL)
        assert victim.proc is not None
        victim.proc.wait()
        fault = {"fault": "SIGKILL", "daemon": "B", "at": now_iso()}
        self.faults.append(fault)
        await asyncio.sleep(2.0)
        await victim.start()
        fault["restartedAt"] = now_iso()

    async def restart_postgres(self) -> None:
        import pgserver

        say("fault: Postgres restart mid-traffic")
        fault: dict[str, Any] = {"fault": "postgres restart", "at": now_iso()}
        self.faults.append(fault)
        await asyncio.to_thread(
            pgserver.pg_ctl,
            ["-w", "-m", "fast", "restart"],
            pgdata=Path(self.tmp / "pg"),
            user=self.pg.system_user,
            timeout=60,
        )
        fault["restartedAt"] = now_iso()
        for d in self.daemons.values():
            await d.wait_ready(60)
        fault["daemonsReadyAt"] = now_iso()

    # -- the run -----------------------------------------------------------------------------

    async def run(self) -> int:
        await self.setup()
        say("registering the ordinary subscriptions")
        s1 = await self.register(
            "orders-r", "shop", "shop.faults.test/orders-r", "order.created", receipts=True
        )
        s2 = await self.register("orders-p", "edge", "old.faults.test/orders-p", "order.created")
        self.ordinary_routes = ["shop.faults.test/orders-r", "old.faults.test/orders-p"]
        for sid in (s1, s2):
            doc = await self.wait_active(sid)
            assert doc["state"] == "ACTIVE", doc
        traffic_s = max(60.0, self.n_events / 20)
        traffic = asyncio.ensure_future(self.traffic(traffic_s))
        say(f"ordinary traffic: {self.n_events} events over {traffic_s:.0f}s; scenarios start")

        await asyncio.gather(
            self.guarded(
                "replayed challenge answer",
                "challenge replay/consumption check (tests/challenge/test_failures.py::"
                "test_earlier_valid_answer_replayed_to_a_new_challenge, "
                "test_replay_to_the_same_consumed_challenge)",
                self.sc_replayed_challenge(),
            ),
            self.guarded(
                "same event id, other payload",
                "per-event payload digest check at ingest (tests/delivery/test_ledger.py::"
                "test_same_event_id_other_payload_is_409_and_nothing_planned_twice)",
                self.sc_conflict(),
            ),
            self.guarded(
                "307 to another host",
                "allow_redirects=False, 3xx a failure (tests/egress/test_egress_transport.py::"
                "test_redirect_is_failure_and_never_followed, tests/delivery/test_ledger.py::"
                "test_3xx_is_a_failure_and_location_is_never_contacted)",
                self.sc_redirect(),
            ),
            self.guarded(
                "proxy re-encodes the JSON",
                "Content-Digest over the exact bytes sent (tests/sig/test_reasons.py::"
                "test_proxy_re_encoding_json_is_digest_mismatch, tests/sig/test_mutations.py)",
                self.sc_reencode(),
            ),
            self.sc_lossy_and_forged(),
            self.guarded(
                "2xx lost on the way back",
                "lost response is UNKNOWN_TRANSPORT, retried with the same identity (tests/delivery/"
                "test_ledger.py::test_lost_response_is_unknown_transport_then_same_identity, "
                "tests/e2e/test_ladder.py::test_lost_2xx_then_retry_one_effect_one_receipt)",
                self.sc_lost_response(),
            ),
            self.guarded(
                "DNS flipped to a private address",
                "drift guard + address deny list (tests/challenge/test_drift.py::"
                "test_rebinding_to_a_denied_range_suspends_before_any_connect, "
                "tests/egress/test_egress_netns.py)",
                self.sc_dns_flip(),
            ),
            self.guarded(
                "revoke races the dispatchers",
                "fencing check in the admitting transaction (tests/delivery/test_races.py::"
                "test_admission_waits_for_an_uncommitted_revoke_and_then_refuses, "
                "test_revoke_racing_the_dispatcher_many_interleavings)",
                self.sc_revoke_race(),
            ),
        )
        await self.guarded(
            "late old worker",
            "admission fencing + sender uses only the admitted endpoint (tests/delivery/"
            "test_races.py::test_generation_change_racing_the_dispatcher_never_reaches_the_"
            "new_endpoint)",
            self.sc_late_worker(),
        )
        self.rotation_protection = (
            "the previous key stays VERIFY_ONLY and published (tests/keys/test_jwks_and_verify.py::"
            "test_rotation_half_old_half_new_until_window_ends, tests/sig/test_reasons.py::"
            "test_verify_only_key_verifies_until_its_window_ends)"
        )
        # The kill and the restart come before the rotation, which is the last fault: while
        # daemon A is held across the rotation, every attempt of the window is daemon B's, and
        # a SIGKILL of B right after the window destroyed the outcomes B had not recorded yet
        # (under load, tens of seconds of them): the rotation_acceptance gate then charged the
        # kill to the rotation. Nothing disturbs the window's attempts now but the rotation.
        await self.kill_daemon()
        await asyncio.sleep(3.0)
        await self.restart_postgres()
        await asyncio.sleep(ROTATION_QUIET_S)
        try:
            await self.sc_rotation()
        except Exception as exc:
            self.rotation_ctx = (time.time(), False, {"error": repr(exc)[:300]})
        await asyncio.sleep(10.0)  # deliveries after the rotation, for its verdict
        self.faults_done.set()
        await traffic
        return await self.finish()

    async def rotation_window_settled(self) -> dict[str, Any]:
        """Wait (at most ``ROTATION_SETTLE_S``) until every attempt admitted inside the
        rotation window has its outcome in the log (``sql/rotation_undecided.sql``), so the
        gate judges all of them instead of leaving the slowest out as undecided."""
        started = time.monotonic()
        while True:
            [row] = await self.log_query("rotation_undecided", self.since)
            waited = round(time.monotonic() - started, 1)
            if not row["undecided"] or waited >= ROTATION_SETTLE_S:
                return {**row, "waitedS": waited}
            await asyncio.sleep(2.0)

    async def finish(self) -> int:
        say("traffic over: waiting for every ordinary delivery to settle")
        deadline = time.monotonic() + 90 * WAIT_SCALE
        routes = self.ordinary_routes
        while time.monotonic() < deadline:
            effects = {r: (await self.stats(r)).get("effects", {}) for r in routes}
            if all(all(effects[r].get(e) for e in self.accepted) for r in routes):
                break
            await asyncio.sleep(2.0)
        # final states of every ordinary delivery, through the API
        states: dict[str, str] = {}
        sem = asyncio.Semaphore(8)

        async def one(eid: str) -> None:
            async with sem:
                status, doc = await self.api("GET", f"/v1/events/{eid}")
                if status == 200:
                    for d in doc["deliveries"]:
                        states[d["deliveryId"]] = d["state"]

        for _ in range(int(10 * WAIT_SCALE)):
            await asyncio.gather(*(one(e) for e in self.accepted))
            receipt_ids = {d for ds in self.accepted.values() for d in ds}
            if all(states.get(d) in checks.ACCEPTED for d in receipt_ids):
                break
            await asyncio.sleep(3.0)
        await self.guarded(
            "half the daemons on the old key", self.rotation_protection, self.rotation_verdict()
        )
        effects = {r: (await self.stats(r)).get("effects", {}) for r in routes}
        receipt_effects = {r: (await self.stats(r)).get("effects", {}) for r in self.receipt_routes}
        records = await self.all_logs()
        views = getattr(self, "scenario_views", [])
        # the lossy deliveries must still be unconfirmed at the end
        lossy = await self.views(getattr(self, "lossy_ids", []))
        self.assertion(
            "lossy subscriber never confirmed at the end of the run",
            (
                all(v["evidence"]["application"] != "CONFIRMED" for v in lossy) and bool(lossy),
                f"{len(lossy)} deliveries still {sorted({v['state'] for v in lossy})}",
            ),
        )
        self.assertion("3xx never counted as success", checks.check_no_3xx_success(views))
        self.assertion(
            "no old generation at a new endpoint",
            checks.check_generations_at_endpoints(records, self.endpoint_of),
        )
        self.assertion(
            "receipt subscriptions: no second applied effect",
            checks.check_second_effects(receipt_effects),
        )
        _s, dead = await self.api("GET", "/v1/dead-letters")
        self.assertion(
            "every dead letter has an owner", checks.check_dead_letter_owners(dead["items"])
        )
        self.assertion(
            "nothing accepted lost through the kill and the restart",
            checks.check_nothing_lost(self.accepted, states, effects),
        )
        if self.traffic_errors:
            self.assertion(
                "every ordinary event ingested",
                (False, f"{len(self.traffic_errors)} refused: {self.traffic_errors[:3]}"),
            )

        self.rotation_window = await self.rotation_window_settled()
        say("release gates and audit verify over the run")
        code, out = await self.cli(["gates", "--since", self.since, "--json"], CLI_REPORT_S)
        gates_doc = json.loads(out[out.index("{") :]) if "{" in out else {"gates": []}
        gates = gates_doc.get("gates", [])
        by_name = {g["gate"]: g for g in gates}
        revoked = by_name.get("revoked_key_acceptances", {})
        self.assertion(
            "0 accepted signatures under revoked keys",
            (
                revoked.get("status") in ("pass", "n/a") and not revoked.get("value"),
                f"gate revoked_key_acceptances: {revoked.get('status')} value "
                f"{revoked.get('value')} over {revoked.get('detail', {}).get('checked')}",
            ),
        )
        unobs = by_name.get("second_applied_effect_without_receipts", {})
        self.assertion(
            "subscriptions without receipts reported UNOBSERVABLE",
            (
                unobs.get("status") == "UNOBSERVABLE",
                f"gate says {unobs.get('status')} over {unobs.get('detail')}",
            ),
        )
        vcode, vout = await self.cli(["audit", "verify", "--json"], CLI_REPORT_S)
        try:
            audit = json.loads(vout[vout.index("{") : vout.rindex("}") + 1])
        except ValueError:
            audit = {"ok": False, "output": vout[-500:]}
        audit["exitCode"] = vcode
        seconds = round(time.monotonic() - self.started, 1)
        result = {
            "scenarios": [
                {"name": s["name"], "passed": s["passed"], "detail": s["detail"]}
                for s in self.scenarios
            ],
            "gates": gates,
            "auditVerify": audit,
            "events": len(self.all_events),
            "deliveries": self.deliveries_planned,
            "seconds": seconds,
            "assertions": self.assertions,
            "faults": self.faults,
            "protections": {s["name"]: s["protection"] for s in self.scenarios},
            "gatesExitCode": code,
            "rotation": getattr(self, "rotation", {}),
            "rotationWindow": self.rotation_window,
            "rechallenged": self.rechallenged,
            "load": {"loadavg": os.getloadavg(), "cpus": os.cpu_count()},
            "heldTransactions": self.stuck[:40],
            "engineErrors": self.engine_errors(),
        }
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(result, indent=2) + "\n")
        failed = self.print_table(result)
        return 1 if failed else 0

    def engine_errors(self) -> dict[str, int]:
        """Error-level log lines of the daemons, by event and error type (JSON logs)."""
        counts: dict[str, int] = {}
        for path in sorted(self.tmp.glob("daemon-*.log")):
            for line in path.read_text(errors="replace").splitlines():
                if '"level": "error"' not in line:
                    continue
                try:
                    doc = json.loads(line)
                except ValueError:
                    continue
                key = f"{doc.get('event')}/{doc.get('error')}"
                counts[key] = counts.get(key, 0) + 1
        return dict(sorted(counts.items()))

    def assertion(self, name: str, verdict: tuple[bool, str]) -> None:
        self.assertions.append({"name": name, "passed": verdict[0], "detail": verdict[1]})

    def print_table(self, result: dict[str, Any]) -> bool:
        failed = False
        print()
        print(f"{'scenario':<36} {'result':<6} detail")
        for s in result["scenarios"]:
            failed |= not s["passed"]
            print(f"{s['name']:<36} {'PASS' if s['passed'] else 'FAIL':<6} {s['detail']}")
        if len(result["scenarios"]) != 11:
            failed = True
            print(f"expected 11 scenarios, ran {len(result['scenarios'])}")
        print()
        print(f"{'assertion over the run':<56} {'result':<6} detail")
        for a in result["assertions"]:
            failed |= not a["passed"]
            print(f"{a['name']:<56} {'PASS' if a['passed'] else 'FAIL':<6} {a['detail']}")
        print()
        print(f"{'release gate':<40} {'status':<13} value")
        for g in result["gates"]:
            failed |= g["status"] == "fail"
            print(f"{g['gate']:<40} {g['status']:<13} {g['value']} ({g['threshold']})")
        if not result["gates"]:
            failed = True
            print("no gates reported")
        ok = bool(result["auditVerify"].get("ok"))
        failed |= not ok
        print(
            f"\naudit verify: {'ok' if ok else 'FAILED'} "
            f"({result['auditVerify'].get('events')} events)"
        )
        print(
            f"{result['events']} events, {result['deliveries']} deliveries, "
            f"{result['seconds']}s; faults: "
            + ", ".join(f"{f['fault']} {f.get('daemon', '')}".strip() for f in result["faults"])
        )
        print(f"results: {RESULTS}; {'FAILED' if failed else 'all passed'}")
        return failed


def netns_setup() -> None:
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    for a in ADDRESSES:
        subprocess.run(["ip", "addr", "add", f"{a}/32", "dev", "lo"], check=True)


async def amain(events: int) -> int:
    tmp = Path(tempfile.mkdtemp(prefix="hp-faults-"))
    os.chmod(tmp, 0o755)
    c = Campaign(events, tmp)
    rc = 1
    try:
        rc = await c.run()
        return rc
    finally:
        await c.teardown()
        if rc == 0:  # the database of a passing run is not worth 80 MB; the logs stay
            shutil.rmtree(tmp / "pg", ignore_errors=True)
        say(f"logs kept in {tmp}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=2000, help="ordinary events to publish")
    parser.add_argument("--in-netns", action="store_true", help="set up lo (launch.py does)")
    parser.add_argument("--out", type=Path, default=RESULTS, help="the result JSON")
    args = parser.parse_args()
    globals()["RESULTS"] = args.out.resolve()
    if args.in_netns:
        netns_setup()
    return asyncio.run(amain(args.events))


if __name__ == "__main__":
    sys.exit(main())
