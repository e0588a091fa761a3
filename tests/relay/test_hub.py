"""The relay hub on a real Postgres: a report lands only on the exchange, session, delivery id
and attempt it names, and never after its waiter is gone (no evidence is ever credited to
another attempt); no attached session, or a dead holder, is "not attached"; a second attach
replaces the first; a session's end settles what waited on it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import asyncpg

from hookproof.engine.destinations.relay.adapter import evidence_of_exchange
from hookproof.engine.destinations.relay.codes import RelayCode
from hookproof.engine.egress.failures import Outcome
from hookproof.engine.relay import protocol
from hookproof.engine.relay.hub import ExchangeResult, LocalSession, RelayHub
from hookproof.engine.relay.repository import RelayRepository

SID = "sub_" + "a" * 24


class FakeSocket:
    """Stands for the WebSocket only (the hub and its tables are real)."""

    def __init__(self, session_id: str) -> None:
        self.frames: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.closed: list[str] = []
        self.session = LocalSession(session_id, SID, self.send, self.close)

    async def send(self, text: str) -> None:
        await self.frames.put(json.loads(text))

    async def close(self, reason: str) -> None:
        self.closed.append(reason)


def report(frame: dict[str, Any], **over: Any) -> str:
    doc = {
        "type": "report",
        "exchangeId": frame["exchangeId"],
        "deliveryId": frame["deliveryId"],
        "attempt": frame["attempt"],
        "status": 200,
        "error": None,
        **over,
    }
    return json.dumps(doc)


async def exchange(hub: RelayHub, attempt: int, **over: Any) -> ExchangeResult:
    args: dict[str, Any] = {
        "subscription_id": SID,
        "delivery_id": "dlv_1",
        "attempt": attempt,
        "kind": "delivery",
        "headers": {"Content-Type": "application/json", "Webhook-Attempt": str(attempt)},
        "body": b'{"a":1}\x00\xff',
        **over,
    }
    return await hub.exchange(**args)


async def test_a_report_lands_only_on_the_attempt_it_names(pool: asyncpg.Pool) -> None:
    hub = RelayHub(RelayRepository(pool), report_timeout_s=30)
    sock = FakeSocket("rs_one")
    try:
        await hub.attach(SID, "ten_1", sock.session)
        task = asyncio.ensure_future(exchange(hub, 2))
        frame = await asyncio.wait_for(sock.frames.get(), 30)
        assert frame["type"] == "request" and frame["kind"] == "delivery"
        assert (frame["deliveryId"], frame["attempt"]) == ("dlv_1", 2)
        assert protocol.unb64(frame["body"]) == b'{"a":1}\x00\xff'  # byte for byte
        assert frame["headers"]["Webhook-Attempt"] == "2"
        # another attempt of the same delivery, another delivery, another session: dropped
        assert not await hub.report("rs_one", report(frame, attempt=1, status=500))
        assert not await hub.report("rs_one", report(frame, deliveryId="dlv_2"))
        assert not await hub.report("rs_other", report(frame))
        assert not await hub.report("rs_one", "not json")
        assert not task.done()
        assert await hub.report("rs_one", report(frame, status=204))
        assert not await hub.report("rs_one", report(frame, status=500))  # answered already
        result = await task
        assert (result.attached, result.sent, result.reported) == (True, True, True)
        assert (result.status, result.session_id) == (204, "rs_one")
        evidence = evidence_of_exchange(result)
        assert evidence.ok and evidence.peer_address == "relay:rs_one"
        # the waiter is gone: a late report for it finds nothing to land on
        assert not await hub.report("rs_one", report(frame, status=200))
        assert await pool.fetchval("SELECT count(*) FROM relay_exchanges") == 0
    finally:
        await hub.close()


async def test_a_report_that_never_comes_is_unknown_and_a_late_one_is_refused(
    pool: asyncpg.Pool,
) -> None:
    hub = RelayHub(RelayRepository(pool), report_timeout_s=0.5)
    sock = FakeSocket("rs_slow")
    try:
        await hub.attach(SID, "ten_1", sock.session)
        result = await exchange(hub, 1)
        frame = sock.frames.get_nowait()
        evidence = evidence_of_exchange(result)
        assert (evidence.outcome, evidence.code) == (Outcome.UNKNOWN, RelayCode.REPORT_TIMEOUT)
        assert evidence.lost  # it may have reached the receiver: UNKNOWN_TRANSPORT
        assert not await hub.report("rs_slow", report(frame))
    finally:
        await hub.close()


async def test_no_session_or_a_dead_holder_is_not_attached(pool: asyncpg.Pool) -> None:
    hub = RelayHub(RelayRepository(pool), report_timeout_s=5)
    try:
        result = await exchange(hub, 1)
        assert result == ExchangeResult(attached=False)
        evidence = evidence_of_exchange(result)
        assert (evidence.outcome, evidence.code) == (Outcome.NOT_SENT, RelayCode.NOT_ATTACHED)
        # a session whose holder's LISTEN backend is gone (a crashed worker) has lapsed
        dead = await pool.fetchval("SELECT max(pid) + 100000 FROM pg_stat_activity")
        await pool.execute(
            "INSERT INTO relay_sessions (subscription_id, session_id, tenant_id, backend_pid)"
            " VALUES ($1, 'rs_dead', 'ten_1', $2)",
            SID,
            dead,
        )
        assert (await exchange(hub, 2)).attached is False
    finally:
        await hub.close()


async def test_detach_settles_waiters_and_a_second_attach_replaces_the_first(
    pool: asyncpg.Pool,
) -> None:
    hub = RelayHub(RelayRepository(pool), report_timeout_s=30)
    first, second = FakeSocket("rs_first"), FakeSocket("rs_second")
    try:
        await hub.attach(SID, "ten_1", first.session)
        task = asyncio.ensure_future(exchange(hub, 3))
        await asyncio.wait_for(first.frames.get(), 30)
        await hub.attach(SID, "ten_1", second.session)
        for _ in range(300):
            if first.closed:
                break
            await asyncio.sleep(0.05)
        assert first.closed == ["replaced"]
        await hub.detach("rs_first")  # what the route does once the socket closed
        result = await asyncio.wait_for(task, 30)
        assert (result.sent, result.reported, result.error) == (True, True, "relay_detached")
        evidence = evidence_of_exchange(result)
        assert evidence.outcome is Outcome.UNKNOWN and evidence.code is RelayCode.DETACHED
        # the new session carries the next attempt
        task = asyncio.ensure_future(exchange(hub, 4))
        frame = await asyncio.wait_for(second.frames.get(), 30)
        assert await hub.report("rs_second", report(frame, status=503))
        result = await task
        assert result.status == 503 and not evidence_of_exchange(result).ok
    finally:
        await hub.close()


async def test_local_errors_say_whether_the_receiver_was_reached(pool: asyncpg.Pool) -> None:
    hub = RelayHub(RelayRepository(pool), report_timeout_s=30)
    sock = FakeSocket("rs_local")
    try:
        await hub.attach(SID, "ten_1", sock.session)
        outcomes = []
        for attempt, error in ((1, "relay_local_unreachable"), (2, "relay_local_failed")):
            task = asyncio.ensure_future(exchange(hub, attempt))
            frame = await asyncio.wait_for(sock.frames.get(), 30)
            assert await hub.report("rs_local", report(frame, status=None, error=error))
            evidence = evidence_of_exchange(await task)
            outcomes.append((evidence.outcome, str(evidence.code)))
        assert outcomes == [
            (Outcome.NOT_SENT, "relay_local_unreachable"),
            (Outcome.UNKNOWN, "relay_local_failed"),
        ]
        # a status out of range or an unknown error is no usable report
        task = asyncio.ensure_future(exchange(hub, 3))
        frame = await asyncio.wait_for(sock.frames.get(), 30)
        assert await hub.report("rs_local", report(frame, status=42))
        evidence = evidence_of_exchange(await task)
        assert (evidence.outcome, evidence.code) == (Outcome.UNKNOWN, RelayCode.REPORT_INVALID)
    finally:
        await hub.close()
