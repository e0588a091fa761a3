"""``hookproof serve`` with ``HOOKPROOF_OTEL_EXPORTER=otlp`` and the standard
``OTEL_EXPORTER_OTLP_ENDPOINT``: a real process exports its ingest, challenge and attempt spans
to an OTLP/HTTP receiver started here; the subscriber sees the attempt span's trace."""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path
from typing import Any

import aiohttp
import trustme
from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from ..daemon import run_cli, start_daemon
from ..delivery.conftest import Subscriber


async def test_a_real_daemon_exports_spans_over_otlp_http(
    db_url: str, tmp_path: Path, subscriber: Subscriber, ca: trustme.CA
) -> None:
    received: list[ExportTraceServiceRequest] = []

    async def traces(request: web.Request) -> web.Response:
        received.append(ExportTraceServiceRequest.FromString(await request.read()))
        return web.Response(body=b"", content_type="application/x-protobuf")

    app = web.Application()
    app.router.add_post("/v1/traces", traces)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    ca_file = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    env = {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp_path),
        "HOOKPROOF_MASTER_KEY": base64.urlsafe_b64encode(b"t" * 32).decode().rstrip("="),
        "HOOKPROOF_EGRESS_ALLOW": f"127.0.0.1:{subscriber.port}",
        "HOOKPROOF_EGRESS_CA_FILE": str(ca_file),
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
        "HOOKPROOF_WORKERS": "1",
        "HOOKPROOF_OTEL_EXPORTER": "otlp",
        "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
        "OTEL_BSP_SCHEDULE_DELAY": "100",
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
                    "endpoint": subscriber.url("ok-o"),
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
                    "eventId": "evt-otlp",
                    "topic": "t",
                    "version": "1.0",
                    "aggregateId": "a",
                    "aggregateVersion": 1,
                    "occurredAt": "2026-11-30T10:00:00Z",
                    "payload": {"n": 1},
                },
            ) as r:
                assert r.status == 202
                [d] = (await r.json())["deliveries"]
            for _ in range(200):
                if subscriber.deliveries("ok-o"):
                    break
                await asyncio.sleep(0.05)
    finally:
        await asyncio.to_thread(daemon.stop)  # SIGTERM: the exporter flushes on the way out
        await runner.cleanup()
    [sent] = subscriber.deliveries("ok-o")
    spans: dict[str, dict[str, Any]] = {}
    for request in received:
        for rs in request.resource_spans:
            for ss in rs.scope_spans:
                for s in ss.spans:
                    attrs = {}
                    for kv in s.attributes:
                        which = kv.value.WhichOneof("value")
                        attrs[kv.key] = getattr(kv.value, which) if which else None
                    spans.setdefault(
                        s.name, {"attrs": attrs, "trace": s.trace_id.hex(), "span": s.span_id.hex()}
                    )
    assert {"hookproof.ingest", "hookproof.attempt", "hookproof.challenge"} <= set(spans)
    assert spans["hookproof.ingest"]["attrs"]["hookproof.planned_deliveries"] == 1
    attempt = spans["hookproof.attempt"]
    assert attempt["attrs"]["hookproof.delivery_id"] == d["deliveryId"]
    assert attempt["attrs"]["http.response.status_code"] == 204
    assert spans["hookproof.challenge"]["attrs"]["hookproof.subscription_id"] == sid
    _v, trace_id, span_id, _f = sent.headers["traceparent"].split("-")
    assert (trace_id, span_id) == (attempt["trace"], attempt["span"])
