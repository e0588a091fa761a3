"""The procrastinate peer of issue 27 (bench/peer_procrastinate.py) is what it claims to be:
its requests carry Standard Webhooks signatures that the official verifier accepts, and a
small run through a real procrastinate queue on Postgres delivers every job exactly once,
signed, over HTTPS to a local trustme site."""

from __future__ import annotations

import ssl
import sys
import time
import urllib.parse
import uuid
from pathlib import Path

import asyncpg
import pytest
import trustme
from aiohttp import web
from standardwebhooks import Webhook, WebhookVerificationError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import peer_procrastinate as peer

BODY = b'{"type":"order.created","data":{"id":"ord_1","amount":4200}}'


def test_signature_verifies_with_the_standard_webhooks_library() -> None:
    secret = peer.make_secret()
    headers = peer.sign_standard_webhooks(secret, "msg_1", 1_700_000_000, BODY)
    assert set(headers) == {"webhook-id", "webhook-timestamp", "webhook-signature"}
    assert headers["webhook-signature"].startswith("v1,")
    wh = Webhook(secret)
    # the library checks the timestamp against now: sign with the current time for it
    now = peer.sign_standard_webhooks(secret, "msg_1", int(time.time()), BODY)
    assert wh.verify(BODY, now) == {
        "type": "order.created",
        "data": {"id": "ord_1", "amount": 4200},
    }
    with pytest.raises(WebhookVerificationError):
        wh.verify(BODY.replace(b"4200", b"4201"), now)
    with pytest.raises(WebhookVerificationError):
        Webhook(peer.make_secret()).verify(BODY, now)


async def test_small_run_delivers_every_job_once_signed(pg_server_url: str, tmp_path: Path) -> None:
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1", "*.bench.test")
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(server_ctx)

    seen: list[tuple[str, str]] = []
    refused = 0
    verifiers: dict[str, Webhook] = {}

    async def handle(request: web.Request) -> web.Response:
        nonlocal refused
        body = await request.read()
        try:
            verifiers[request.path].verify(body, dict(request.headers))
        except WebhookVerificationError:
            refused += 1
            return web.Response(status=401)
        seen.append((request.path, request.headers["webhook-id"]))
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/{tail:.*}", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0, ssl_context=server_ctx)
    await site.start()
    port = runner.addresses[0][1]
    urls = [f"https://site-{i}.bench.test:{port}/small/{i}" for i in range(3)]
    secrets = {u: peer.make_secret() for u in urls}
    verifiers.update({f"/small/{i}": Webhook(secrets[u]) for i, u in enumerate(urls)})

    name = f"peer_t_{uuid.uuid4().hex[:10]}"
    admin = await asyncpg.connect(pg_server_url)
    await admin.execute(f'CREATE DATABASE "{name}"')
    try:
        parts = urllib.parse.urlsplit(pg_server_url)
        db_url = urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))
        result = await peer.run_peer(
            {
                "db_url": db_url,
                "urls": urls,
                "bodies": [BODY.decode()],
                "ca_file": str(ca_file),
                "events": 4,
                "concurrency": 4,
                "ingest_concurrency": 2,
                "pool_max": 4,
                "secrets": secrets,
                "timeout_s": 60,
            }
        )
    finally:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
        await runner.cleanup()

    assert refused == 0
    assert result["accepted"] == result["deliveries_wanted"] == 12
    assert result["job_statuses"] == {"succeeded": 12}
    assert len(seen) == len(set(seen)) == 12  # each job's request once, each verified
    assert result["tables"]["procrastinate_jobs"]["ins"] == 12
    assert result["wal_bytes"] > 0
