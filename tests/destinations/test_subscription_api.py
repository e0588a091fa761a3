"""``destination`` on POST/PATCH /v1/subscriptions (DESIGN.md 13): a tagged union checked with
stable reason codes, write-only credentials sealed under the master key (a keyed digest in the
event and the answer), bound fields that make a new generation, the same credentials sent
again changing nothing, HTTPS and broker exclusive."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.config import Settings
from hookproof.engine.destinations.registry import installed

from .engine_support import started

SECRET = "s3cret-password-for-the-broker"


def settings_for(tmp: Path) -> Settings:
    return Settings(
        data_dir=tmp, egress_allow=(("127.0.0.1", 4222),), dns_servers=(("127.0.0.1", 9),)
    )


def body(**dest: Any) -> dict[str, Any]:
    d = {
        "type": "nats",
        "url": "nats://127.0.0.1:4222",
        "subject": "orders.created",
        "stream": "ORDERS",
        "credentials": {"username": "svc", "password": SECRET},
    }
    d.update(dest)
    return {
        "destination": d,
        "topics": ["order.created"],
        "eventVersions": [1],
        "region": "eu",
        "signatureAlgorithm": "ed25519",
        "owner": "team",
    }


async def test_destination_bound_fields_and_write_only_credentials(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    async with started(pool, settings_for(tmp_path)) as (engine, api):
        token = (await engine.tenants.create("acme")).token
        status, doc = await api.call("POST", "/v1/subscriptions", token=token, json=body())
        assert status == 201, doc
        sid = doc["id"]
        dest = doc["destination"]
        assert dest["uri"] == "nats://127.0.0.1:4222/orders.created"
        assert doc["endpoint"] == dest["uri"] and doc["endpointDigest"] == dest["destinationDigest"]
        assert dest["credentialsDigest"].startswith("hmac-sha256:")
        assert SECRET not in json.dumps(doc) and "credentials" not in dest
        digest = dest["credentialsDigest"]

        async def patch(generation: int, **d: Any) -> tuple[int, Any]:
            return await api.call(
                "PATCH",
                f"/v1/subscriptions/{sid}",
                token=token,
                json={"destination": body(**d)["destination"]},
                headers={"If-Match": f'"{generation}"'},
            )

        status, doc = await patch(1)  # the same binding, the same credentials: nothing changes
        assert status == 200 and doc["generation"] == 1, doc
        status, doc = await patch(1, credentials={"username": "svc", "password": "other-one"})
        assert status == 200 and doc["generation"] == 2, doc
        assert doc["destination"]["credentialsDigest"] != digest
        assert doc["state"] == "PENDING_CHALLENGE"
        other = {"username": "svc", "password": "other-one"}
        status, doc = await patch(2, stream="ORDERS2", credentials=other)
        assert doc["generation"] == 3 and doc["destination"]["stream"] == "ORDERS2"
        sealed = await engine.pool.fetchval("SELECT count(*) FROM destination_credentials")
        assert sealed == 2  # the same credentials are never sealed twice
        rows = await engine.pool.fetch(
            "SELECT convert_from(data, 'UTF8') AS d FROM events WHERE stream_id = $1",
            f"subscription-{sid}",
        )
        text = " ".join(r["d"] for r in rows)
        assert SECRET not in text and "other-one" not in text and digest in text


async def test_destination_refusals_have_stable_codes(pool: asyncpg.Pool, tmp_path: Path) -> None:
    async with started(pool, settings_for(tmp_path)) as (engine, api):
        token = (await engine.tenants.create("acme")).token
        cases: list[tuple[dict[str, Any], str]] = [
            ({**body(), "endpoint": "https://hooks.example.com/x"}, "destination_with_endpoint"),
            ({k: v for k, v in body().items() if k != "destination"}, "endpoint_required"),
            (body(type="kafka"), "unknown_destination_type"),
            (body(url="tls://10.0.0.7:4222"), "destination_ip_forbidden"),
            (body(url="nats://127.0.0.1:4223"), "destination_plain_not_allowed"),
            (body(url="ftp://x/"), "destination_scheme_not_allowed"),
            (body(subject="orders.*"), "destination_subject_invalid"),
            (body(stream="a.b"), "destination_stream_invalid"),
            (body(credentials={"password": SECRET}), "destination_credentials_invalid"),
            (
                body(credentials={"username": "u", "password": SECRET, "x": 1}),
                "destination_invalid",
            ),
        ]
        for doc, code in cases:
            status, out = await api.call("POST", "/v1/subscriptions", token=token, json=doc)
            assert status == 400 and out["code"] == code, (code, out)
            assert SECRET not in json.dumps(out)
        n = await engine.pool.fetchval(
            "SELECT count(*) FROM events WHERE stream_id LIKE 'subscription-%'"
        )
        sealed = await engine.pool.fetchval("SELECT count(*) FROM destination_credentials")
        assert n == 0 and sealed == 0  # nothing half-written


async def test_an_unknown_destination_type_lists_the_installed_kinds(
    pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """A ``type`` no installed kind has (the registry's entry points, DESIGN.md 15) is a 400
    ``unknown_destination_type`` naming ``destination.type`` and listing the kinds."""
    async with started(pool, settings_for(tmp_path)) as (engine, api):
        token = (await engine.tenants.create("acme")).token
        doc = body(type="carrier-pigeon")
        status, out = await api.call("POST", "/v1/subscriptions", token=token, json=doc)
        assert status == 400 and out["code"] == "unknown_destination_type", out
        assert out["field"] == "destination.type"
        assert out["installedKinds"] == list(installed().names)
        assert {"https", "amqp", "nats", "relay"} <= set(out["installedKinds"])
        status, out = await api.call(
            "POST", "/v1/subscriptions", token=token, json=body(type=7)
        )
        assert status == 400 and out["code"] == "destination_invalid", out


async def test_a_broker_name_resolving_to_a_private_address_is_refused(
    pool: asyncpg.Pool, tmp_path: Path, dns: Any
) -> None:
    """The SSRF rules of section 5 through the broker path: the name is resolved when the
    challenge is published, a private answer refuses it before any socket (the socket guard
    would fail the test otherwise), and the tenant sees endpoint_ip_forbidden."""
    dns.records["broker.example.test"] = ["10.20.30.40"]
    settings = Settings(data_dir=tmp_path, dns_servers=(("127.0.0.1", dns.port),))
    async with started(pool, settings) as (engine, api):
        token = (await engine.tenants.create("acme")).token
        doc = body(url="tls://broker.example.test:4222")
        status, out = await api.call("POST", "/v1/subscriptions", token=token, json=doc)
        assert status == 201, out
        await engine.drain()
        status, out = await api.call("GET", f"/v1/subscriptions/{out['id']}", token=token)
        assert out["state"] == "PENDING_CHALLENGE" and "pendingChallenge" not in out
        assert out["lastReason"] == "endpoint_ip_forbidden"
        assert ("broker.example.test", "A", "udp") in dns.queries or any(
            q[0] == "broker.example.test" for q in dns.queries
        )
