"""``hookproof serve`` with HOOKPROOF_RETENTION_DAYS archives on its own schedule (a real
process, real HTTPS); afterwards ``GET /v1/deliveries/{id}`` and ``audit delivery`` still answer
for the archived delivery, and ``audit verify`` passes."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path

import aiohttp
import asyncpg
import trustme

from ..daemon import run_cli, start_daemon
from ..delivery.conftest import Subscriber


async def test_the_daemon_archives_on_a_schedule(
    db_url: str, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    env = {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp_path),
        "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(b"r" * 32).decode().rstrip("="),
        "HOOKPROOF_EGRESS_ALLOW": f"127.0.0.1:{subscriber.port}",
        "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
        "HOOKPROOF_WORKERS": "1",
        "HOOKPROOF_RETENTION_DAYS": repr(2 / 86400),  # two seconds
        "HOOKPROOF_ARCHIVE_INTERVAL": "0.5",
        "HOOKPROOF_RECEIPT_WINDOW": "0",
        "HOOKPROOF_REPLAY_WINDOW": "0",
    }
    daemon = await asyncio.to_thread(start_daemon, env, tmp_path)
    try:
        created = await asyncio.to_thread(run_cli, ["tenant", "create", "acme", "--json"], env)
        token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
        async with aiohttp.ClientSession(
            base_url=daemon.base_url, headers={"Authorization": f"Bearer {token}"}
        ) as http:
            async with http.post(
                "/v1/subscriptions",
                json={
                    "endpoint": subscriber.url("ok-d"),
                    "topics": ["t"],
                    "eventVersions": [1],
                    "region": "eu",
                    "signatureAlgorithm": "ed25519",
                    "owner": "ops",
                },
            ) as r:
                assert r.status == 201, await r.text()
                sid = (await r.json())["id"]
            for _ in range(100):
                async with http.get(f"/v1/subscriptions/{sid}") as r:
                    if (await r.json())["state"] == "ACTIVE":
                        break
                await asyncio.sleep(0.1)
            async with http.post(
                "/v1/events",
                json={
                    "eventId": "evt-old",
                    "topic": "t",
                    "version": "1.0",
                    "aggregateId": "a",
                    "aggregateVersion": 1,
                    "occurredAt": "2026-11-30T10:00:00Z",
                    "payload": {"n": 1},
                },
            ) as r:
                assert r.status == 202, await r.text()
                [d] = (await r.json())["deliveries"]
            did = d["deliveryId"]
            before = None
            pool = await asyncpg.create_pool(db_url, min_size=1, max_size=2)
            try:
                for _ in range(300):
                    async with http.get(f"/v1/deliveries/{did}") as r:
                        view = await r.json()
                    if view["state"] == "ENDPOINT_ACCEPTED" and before is None:
                        before = view
                    archived = await pool.fetchval(
                        "SELECT count(*) FROM archived_streams WHERE stream_id = $1",
                        f"delivery-{did}",
                    )
                    hot = await pool.fetchval(
                        "SELECT count(*) FROM events WHERE stream_id = $1", f"delivery-{did}"
                    )
                    if archived and not hot:
                        break
                    await asyncio.sleep(0.1)
                else:
                    raise AssertionError("the daemon never archived the closed delivery")
            finally:
                await pool.close()
            async with http.get(f"/v1/deliveries/{did}") as r:
                assert r.status == 200
                after = await r.json()
            # another tenant still sees nothing
            other = await asyncio.to_thread(run_cli, ["tenant", "create", "other", "--json"], env)
            other_token = json.loads(other.stdout.strip().splitlines()[-1])["token"]
            async with http.get(
                f"/v1/deliveries/{did}", headers={"Authorization": f"Bearer {other_token}"}
            ) as r:
                assert r.status == 404
        assert before is not None
        assert after.pop("archived") is True
        # the body the attempts sent has left the hot store with the event: the view says so
        assert before.pop("requestBody")["archived"] is False
        assert after.pop("requestBody") == {
            "text": None, "bytes": None, "truncated": False, "archived": True
        }
        assert after == before
        timeline = await asyncio.to_thread(run_cli, ["audit", "delivery", did, "--json"], env)
        assert timeline.returncode == 0, timeline.stderr
        assert json.loads(timeline.stdout)["state"]["state"] == "ENDPOINT_ACCEPTED"
        listed = await asyncio.to_thread(run_cli, ["archive", "list", "--json"], env)
        assert json.loads(listed.stdout)["segments"]
        verify = await asyncio.to_thread(run_cli, ["audit", "verify"], env)
        assert verify.returncode == 0, verify.stdout + verify.stderr
    finally:
        await asyncio.to_thread(daemon.stop)
    assert "archive_run_done" in daemon.log()
