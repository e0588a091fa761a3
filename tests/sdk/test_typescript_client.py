"""The TypeScript sender SDK (``clients/typescript``, ``hookproof-client``) against a real engine:
a ``hookproof serve`` process on a fresh database delivers over real HTTPS (trustme) to a local
receiver. A Node.js sender built only on the SDK's hand-written layer
(``clients/typescript/examples/e2e-sender.mjs``) runs issue 49's sender scenario: a consumer
(renamed, later disabled), event types and three subscriptions, one changed with ``If-Match``
from the last ``ETag`` (another client's stale one is a typed 412), publishes single and batch,
lists deliveries across pages and filtered, reads a delivery, its attempts and timelines, sends
a test event, replays one dead letter and recovers another, sets the branding, lists and ends
portal sessions and gets the typed problems (409 ``PayloadConflict``, 404, 400, 412); the test
checks what it reports against what the receiver got.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import ssl
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TypeVar

import pytest
import trustme
from aiohttp import web

from ..delivery.conftest import Subscriber, ca
from ..live import engine_env, new_tenant, start, stop
from ..parallel import once_per_run

__all__ = ["ca", "receiver_on"]

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "typescript"
SENDER = CLIENT / "examples" / "e2e-sender.mjs"


@pytest.fixture(scope="session")
def ts_client() -> Path:
    """The SDK compiled from its sources (``tsc`` from ``node_modules``: no network)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: the TypeScript client cannot run")
    tsc = CLIENT / "node_modules" / "typescript" / "bin" / "tsc"
    if not tsc.exists():
        pytest.skip("clients/typescript is not installed: `npm ci` there (.ci/run does)")
    built = CLIENT / "dist" / "index.js"

    def build() -> Path:
        subprocess.run(
            ["node", str(tsc), "-p", "tsconfig.json"], cwd=CLIENT, check=True, timeout=180
        )
        return built

    # once per run, whichever xdist worker needs it first (this module or the README's
    # examples): the others wait, never reading it half-written (tests/parallel.py)
    return once_per_run("clients/typescript/dist", build, lambda: built)


class FlakyOnce(Subscriber):
    """The delivery receiver of tests/delivery, plus ``flaky`` and ``lost``: the first delivery
    to each gets a 500 (a dead letter under ``maxAttempts: 1``), every later one is accepted."""

    async def handle(self, request: web.Request) -> web.StreamResponse:
        path = request.path.strip("/")
        if path in ("flaky", "lost"):
            self.modes[path] = "fail500" if not self.deliveries(path) else "ok"
        return await super().handle(request)


S = TypeVar("S", bound=Subscriber)


@asynccontextmanager
async def receiver_on(sub: S, ca: trustme.CA) -> AsyncIterator[S]:
    """*sub* answering HTTPS on a loopback port (a certificate of the test CA)."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(ctx)
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", sub.handle)
    runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.5)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=ctx)
    await site.start()
    sub.port = int(runner.addresses[0][1])
    try:
        yield sub
    finally:
        await runner.cleanup()


@pytest.fixture
async def receiver(ca: trustme.CA) -> AsyncIterator[FlakyOnce]:
    async with receiver_on(FlakyOnce(), ca) as sub:
        yield sub


async def _run_sender(env: dict[str, str]) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        "node",
        str(SENDER),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={"PATH": os.environ.get("PATH", ""), **env},
    )
    try:
        async with asyncio.timeout(240):
            out, err = await proc.communicate()
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    lines = out.decode().strip().splitlines()
    assert proc.returncode == 0 and lines, (proc.returncode, out.decode(), err.decode())
    report: dict[str, Any] = json.loads(lines[-1])
    return report


async def test_typescript_sender_against_a_real_engine(
    ts_client: Path, db_url: str, tmp_path: Path, receiver: FlakyOnce, ca: trustme.CA
) -> None:
    env = engine_env(db_url, tmp_path, receiver.port, ca)
    daemon = await start(env, tmp_path)
    try:
        _, token = await new_tenant(env, "acme")
        report = await _run_sender(
            {
                "HOOKPROOF_URL": daemon.base_url,
                "HOOKPROOF_TOKEN": token,
                "OK_ENDPOINT": receiver.url("ok"),
                "FLAKY_ENDPOINT": receiver.url("flaky"),
                "LOST_ENDPOINT": receiver.url("lost"),
            }
        )
    finally:
        await stop(daemon)
    assert "error" not in report, report.get("error")

    assert report["consumer"] == {"id": "cust-42", "state": "ACTIVE"}
    subs = report["subscriptions"]
    assert all(subs[k].startswith("sub_") for k in ("ok", "flaky", "lost"))
    assert report["whoami"]["kind"] == "tenant"
    assert report["eventTypes"] == {"one": "order.created", "all": ["order.created"]}
    assert report["consumerRenamed"] == {"name": "Customer 42b", "metadata": {"plan": "max"}}

    # PATCH with If-Match from the last ETag: a new generation; the stale ETag is a typed 412
    patch = report["patch"]
    assert patch["after"] == patch["before"] + 1
    assert patch["topics"] == ["order.created", "order.shipped"]
    assert patch["staleTag"] == f'"{patch["before"]}"' and patch["etag"] == f'"{patch["after"]}"'
    stale = patch["stale"]
    assert (stale["name"], stale["status"], stale["code"]) == (
        "PreconditionFailed",
        412,
        "generation_mismatch",
    )
    assert stale["etag"] == patch["etag"] and stale["currentGeneration"] == patch["after"]
    assert patch["topicsAfterStale"] == patch["topics"]
    assert (report["notFound"]["name"], report["notFound"]["status"]) == ("NotFound", 404)
    invalid = report["invalid"]
    assert (invalid["name"], invalid["status"], invalid["field"]) == ("InvalidRequest", 400, "id")

    # single and batch: each accepted once, planned for the one subscription of its topic
    single = report["single"]
    assert single["created"] is True
    assert [d["subscriptionId"] for d in single["deliveries"]] == [subs["ok"]]
    assert single["eventId"].startswith("evt_")
    assert report["again"]["eventId"] == single["eventId"]
    assert report["again"]["created"] is False
    assert report["again"]["deliveries"] == single["deliveries"]
    # no occurredAt pinned: published again by another client, the same event (not a 409)
    unpinned = report["unpinned"]
    assert unpinned["first"]["created"] is True
    assert unpinned["again"]["created"] is False
    assert unpinned["again"]["eventId"] == unpinned["first"]["eventId"]
    assert unpinned["again"]["payloadDigest"] == unpinned["first"]["payloadDigest"]
    batch = report["batch"]
    assert [r["status"] for r in batch] == [202] * 4
    assert len({r["eventId"] for r in batch} | {single["eventId"]}) == 5

    # the receiver got those five events (at least once each) on its accepting endpoint, and
    # not the conflicting payload
    got = [json.loads(r.body) for r in receiver.deliveries("ok")]
    test_event = report["testEvent"]
    assert test_event["test"] is True and test_event["eventId"].startswith("hookproof-test-")
    assert {g["eventId"] for g in got} == {
        single["eventId"],
        test_event["eventId"],
        *(r["eventId"] for r in batch),
    }
    got = [g for g in got if g["eventId"] != test_event["eventId"]]
    assert {g["payload"]["orderId"] for g in got} == {"o-1", "o-2", "o-3", "o-4", "o-5"}
    assert "o-other" not in json.dumps(got)

    # event_payload_conflict as a typed problem naming the payload the engine kept
    assert report["conflict"]["name"] == "PayloadConflict"
    assert report["conflict"]["status"] == 409
    assert report["conflict"]["code"] == "event_payload_conflict"
    assert report["conflict"]["title"]
    assert report["conflict"]["payloadDigest"] == single["payloadDigest"]

    # the delivery log across pages of two: every published delivery, once, accepted
    listed = report["listed"]
    assert sorted(listed["ids"]) == sorted(listed["published"])
    assert len(set(listed["ids"])) == 5
    assert set(listed["states"]) == {"ENDPOINT_ACCEPTED"}
    assert listed["pages"] >= 3
    read = report["read"]
    assert read["filtered"] == 5 and read["state"] == "ENDPOINT_ACCEPTED"
    assert read["attempts"] >= 1 and read["timeline"] >= 2 and read["subscriptionTimeline"] >= 2
    assert read["history"][0] == "subscription.registered"
    assert "subscription.updated" in read["history"]

    # the dead letter: listed, replayed, then accepted; the receiver saw the event twice
    dead = report["deadLetter"]
    assert dead["listed"]["deliveryId"] == dead["deliveryId"]
    assert dead["listed"]["subscriptionId"] == subs["flaky"]
    assert dead["replayed"]["deliveryId"] == dead["deliveryId"]
    assert dead["finalState"] == "ENDPOINT_ACCEPTED"
    flaky = [json.loads(r.body)["eventId"] for r in receiver.deliveries("flaky")]
    assert flaky == [dead["eventId"], dead["eventId"]]

    # the second dead letter: recovered (only it), accepted; its subscription revoked after
    rec = report["recovered"]
    assert rec["answer"]["recovered"] == 1 and rec["answer"]["deliveryIds"] == [rec["deliveryId"]]
    assert rec["finalState"] == "ENDPOINT_ACCEPTED" and rec["revoked"] == "REVOKED"
    lost = [json.loads(r.body)["eventId"] for r in receiver.deliveries("lost")]
    assert lost == [rec["eventId"], rec["eventId"]]
    assert report["branding"] == {
        "displayName": "Acme",
        "logoUrl": None,
        "accentColour": "#1a4f8b",
        "frameAncestors": ["https://a.example"],
    }

    # the portal session: a link to hand over, which reads the consumer's deliveries, then ends
    portal = report["portal"]
    assert portal["sessionId"].startswith("ps_")
    assert "#portal=" in portal["url"]
    assert portal["embedUrl"] is not None and "/portal/" in portal["embedUrl"]
    assert portal["capabilities"] == ["read"]
    mine = {*listed["published"], dead["deliveryId"], rec["deliveryId"], *test_event["deliveryIds"]}
    assert portal["deliveriesSeen"] == len(mine) == 8
    assert set(portal["deliveriesSeenIds"]) == mine
    assert portal["afterEnd"]["status"] == 401
    assert portal["afterEnd"]["code"] == "portal_session_expired"
    assert portal["live"] == portal["liveExpected"]  # two live sessions, across pages of one
    assert portal["endedAll"] == 1  # the first was ended already
    assert portal["secondAfterEnd"]["code"] == "portal_session_expired"
    assert report["disabled"] == "DISABLED"
