"""Migration 0400: events ingested while event ids were global keep working, new ones are
tenant-scoped. The log is never rewritten: legacy ``event-<eventId>`` streams stay as they are.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg
import msgspec
import pytest
from aiohttp.test_utils import TestServer

from hookproof.config import Settings
from hookproof.engine.audit import event_timeline
from hookproof.engine.db.database import connect_pool
from hookproof.engine.db.migrate import all_migrations, migrate
from hookproof.engine.ingest.ingest import canonical_body
from hookproof.engine.portal.tenants import TenantService
from hookproof.engine.recording.inline import LedgerInline
from hookproof.engine.runtime.daemon import build_engine
from hookproof.errors import ValidationError
from hookproof.events import EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import (
    DeliveryPlanned,
    EventIngested,
    EventPayloadConflict,
    event_stream_id,
)
from hookproof.events.sqlfiles import query
from hookproof.schemas.api import EventIn
from hookproof_subscriber import content_digest
from tests.daemon import run_cli

from ..conftest import _with_database

LEGACY = "legacy-1"
OLD_DID = "dlv_" + "0" * 28


def _event(payload: Any) -> dict[str, Any]:
    return {
        "eventId": LEGACY,
        "topic": "order.created",
        "version": "1.0",
        "aggregateId": "order-1",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": payload,
    }


@pytest.fixture
async def legacy_url(pg_server_url: str) -> AsyncIterator[str]:
    name = f"hookproof_legacy_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(pg_server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}"')
    finally:
        await admin.close()
    yield _with_database(pg_server_url, name)
    admin = await asyncpg.connect(pg_server_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


#: later migrations that read what 0400 adds (event_bodies.tenant_id): pending with it
NEEDS_0400 = (1060,)


async def _migrate_all_but_0400(conn: asyncpg.Connection) -> None:
    """Every other migration (the store needs them), only not the one under test and those
    that need it (they stay pending, applied after it in order)."""
    await conn.execute(
        "CREATE TABLE hookproof_migrations (number integer PRIMARY KEY, name text NOT NULL,"
        " applied_at timestamptz NOT NULL DEFAULT now())"
    )
    for number, name, sql in all_migrations():
        if number != 400 and number not in NEEDS_0400:
            await conn.execute(sql)
            await conn.execute(
                "INSERT INTO hookproof_migrations (number, name) VALUES ($1, $2)", number, name
            )


async def _legacy_event(store: EventStore, tenant_a: str, tenant_b: str) -> str:
    """What the engine wrote before 0400: a global body, an ``event-<id>`` stream, and the
    other tenant's conflict appended to it (the defect itself)."""
    body = canonical_body(msgspec.convert(_event({"amount": 1}), EventIn))
    digest = content_digest(body)
    at = "2026-11-30T10:00:00+00:00"
    async with store.pool.acquire() as conn, conn.transaction():
        await conn.execute(
            "INSERT INTO event_bodies (event_id, payload_digest, body, topic) VALUES ($1,$2,$3,$4)",
            LEGACY,
            digest,
            body,
            "order.created",
        )
        await conn.execute(
            "INSERT INTO event_bodies (event_id, payload_digest, body, topic) VALUES ($1,$2,$3,$4)",
            "orphan-1",
            digest,
            body,
            "order.created",
        )
        planned = DeliveryPlanned(
            delivery_id=OLD_DID,
            event_id=LEGACY,
            subscription_id="sub_legacy",
            tenant_id=tenant_a,
            generation=1,
            endpoint="https://127.0.0.1:9/x",
            endpoint_digest="0" * 64,
            payload_digest=digest,
            topic="order.created",
            owner="team",
            receipts=False,
            max_attempts=3,
            at=at,
        )
        ingested = EventIngested(
            event_id=LEGACY,
            topic="order.created",
            version="1.0",
            aggregate_id="order-1",
            aggregate_version=1,
            occurred_at="2026-11-30T10:00:00Z",
            payload_digest=digest,
            body_size=len(body),
            deliveries=[OLD_DID],
            at=at,
        )
        meta_a = Metadata(actor=f"tenant:{tenant_a}")
        recorded = await store.append(
            [
                StreamAppend(f"event-{LEGACY}", [ingested], "no_stream", meta_a),
                StreamAppend(f"delivery-{OLD_DID}", [planned], "no_stream", meta_a),
            ],
            conn=conn,
        )
        await LedgerInline()(conn, recorded)
        conflict = EventPayloadConflict(
            event_id=LEGACY, existing_digest=digest, offered_digest="sha-256=:b:", at=at
        )
        await store.append(
            [StreamAppend(f"event-{LEGACY}", [conflict], 1, Metadata(actor=f"tenant:{tenant_b}"))],
            conn=conn,
        )
    return digest


async def test_legacy_events_keep_working_and_new_ones_are_tenant_scoped(
    legacy_url: str, tmp_path: Path
) -> None:
    pool = await connect_pool(legacy_url, min_size=1, max_size=4)
    try:
        async with pool.acquire() as conn:
            await _migrate_all_but_0400(conn)
        store = EventStore(pool)
        tenants = TenantService(store)
        a, b = await tenants.create("alpha"), await tenants.create("beta")
        digest = await _legacy_event(store, a.tenant_id, b.tenant_id)
        async with pool.acquire() as conn:
            applied = await migrate(conn)
        assert [n for n, _ in applied] == [400, *NEEDS_0400]

        rows = await pool.fetch("SELECT tenant_id, event_id, stream_id FROM event_bodies")
        assert {(r["tenant_id"], r["event_id"], r["stream_id"]) for r in rows} == {
            (a.tenant_id, LEGACY, f"event-{LEGACY}"),
            ("", "orphan-1", "event-orphan-1"),  # unattributable: reachable by no tenant
        }

        engine = await build_engine(
            Settings(data_dir=tmp_path, dns_servers=(("127.0.0.1", 9),)), pool
        )
        server = TestServer(engine.app(), host="127.0.0.1")
        await server.start_server()
        base = str(server.make_url("")).rstrip("/")
        try:
            async with aiohttp.ClientSession() as http:

                async def call(method: str, path: str, token: str, body: Any = None) -> Any:
                    h = {"Authorization": f"Bearer {token}"}
                    async with http.request(method, base + path, json=body, headers=h) as r:
                        return r.status, await r.json(content_type=None)

                # the owner re-posts its legacy event: idempotent, legacy delivery ids
                status, again = await call("POST", "/v1/events", a.token, _event({"amount": 1}))
                assert status == 202 and again["created"] is False
                assert again["deliveries"] == [
                    {"deliveryId": OLD_DID, "subscriptionId": "sub_legacy"}
                ]
                # a conflict from the owner goes to the legacy stream its event lives in
                status, problem = await call("POST", "/v1/events", a.token, _event({"amount": 2}))
                assert status == 409 and problem["payloadDigest"] == digest
                legacy = await store.read_stream(f"event-{LEGACY}")
                assert [e.type for e in legacy][-1] == "event.payload_conflict"
                assert legacy[-1].decode().tenant_id == a.tenant_id  # type: ignore[attr-defined]
                # the other tenant now gets an event of its own, in its own stream
                status, mine = await call("POST", "/v1/events", b.token, _event({"amount": 1}))
                assert status == 202 and mine["created"] is True and mine["deliveries"] == []
                own = await store.read_stream(event_stream_id(b.tenant_id, LEGACY))
                assert [e.type for e in own] == ["event.ingested"]
                # reads are per tenant
                status, view = await call("GET", f"/v1/events/{LEGACY}", a.token)
                assert status == 200 and [d["deliveryId"] for d in view["deliveries"]] == [OLD_DID]
                status, view = await call("GET", f"/v1/events/{LEGACY}", b.token)
                assert status == 200 and view["deliveries"] == []
                status, _ = await call("GET", "/v1/events/orphan-1", a.token)
                assert status == 404

            # the dispatcher still finds the legacy body for the legacy delivery
            found = await pool.fetch(
                query("dispatch_bodies", "hookproof.engine"), [a.tenant_id], [LEGACY]
            )
            assert [bytes(r["body"]) for r in found] == [
                canonical_body(msgspec.convert(_event({"amount": 1}), EventIn))
            ]

            # audit: the id names two tenants' events now
            with pytest.raises(ValidationError) as err:
                await event_timeline(store, LEGACY)
            assert err.value.code == "ambiguous_event_id"
            t = await event_timeline(store, LEGACY, tenant_id=a.tenant_id)
            assert t.state is not None and t.state["streamId"] == f"event-{LEGACY}"
            actors = {e.actor for e in t.entries}
            assert actors == {f"tenant:{a.tenant_id}"}  # B's legacy conflict is not A's history
            assert [c.id for c in t.children] == [OLD_DID]
            t = await event_timeline(store, LEGACY, tenant_id=b.tenant_id)
            assert t.state is not None
            assert t.state["streamId"] == event_stream_id(b.tenant_id, LEGACY)
            assert t.state["payloadDigest"] == mine["payloadDigest"]

            # the operator CLI names the tenant with --tenant
            env = {"HOOKPROOF_DATABASE_URL": legacy_url}
            r = await asyncio.to_thread(run_cli, ["audit", "event", LEGACY, "--json"], env)
            assert r.returncode != 0 and "ambiguous" in r.stderr + r.stdout
            r = await asyncio.to_thread(
                run_cli, ["audit", "event", LEGACY, "--tenant", b.tenant_id, "--json"], env
            )
            assert r.returncode == 0, r.stderr
            out = json.loads(r.stdout)
            assert out["state"]["tenantId"] == b.tenant_id
            assert out["state"]["payloadDigest"] == mine["payloadDigest"]
        finally:
            await server.close()
            await engine.close()
    finally:
        await pool.close()
