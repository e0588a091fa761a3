"""The dispatcher: claim due work, admit it under the fencing check, send signed, record.

Admission (``AttemptAdmitted``, the DISPATCHING state) is appended in the claiming
transaction, which holds the subscription row FOR SHARE: an admission and a revoke or a
generation change cannot both win. The sender uses only what the admission recorded
(endpoint, generation, key) and never re-reads configuration. Several dispatchers share the
queue through ``FOR UPDATE SKIP LOCKED`` and expected stream versions, so no attempt is sent
twice; a dispatcher that dies leaves leases that the others turn into UNKNOWN_TRANSPORT.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import secrets
import socket
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import structlog

from hookproof.config import Settings
from hookproof.errors import ConcurrencyConflict, HookproofError
from hookproof.events import Event, EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import (
    AttemptAdmitted,
    AttemptFailed,
    AttemptLost,
    DeadLettered,
    DeliveryQuarantined,
    EndpointAccepted,
)
from hookproof.events.sqlfiles import query
from hookproof.events.subscription_events import RetryPolicy
from hookproof_subscriber import SigningKey

from ..egress import EgressResult, Outcome
from ..signing import DEFAULT_PROFILE, Signer, sign_headers
from .batcher import OutcomeBatcher
from .gates import EndpointGates
from .ledger import Admit, Defer, Refuse, admission
from .retry import AttemptError, decide, parse_retry_after

__all__ = ["DispatchMetrics", "Dispatcher"]

log = structlog.get_logger("hookproof.dispatcher")
PKG = "hookproof.engine"

KeyProvider = Callable[[str, str], Awaitable[tuple[SigningKey, int]]]
Poster = Callable[[dict[str, Any], bytes, dict[str, str]], Awaitable[EgressResult]]


@dataclass
class DispatchMetrics:
    attempts: dict[str, int] = field(default_factory=dict)
    latency_buckets: tuple[float, ...] = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10)
    latency_counts: list[int] = field(default_factory=lambda: [0] * 11)
    latency_sum: float = 0.0
    latency_n: int = 0

    def count(self, outcome: str) -> None:
        self.attempts[outcome] = self.attempts.get(outcome, 0) + 1

    def observe(self, seconds: float) -> None:
        self.latency_sum += seconds
        self.latency_n += 1
        for i, b in enumerate(self.latency_buckets):
            if seconds <= b:
                self.latency_counts[i] += 1
                return
        self.latency_counts[-1] += 1


@dataclass
class _Job:
    row: dict[str, Any]
    attempt: int
    key: SigningKey
    key_generation: int
    policy: RetryPolicy
    version: int
    admitted_at: float


def traceparent() -> str:
    return f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01"


class Dispatcher:
    def __init__(
        self,
        store: EventStore,
        settings: Settings,
        *,
        key_provider: KeyProvider,
        poster: Poster,
        on_gone: Callable[[str, str], Awaitable[None]] | None = None,
        name: str | None = None,
        batch: int = 100,
        max_inflight: int = 256,
        lease_margin_s: float = 30.0,
        poll_interval: float = 0.5,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        rng: random.Random | None = None,
    ) -> None:
        self.store = store
        self.settings = settings
        self.key_provider = key_provider
        self.poster = poster
        self.on_gone = on_gone
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.batch = batch
        self.max_inflight = max_inflight
        self.lease_s = settings.request_timeout_s + settings.connect_timeout_s + lease_margin_s
        self.poll_interval = poll_interval
        self.clock = clock
        self.rng = rng or random.Random()
        self.gates = EndpointGates()
        self.metrics = DispatchMetrics()
        self.outcomes = OutcomeBatcher(store)
        self.inflight: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()

    # -- admission ----------------------------------------------------------------------

    async def claim(self) -> list[_Job]:
        """One transaction: claim due rows, fence-check, append admissions/quarantines."""
        free = self.max_inflight - len(self.inflight)
        if free <= 0:
            return []
        now = self.clock()
        jobs: list[_Job] = []
        async with self.store.pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(
                query("dispatch_claim", PKG), min(free, self.batch), self.gates.blocked()
            )
            appends: list[StreamAppend] = []
            keys: dict[tuple[str, str], tuple[SigningKey, int]] = {}
            per_endpoint: dict[str, int] = {}
            for r in rows:
                row = dict(r)
                config = msgspec.json.decode(row["sub_config"])
                sub = {
                    "state": row["sub_state"],
                    "generation": row["sub_generation"],
                    "old_generation_policy": config.get("old_generation_policy", "drain"),
                }
                verdict = admission(row, sub)
                stream = f"delivery-{row['delivery_id']}"
                meta = Metadata(actor=f"dispatcher:{self.name}", correlation_id=row["event_id"])
                if isinstance(verdict, Refuse):
                    appends.append(
                        StreamAppend(
                            stream,
                            [
                                DeliveryQuarantined(
                                    delivery_id=row["delivery_id"],
                                    reason=verdict.reason,
                                    planned_generation=row["generation"],
                                    current_generation=row["sub_generation"],
                                    subscription_state=row["sub_state"],
                                    at=now.isoformat(),
                                )
                            ],
                            row["stream_version"],
                            meta,
                        )
                    )
                    log.info(
                        "admission_refused",
                        delivery_id=row["delivery_id"],
                        subscription_id=row["subscription_id"],
                        reason=verdict.reason,
                        planned_generation=row["generation"],
                        current_generation=row["sub_generation"],
                    )
                    continue
                if isinstance(verdict, Defer):
                    continue
                assert isinstance(verdict, Admit)
                digest = row["endpoint_digest"]
                room = self.gates.room(digest) - per_endpoint.get(digest, 0)
                if room <= 0:
                    continue  # this endpoint has enough in flight; leave the row for later
                per_endpoint[digest] = per_endpoint.get(digest, 0) + 1
                alg = config["signature_algorithm"]
                scope = row["subscription_id"] if alg == "hmac-sha256" else "engine"
                try:
                    if (scope, alg) not in keys:  # one ring lookup per scope per claim
                        keys[(scope, alg)] = await self.key_provider(row["subscription_id"], alg)
                    key, key_generation = keys[(scope, alg)]
                except HookproofError as exc:  # e.g. no ACTIVE key after a compromise
                    log.warning("admission_no_key", delivery_id=row["delivery_id"], code=exc.code)
                    continue
                attempt = row["attempt"] + 1
                row["signature_profile"] = config.get("signature_profile") or DEFAULT_PROFILE
                policy = msgspec.convert(config.get("retry_policy") or {}, RetryPolicy)
                appends.append(
                    StreamAppend(
                        stream,
                        [
                            AttemptAdmitted(
                                delivery_id=row["delivery_id"],
                                attempt=attempt,
                                generation=row["generation"],
                                subscription_version=row["sub_version"],
                                endpoint=row["endpoint"],
                                payload_digest=row["payload_digest"],
                                key_id=key.key_id,
                                key_generation=key_generation,
                                signature_alg=key.alg,
                                dispatcher=self.name,
                                lease_until=(now + timedelta(seconds=self.lease_s)).isoformat(),
                                drain=verdict.drain,
                                reconciles=row["state"] == "UNKNOWN_TRANSPORT",
                                at=now.isoformat(),
                            )
                        ],
                        row["stream_version"],
                        meta,
                    )
                )
                jobs.append(
                    _Job(
                        row,
                        attempt,
                        key,
                        key_generation,
                        policy,
                        row["stream_version"] + 1,
                        time.monotonic(),
                    )
                )
            if appends:
                await self.store.append(appends, conn=conn)
            if jobs:
                keys = list({(j.row["tenant_id"], j.row["event_id"]) for j in jobs})
                bodies = await conn.fetch(
                    query("dispatch_bodies", PKG), [k[0] for k in keys], [k[1] for k in keys]
                )
                by_event = {(b["tenant_id"], b["event_id"]): bytes(b["body"]) for b in bodies}
                for j in jobs:
                    j.row["body"] = by_event[(j.row["tenant_id"], j.row["event_id"])]
        return jobs

    # -- sending ------------------------------------------------------------------------

    def headers_for(self, job: _Job) -> dict[str, str]:
        r = job.row
        headers = {
            "Content-Type": "application/json",
            "Webhook-Id": r["event_id"],
            "Webhook-Delivery-Id": r["delivery_id"],
            "Webhook-Attempt": str(job.attempt),
            "Webhook-Subscription": r["subscription_id"],
            "Webhook-Generation": str(r["generation"]),
            "traceparent": traceparent(),
        }
        headers.update(
            sign_headers(
                "POST",
                r["endpoint"],
                headers,
                r["body"],
                [Signer(r.get("signature_profile") or DEFAULT_PROFILE, job.key)],
                created=int(self.clock().timestamp()),
                lifetime=int(self.settings.signature_lifetime_s),
            )
        )
        return headers

    async def send(self, job: _Job) -> None:
        r = job.row
        self.gates.acquire(r["endpoint_digest"])
        started = time.monotonic()
        success = False
        try:
            headers = self.headers_for(job)
            result = await self.poster(r, r["body"], headers)
            # the breaker counts unavailability (no answer, 5xx, 429), not a 4xx verdict
            status = result.status
            success = result.ok or (status is not None and 400 <= status < 500 and status != 429)
            await self.record(job, result, time.monotonic() - started)
        except Exception as exc:  # recording failed: the lease expiry will reconcile it
            log.error(
                "dispatch_record_failed",
                delivery_id=r["delivery_id"],
                attempt=job.attempt,
                error=type(exc).__name__,
            )
        finally:
            self.gates.release(r["endpoint_digest"], success=success)
            self.metrics.observe(time.monotonic() - job.admitted_at)

    async def record(self, job: _Job, result: EgressResult, duration: float) -> None:
        r = job.row
        now = self.clock()
        ms = round(duration * 1000, 3)
        events: list[Event]
        if result.ok:
            assert result.status is not None
            events = [
                EndpointAccepted(
                    delivery_id=r["delivery_id"],
                    attempt=job.attempt,
                    status=result.status,
                    peer_address=result.peer_address,
                    spki_sha256=result.spki_sha256,
                    duration_ms=ms,
                    at=now.isoformat(),
                )
            ]
            outcome = "endpoint_accepted"
        else:
            error = self.classify(result, now)
            decision = decide(job.policy, job.attempt, error, rand=self.rng.random())
            retry_at = now + timedelta(seconds=decision.delay_s)
            kind = "UNKNOWN_TRANSPORT" if error.unknown else "RETRYABLE"
            events = [
                AttemptFailed(
                    delivery_id=r["delivery_id"],
                    attempt=job.attempt,
                    outcome=kind,
                    code=error.code,
                    status=result.status,
                    location=result.location,
                    request_written=result.request_written,
                    peer_address=result.peer_address,
                    retry_at=retry_at.isoformat(),
                    duration_ms=ms,
                    at=now.isoformat(),
                )
            ]
            outcome = kind.lower()
            if not decision.retry:
                events.append(
                    DeadLettered(
                        delivery_id=r["delivery_id"],
                        attempt=job.attempt,
                        owner=r["owner"],
                        reason=decision.dead_letter_reason or decision.reason,
                        replay=f"POST /v1/deliveries/{r['delivery_id']}/replay",
                        at=now.isoformat(),
                    )
                )
                outcome = "dead_letter"
                if error.status == 410 and job.policy.on_gone == "suspend" and self.on_gone:
                    await self.on_gone(r["subscription_id"], "endpoint_gone")
        self.metrics.count(outcome)
        meta = Metadata(actor=f"dispatcher:{self.name}", correlation_id=r["event_id"])
        stream = f"delivery-{r['delivery_id']}"
        try:
            await self.outcomes.append(StreamAppend(stream, events, job.version, meta))
        except ConcurrencyConflict:
            # Something else was recorded meanwhile (a receipt, or a lease taken over):
            # the outcome is still evidence, appended after it.
            await self.store.append([StreamAppend(stream, events, "any", meta)])
        log.info(
            "attempt_recorded",
            delivery_id=r["delivery_id"],
            subscription_id=r["subscription_id"],
            attempt=job.attempt,
            key_id=job.key.key_id,
            outcome=outcome,
            status=result.status,
            code=result.code,
        )

    @staticmethod
    def classify(result: EgressResult, now: datetime) -> AttemptError:
        if result.outcome is Outcome.REDIRECT:
            return AttemptError("redirect", status=result.status)
        if result.outcome is Outcome.RESPONSE:
            if result.code in ("protocol_error", "connection_reset", "response_timeout"):
                # the status line arrived but the response never completed: lost
                return AttemptError(result.code, status=result.status, unknown=True)
            if result.code is not None:  # e.g. response_too_large: a response came back
                return AttemptError(result.code, status=result.status)
            return AttemptError(
                f"http_{result.status}",
                status=result.status,
                retry_after_s=parse_retry_after(result.header("Retry-After"), now),
            )
        if result.outcome is Outcome.UNKNOWN:
            return AttemptError(result.code or "unknown", unknown=True)
        return AttemptError(result.code or result.outcome.value)

    # -- leases -------------------------------------------------------------------------

    async def reconcile_leases(self, limit: int = 200) -> int:
        """Attempts whose dispatcher vanished: UNKNOWN_TRANSPORT, retried with the same identity."""
        now = self.clock()
        async with self.store.pool.acquire() as conn, conn.transaction():
            rows = await conn.fetch(query("dispatch_expired_leases", PKG), limit)
            if not rows:
                return 0
            await self.store.append(
                [
                    StreamAppend(
                        f"delivery-{r['delivery_id']}",
                        [
                            AttemptLost(
                                delivery_id=r["delivery_id"],
                                attempt=r["attempt"],
                                dispatcher=r["lease_owner"] or "unknown",
                                retry_at=now.isoformat(),
                                at=now.isoformat(),
                            )
                        ],
                        r["stream_version"],
                        Metadata(actor=f"reconciler:{self.name}"),
                    )
                    for r in rows
                ],
                conn=conn,
            )
        log.warning("leases_reconciled", count=len(rows))
        return len(rows)

    # -- loop ---------------------------------------------------------------------------

    async def run_once(self) -> int:
        jobs = await self.claim()
        for job in jobs:
            task = asyncio.create_task(self.send(job))
            self.inflight.add(task)
            task.add_done_callback(self._done)
        return len(jobs)

    def _done(self, task: asyncio.Task[None]) -> None:
        self.inflight.discard(task)
        self._wake.set()

    async def drain(self) -> None:
        while self.inflight:
            await asyncio.wait(list(self.inflight))

    async def run(self, stop: asyncio.Event) -> None:
        def _notify(*_: object) -> None:
            self._wake.set()

        listener = await self.store.pool.acquire()
        last_reconcile = 0.0
        try:
            await listener.add_listener("hookproof_events", _notify)
            while not stop.is_set():
                self._wake.clear()
                try:
                    n = await self.run_once()
                    if time.monotonic() - last_reconcile > 5:
                        last_reconcile = time.monotonic()
                        await self.reconcile_leases()
                except Exception as exc:  # the loop must outlive any one bad tick
                    log.warning(
                        "dispatch_tick_failed", error=type(exc).__name__, detail=str(exc)[:200]
                    )
                    n = 0
                    await asyncio.sleep(self.poll_interval)
                if n and len(self.inflight) < self.max_inflight:
                    continue
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.poll_interval)
        finally:
            with contextlib.suppress(Exception):
                await listener.remove_listener("hookproof_events", _notify)
            await self.store.pool.release(listener)
            if self.inflight:
                await asyncio.wait(list(self.inflight), timeout=self.settings.request_timeout_s + 5)
