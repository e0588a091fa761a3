"""The giant-frame finding against a real ``hookproof serve`` process, per kind: a broker
destination verified while its fake broker behaved, then a broker that answers the next
connection with a frame announced as 1.5 GB (96 MB of it sent as fast as the engine reads).
The attempt ends ``broker_frame_too_large`` and the daemon's RSS (psutil, the serve process)
stays within 50 MB of what it was before."""

from __future__ import annotations

import asyncio
from pathlib import Path

import aiohttp
import psutil
import pytest
import trustme

from hookproof_subscriber import answer_broker_challenge
from hookproof_subscriber.jwks import JwksKeyResolver

from ...live import Client, engine_env, new_tenant, start, stop, wait_for
from .kinds import KINDS, HostileKind

RSS_SLACK = 50 * 1024 * 1024
#: the broker's mode that sends the giant frame first on a new connection
FIRST = {"amqp": "giant_start", "nats": "giant_info"}


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
async def test_giant_frame_leaves_the_daemons_memory_as_it_was(
    db_url: str, tmp_path: Path, kind: HostileKind
) -> None:
    fake = kind.make()
    await fake.start()
    env = engine_env(db_url, tmp_path, fake.port, trustme.CA())
    daemon = await start(env, tmp_path)
    try:
        _, token = await new_tenant(env, "hostile")
        async with aiohttp.ClientSession() as http:
            api = Client(http, daemon.base_url, token)
            body = {
                "destination": kind.destination(fake.port, "giant"),
                "topics": ["order.created"],
                "eventVersions": [1],
                "region": "eu",
                "signatureAlgorithm": "ed25519",
                "owner": "hostile",
                "retryPolicy": {"initialDelayS": 0.2, "maxDelayS": 0.5, "maxAttempts": 3},
            }
            status, doc = await api.call("POST", "/v1/subscriptions", body)
            assert status == 201, doc
            sid, uri = doc["id"], doc["destination"]["uri"]

            async def challenged() -> bool:
                return bool(kind.recorded(fake, uri))

            await wait_for(challenged, what="the challenge published")
            status, doc = await api.call("GET", f"/v1/subscriptions/{sid}")
            cid = doc["pendingChallenge"]["challengeId"]
            keys = JwksKeyResolver(daemon.base_url + "/.well-known/hookproof/jwks.json")
            headers, raw = kind.recorded(fake, uri)[-1]
            answer = await answer_broker_challenge(headers, raw, uri, keys=keys)
            assert answer.ok, answer.reason
            async with http.post(
                f"{daemon.base_url}/v1/challenges/{cid}/response", data=answer.body
            ) as r:
                assert r.status == 200, await r.text()

            fake.mode = FIRST[kind.name]
            fake.drop_all()  # the next publish opens a new connection: the giant frame
            proc = psutil.Process(daemon.proc.pid)
            before = proc.memory_info().rss
            await api.publish("evt-giant-1", topic="order.created")

            async def failed() -> bool:
                return any(
                    '"broker_publish_failed"' in line and "broker_frame_too_large" in line
                    for line in daemon.log().splitlines()
                )

            await wait_for(failed, what="a publish ended broker_frame_too_large", timeout=30)
            await asyncio.sleep(0.5)  # what the attempt left behind is gone by now
            after = proc.memory_info().rss
            assert after - before < RSS_SLACK, (before, after)
    finally:
        await stop(daemon)
        await fake.close()
