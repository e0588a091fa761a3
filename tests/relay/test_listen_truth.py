"""``hookproof listen`` says what the engine judged: a hand-written receiver that answers the
challenge 200 without a challenge response is reported refused, with the engine's reason and
what to do; ``--answer-challenge`` lets the CLI answer for it, and the evidence says the CLI
answered. No engine at the URL: one line naming it and ``HOOKPROOF_URL``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiohttp
from aiohttp import web

from tests.daemon import free_port

from .harness import Listener, engine_env, start_engine, tenant, until


class PlainReceiver:
    """A developer's first receiver: prints what it gets and answers ``200 ok`` (text)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.bodies: list[bytes] = []
        self.runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/webhooks"

    async def start(self) -> None:
        async def handle(request: web.Request) -> web.Response:
            self.bodies.append(await request.read())
            return web.Response(text="ok")

        app = web.Application()
        app.router.add_post("/webhooks", handle)
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, "127.0.0.1", self.port).start()

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()


async def test_listen_reports_the_engines_verdict_and_answer_challenge_is_recorded(
    db_url: str, tmp_path: Path
) -> None:
    env = engine_env(db_url, tmp_path)
    daemon = await start_engine(env, tmp_path)
    base = daemon.base_url
    receiver = PlainReceiver()
    await receiver.start()
    listeners: list[Listener] = []
    try:
        token = await tenant(env, "acme")
        args = ["--to", receiver.url, "--topics", "order.created", "--engine", base]
        first = Listener.start(args, {"HOOKPROOF_TOKEN": token})
        listeners.append(first)
        code = await first.wait(60)
        text = "\n".join(first.lines)
        # the receiver answered 200, and the CLI says so, but the verdict is the engine's
        assert any(line.startswith("challenge attempt 1 -> 200") for line in first.lines), text
        assert "challenge refused by the engine: bad_content_type" in text, text
        assert "Content-Type: application/json" in text  # the engine's detail
        assert "hint: answer challenges with the subscriber SDK" in text
        assert "--answer-challenge" in text and "challenge passed" not in text
        assert code == 4, text
        assert receiver.bodies and b"hookproof.challenge.v1" in receiver.bodies[0]
        sid = first.lines[0].split()[1]
        auth = {"Authorization": f"Bearer {token}"}
        async with aiohttp.ClientSession(headers=auth) as http:
            async with http.get(f"{base}/v1/subscriptions/{sid}") as r:
                view = await r.json()
            assert (view["state"], view["lastReason"]) == ("PENDING_CHALLENGE", "bad_content_type")

            # the CLI answers for it (--json: the verdict as a document)
            second = Listener.start(
                [*args, "--answer-challenge", "--json"], {"HOOKPROOF_TOKEN": token}
            )
            listeners.append(second)
            await until(lambda: any('"event": "challenge"' in line for line in second.lines), 60)
            docs = [json.loads(line) for line in second.lines]
            [forwarded] = [d for d in docs if d.get("event") == "forwarded"]
            assert forwarded["answeredBy"] == "cli" and forwarded["status"] == 200
            [verdict] = [d for d in docs if d.get("event") == "challenge"]
            assert verdict["passed"] is True and verdict["state"] == "ACTIVE", docs
            assert len(receiver.bodies) == 1  # the receiver was not asked this time
            async with http.get(f"{base}/v1/subscriptions/{sid}/history") as r:
                history = (await r.json())["items"]
            [passed] = [e for e in history if e["type"] == "subscription.challenge_passed"]
            # the evidence: through the relay, answered by the CLI, not by the receiver
            peer = passed["data"]["peer_address"]
            assert peer.startswith("relay:rs_") and peer.endswith("/cli"), peer
            assert '"event":"relay_challenge_answered_by_cli"' in daemon.log()

            # deliveries now reach the hand-written receiver, which answers them itself
            event = {
                "eventId": "evt-1",
                "topic": "order.created",
                "version": "1.0",
                "aggregateId": "agg-1",
                "aggregateVersion": 1,
                "occurredAt": "2026-12-07T12:00:00Z",
                "payload": {"id": 1},
            }
            async with http.post(f"{base}/v1/events", json=event) as r:
                assert r.status == 202, await r.text()
            await until(lambda: any(b'"evt-1"' in b for b in receiver.bodies), 60)
    finally:
        for listener in listeners:
            if listener.proc.poll() is None:
                listener.proc.kill()
            await listener.wait()
        await receiver.stop()
        await asyncio.to_thread(daemon.stop)


async def test_no_engine_at_the_url_is_one_line_naming_it() -> None:
    closed = f"http://127.0.0.1:{free_port()}"
    to = f"http://127.0.0.1:{free_port()}/webhooks"
    cli = Listener.start(["--to", to], {"HOOKPROOF_URL": closed, "HOOKPROOF_TOKEN": "hp_x"})
    assert await cli.wait() == 2
    assert len(cli.lines) == 1, cli.lines  # no traceback
    [line] = cli.lines
    assert line.startswith("error [engine_unreachable]: no hookproof engine answered at "), line
    assert closed in line and "HOOKPROOF_URL" in line and "Traceback" not in line
