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
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import structlog

from hookproof.config import Settings
from hookproof.errors import ConcurrencyConflict, HookproofError, StoreError
from hookproof.events import Event, EventStore, Metadata, StreamAppend
from hookproof.events.delivery_events import (
    AttemptLost,
    AttemptRequest,
    delivery_stream_id,
)
from hookproof.events.listening import Listening
from hookproof_subscriber import SigningKey

from ..db.db_errors import database_unavailable
from ..destinations.port import Destination, Evidence, PendingAttempt, SignedMessage
from ..destinations.registry import KindRegistry, installed
from ..keys.signing import Signer, sign_headers
from ..rollouts.dispatch import ShadowCounter, shadow_check
from .attempt_metrics import AttemptMetrics, DispatchMetrics
from .batcher import OutcomeBatcher
from .bounded import ATTEMPT_MARGIN_S, InFlight
from .claim import (
    PARK_S,
    STEAL_AFTER_S,
    KeyScope,
    claim_appends,
    claim_rows,
    claim_shares,
    plan_claim,
)
from .formats import render_row
from .gates import EndpointGates, Reservation
from .job import Job, traceparent
from .outcome import breaker_success, outcome_events
from .repository import DeliveryRepository
from .rollout_signing import rollout_signing
from .streams import append_to_deliveries
from .transforming import send_shaped, shaped_request, transform
from .upkeep import LedgerUpkeep

if TYPE_CHECKING:
    from ..rollouts.service import RolloutService

__all__ = ["AttemptMetrics", "DispatchMetrics", "Dispatcher", "GoneHandler"]

log = structlog.get_logger("hookproof.dispatcher")
ROLLOUT_CHECK_S = 15.0  # how often a dispatcher checks running cutovers for the automatic pause
#: an outcome the database could not take (a restart) is tried again after this long, doubling
RECORD_RETRY_S = 0.2
RECORD_RETRY_MAX_S = 5.0
#: the events channel's payload of the dispatchers' own commits (claims, outcomes: migration
#: 0710), which wake no dispatcher
DISPATCH_TAG = "dispatch"

#: (scope: a subscription id for hmac-sha256, else "engine"; algorithm) -> (key, generation)
KeyProvider = Callable[[str, str], Awaitable[tuple[SigningKey, int]]]
#: (subscription id, reason): the endpoint said the subscription is gone (suspend it)
GoneHandler = Callable[[str, str], Awaitable[None]]


class Dispatcher:
    def __init__(
        self,
        store: EventStore,
        settings: Settings,
        *,
        key_provider: KeyProvider,
        destination: Destination,
        on_gone: GoneHandler | None = None,
        name: str | None = None,
        batch: int = 100,
        max_inflight: int = 256,
        lease_margin_s: float = 30.0,
        poll_interval: float = 0.5,
        busy_poll_s: float = 0.02,
        busy_window_s: float = 0.25,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        rng: random.Random | None = None,
        rollouts: RolloutService | None = None,
        key_by_id: Callable[[str], Awaitable[SigningKey]] | None = None,
        deliveries: DeliveryRepository | None = None,
        steal_after_s: float = STEAL_AFTER_S,
        metrics: AttemptMetrics | None = None,
        gates: EndpointGates | None = None,
        kinds: KindRegistry | None = None,
    ) -> None:
        self.store = store
        self.kinds = kinds or installed()
        self.deliveries = deliveries or DeliveryRepository.of(store)
        self.rollouts = rollouts  # RolloutService: what to sign during a signing change
        self.key_by_id = key_by_id  # a rollout's target engine key
        self.shadow = ShadowCounter()
        self.settings = settings
        self.key_provider = key_provider
        #: where each attempt's signed message goes (the composition root chooses it)
        self.destination = destination
        self.on_gone = on_gone
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self.batch = batch
        self.max_inflight = max_inflight
        self.lease_s = settings.request_timeout_s + settings.connect_timeout_s + lease_margin_s
        self.poll_interval = poll_interval
        #: the wait after a claim that admitted sends (``poll_interval`` after one that did not)
        self.busy_poll_s = min(busy_poll_s, poll_interval)
        #: how long after a claim that admitted sends the loop keeps looking every busy_poll_s
        self.busy_window_s = busy_window_s
        self.clock = clock
        self.rng = rng or random.Random()
        self.shares = claim_shares(settings.worker_slot, steal_after_s)
        # the other shares are looked at every half ``steal_after_s``, not in every claim
        self._steal_every_s = steal_after_s / 2
        self._steal_next = 0.0
        self._drained = True  # the last claim found fewer due rows than it asked for
        self._claiming = 0  # sends the running claims may still admit (within max_inflight)
        #: seconds until the soonest token of a rate-limited bucket the last claim found short
        #: (None: no bucket held anything back); the loop claims again then, not a poll later
        self._rate_wait: float | None = None
        #: subscriptions whose claimed row could not be read, to park once the claim ends
        self._unreadable: dict[str, str] = {}
        self.gates = gates or EndpointGates(open_seconds=settings.breaker_open_s)
        self.metrics: AttemptMetrics = metrics if metrics is not None else DispatchMetrics()
        self.outcomes = OutcomeBatcher(store)
        self._wake = asyncio.Event()
        self.inflight = InFlight(max_inflight, self._wake.set)  # parked attempts: .bounded
        self.attempt_deadline_s = max(1.0, self.lease_s - ATTEMPT_MARGIN_S)
        # one process vacuums the ledger's dead index entries (the first worker)
        self.upkeep = LedgerUpkeep(self.deliveries) if settings.worker_slot[0] == 0 else None

    # -- admission ----------------------------------------------------------------------

    async def claim(self) -> list[Job]:
        """One transaction: claim due rows, plan (:func:`.claim.plan_claim`), append the
        quarantines, dead letters and admissions, read the bodies of what will be sent."""
        free = min(self.inflight.room() - self._claiming, self.batch)
        if free <= 0:
            return []
        now = self.clock()
        self.gates.prune()
        # The room this claim may use is reserved now and what it does not admit is given back
        # when it ends: claims that overlap never share a slot, and a send that ends meanwhile
        # finds its endpoint full and wakes the loop (its room would otherwise go unclaimed
        # until the poll: the slots were taken only when the sends started)
        reservation = self.gates.reserve()
        self._claiming += free
        taken: dict[str, int] = {}
        try:
            jobs = await self._claim(free, now, reservation)
            for job in jobs:
                taken[job.row.endpoint_digest] = taken.get(job.row.endpoint_digest, 0) + 1
            return jobs
        finally:
            self._claiming -= free
            self.gates.settle(reservation, taken)
            if self._unreadable:  # after the claim's transaction (it held their rows FOR SHARE)
                await self._park_unreadable()

    async def _park_unreadable(self) -> None:
        """Suspend each subscription whose claimed row could not be read (an event with the
        reason ``claim_row_unreadable``, through ``on_gone``): parked until its owner resumes
        it, not claimed and failed again every :data:`.claim.PARK_S` (the gates hold it that
        long meanwhile, and if the suspension cannot be recorded)."""
        parked, self._unreadable = self._unreadable, {}
        if self.on_gone is not None:
            for sid in parked:
                await self.on_gone(sid, "claim_row_unreadable")

    async def _claim(self, free: int, now: datetime, reservation: Reservation) -> list[Job]:
        async with self.deliveries.transaction() as conn:
            records: list[Any] = []
            waits: list[float] = []
            for i, share in enumerate(self.shares):  # this process's endpoints first
                want = free - len(records)
                if want <= 0 or (i and time.monotonic() < self._steal_next):
                    break
                if i:
                    self._steal_next = time.monotonic() + self._steal_every_s
                got = await self.deliveries.claim(
                    conn,
                    want,
                    reservation.blocked,
                    share,
                    reservation.rooms,
                    reservation.others,
                    per_endpoint=reservation.per_endpoint,
                    held=reservation.held,
                )
                for r in got:  # a rate-limited subscription's first held-back row: not sent
                    if r["rate_wait_s"] is None:
                        records.append(r)
                    else:  # none of its rows until the bucket's next token
                        waits.append(r["rate_wait_s"])
                        self.gates.hold(r["subscription_id"], time.monotonic() + r["rate_wait_s"])
            self._drained = len(records) < free
            self._rate_wait = min(waits) if waits else None
            rows, parked = claim_rows(records)
            for sid, reason in parked.items():  # that subscription only: the claim goes on
                log.error("claim_row_unreadable", subscription_id=sid, reason=reason)
                self.gates.hold(sid, time.monotonic() + PARK_S)
                self._unreadable[sid] = reason
            plan = plan_claim(rows, reservation.room)
            keys: dict[KeyScope, tuple[SigningKey, int]] = {}
            for scope, alg in plan.key_scopes():  # one ring lookup per scope per claim
                try:
                    keys[(scope, alg)] = await self.key_provider(scope, alg)
                except HookproofError as exc:  # e.g. no ACTIVE key after a compromise
                    log.warning("admission_no_key", scope=scope, code=exc.code)
            signing = await rollout_signing(
                self.rollouts, conn, plan, keys, now, key_by_id=self.key_by_id
            )
            appends, admitted = claim_appends(
                plan,
                keys,
                now=now,
                dispatcher=self.name,
                lease_s=self.lease_s,
                extra=lambda row: signing[row.delivery_id][0] if row.delivery_id in signing else {},
            )
            for row, refused in plan.quarantine:
                log.info(
                    "admission_refused",
                    delivery_id=row.delivery_id,
                    subscription_id=row.subscription_id,
                    reason=refused.reason,
                    planned_generation=row.generation,
                    current_generation=row.sub_generation,
                )
            for row, spent in plan.dead_letter:
                log.warning(
                    "admission_exhausted",
                    delivery_id=row.delivery_id,
                    subscription_id=row.subscription_id,
                    attempt=row.attempt,
                    reason=spent.reason,
                )
                self.metrics.count("dead_letter")
            heads: dict[str, bytes] = {}
            if appends:  # a failed append fails the whole claim: no savepoint needed
                recorded = await self.store.append(appends, conn=conn, savepoint=False)
                heads = {e.stream_id: e.hash for e in recorded}  # the last of each stream
            if not admitted:
                return []
            by_event = await self.deliveries.bodies(
                conn, {(a.row.tenant_id, a.row.event_id) for a in admitted}
            )
        started = time.monotonic()
        jobs = []
        for a in admitted:
            fields, signers, shadow = signing.get(a.row.delivery_id, ({}, [], None))
            body, content = render_row(a.row, by_event)
            jobs.append(
                Job(
                    a.row,
                    a.attempt,
                    a.key,
                    a.key_generation,
                    a.version,
                    started,
                    body,
                    signers,
                    shadow,
                    fields.get("rollout_id"),
                    heads.get(delivery_stream_id(a.row.delivery_id)),
                    self.gates,
                    content,
                )
            )
        return jobs

    # -- sending ------------------------------------------------------------------------

    def base_headers(self, job: Job) -> dict[str, str]:
        r = job.row
        return {
            **job.content,
            "Webhook-Id": r.event_id,
            "Webhook-Delivery-Id": r.delivery_id,
            "Webhook-Attempt": str(job.attempt),
            "Webhook-Subscription": r.subscription_id,
            "Webhook-Generation": str(r.generation),
            "traceparent": traceparent(),
        }

    def headers_for(
        self, job: Job, base: dict[str, str] | None = None, created: int | None = None
    ) -> dict[str, str]:
        """Signed exactly as the admission recorded (``job.signers``), never re-decided."""
        r = job.row
        headers = dict(base) if base is not None else self.base_headers(job)
        if self.kinds.signs_own_form(r.endpoint):  # the kind signs its own form
            return headers
        headers.update(
            sign_headers(
                "POST",
                r.endpoint,
                headers,
                job.body,
                job.signers or [Signer(r.signature_profile, job.key)],
                created=int(self.clock().timestamp()) if created is None else created,
                lifetime=int(self.settings.signature_lifetime_s),
            )
        )
        return headers

    def message_for(self, job: Job, base: dict[str, str] | None = None) -> SignedMessage:
        """The attempt's message: its body and headers, signed as the admission recorded
        (one ``created`` for the headers and the message, so the one recorded is the one
        signed)."""
        created = int(self.clock().timestamp())
        return SignedMessage(
            job.body,
            self.headers_for(job, base, created),
            tuple(job.signers or [Signer(job.row.signature_profile, job.key)]),
            created,
            int(self.settings.signature_lifetime_s),
        )

    async def check_shadow(self, job: Job, base: dict[str, str]) -> None:
        """SHADOW: the target signature made and verified beside the live path, counted."""
        if job.shadow is None or job.rollout_id is None:
            return
        ok, reason = await shadow_check(
            job.row.endpoint,
            base,
            job.body,
            job.shadow,
            created=int(self.clock().timestamp()),
            lifetime=int(self.settings.signature_lifetime_s),
        )
        self.shadow.add(job.rollout_id, ok, reason)
        if not ok:
            log.warning("rollout_shadow_mismatch", rollout_id=job.rollout_id, reason=reason)

    async def flush_shadow(self) -> None:
        """Record the shadow checks counted so far in their rollouts' streams."""
        if self.rollouts is not None:
            await self.shadow.flush(self.rollouts.record_shadow)

    async def send(self, job: Job) -> None:
        """Sign, send, record. The endpoint's slot, taken by the claim that admitted the
        job, is held until the HTTP exchange ends: it is released (waking the claim loop if the
        endpoint was full) once the outcome is decided, before the outcome commits; the
        delivery stays DISPATCHING, so unclaimable, until then."""
        r = job.row
        gates = job.gates
        if gates is None:  # not claimed through a reservation: take the slot now
            gates = job.gates = self.gates
            gates.acquire(r.endpoint_digest)
        started = time.monotonic()
        success = False
        held = True

        def release() -> None:
            nonlocal held
            if held:
                held = False
                was_full = gates.room(r.endpoint_digest) <= 0
                gates.release(r.endpoint_digest, success=success)
                if was_full and gates.room(r.endpoint_digest) > 0:  # claim now, not next tick
                    self._wake.set()  # (not while it probes or is open: no room came back)

        try:
            base = self.base_headers(job)
            shape = await transform(job)  # the subscription's transformation: the body to sign
            pending = PendingAttempt(r, self.message_for(job, base), started)
            await self.check_shadow(job, base)
            completed = await send_shaped(shape, self.destination, pending, self.attempt_deadline_s)
            success = breaker_success(completed.evidence)
            await self.record(
                job,
                completed.evidence,
                completed.duration_s,
                release=release,
                request=shaped_request(shape, pending.message, completed.evidence),
            )
        except Exception as exc:  # recording failed: the lease expiry will reconcile it
            log.error(
                "dispatch_record_failed",
                delivery_id=r.delivery_id,
                attempt=job.attempt,
                error=type(exc).__name__,
            )
        finally:
            release()
            self.metrics.observe(time.monotonic() - job.admitted_at)

    async def record(
        self,
        job: Job,
        result: Evidence,
        duration: float,
        *,
        release: Callable[[], None] | None = None,
        request: AttemptRequest | None = None,
    ) -> None:
        """Decide and record the outcome. ``release`` (the endpoint slot) is called once the
        decision's side effects (a suspension) are done, before the outcome append."""
        r = job.row
        recorded = outcome_events(
            delivery_id=r.delivery_id,
            attempt=job.attempt,
            owner=r.owner,
            policy=job.policy,
            result=result,
            duration_s=duration,
            now=self.clock(),
            rand=self.rng.random(),
            request=request,
        )
        decision = recorded.decision
        if decision is not None and decision.suspend_subscription and self.on_gone:
            await self.on_gone(r.subscription_id, "endpoint_gone")
        self.metrics.count(recorded.outcome)
        meta = Metadata(actor=f"dispatcher:{self.name}", correlation_id=r.event_id)
        if release is not None:
            release()
        appending = time.monotonic()
        await self._append_outcome(job, recorded.events, meta)
        log.info(
            "attempt_recorded",
            delivery_id=r.delivery_id,
            subscription_id=r.subscription_id,
            attempt=job.attempt,
            key_id=job.key.key_id,
            outcome=recorded.outcome,
            status=result.status,
            code=result.code,
            exchange_ms=round(duration * 1000, 1),
            record_ms=round((time.monotonic() - appending) * 1000, 1),
        )

    async def _append_outcome(self, job: Job, events: list[Event], meta: Metadata) -> None:
        """Append the outcome. While the database is unavailable (a restart) it backs off and
        tries again within the lease; the event ids are fixed once, so a retry after a commit
        whose answer was lost finds them (``duplicate_event_id``) and appends nothing twice."""
        stream = delivery_stream_id(job.row.delivery_id)
        # an ordered delivery's outcome may make the aggregate's next version claimable: its
        # commit wakes every dispatcher (any process); other outcomes are tagged DISPATCH_TAG
        wake = job.row.ordering_gap_timeout_s is not None
        ids = [uuid.uuid4() for _ in events]
        delay, deadline = RECORD_RETRY_S, job.admitted_at + self.lease_s
        while True:
            try:
                try:
                    await self.outcomes.append(
                        StreamAppend(stream, events, job.version, meta, ids, job.head_hash),
                        wake=wake,
                    )
                except ConcurrencyConflict:
                    # Something else was recorded meanwhile (a receipt, or a lease taken over):
                    # the outcome is still evidence, appended after it.
                    late = StreamAppend(stream, events, "any", meta, ids)
                    await append_to_deliveries(self.store, [late], dispatch=not wake)
                return
            except StoreError as exc:
                if exc.code == "duplicate_event_id":  # the earlier try committed after all
                    return
                if database_unavailable(exc) is None or time.monotonic() + delay > deadline:
                    raise
                error = type(exc.__cause__ or exc).__name__
            except Exception as exc:
                if database_unavailable(exc) is None or time.monotonic() + delay > deadline:
                    raise
                error = type(exc).__name__
            log.warning(
                "dispatch_record_retry",
                delivery_id=job.row.delivery_id,
                attempt=job.attempt,
                error=error,
                retry_in_s=delay,
            )
            await asyncio.sleep(delay)
            delay = min(delay * 2, RECORD_RETRY_MAX_S)

    # -- leases -------------------------------------------------------------------------

    async def reconcile_leases(self, limit: int = 200) -> int:
        """Attempts whose dispatcher vanished: UNKNOWN_TRANSPORT, retried with the same identity."""
        now = self.clock()
        async with self.deliveries.transaction() as conn:
            rows = await self.deliveries.expired_leases(conn, limit)
            if not rows:
                return 0
            await self.store.append(
                [
                    StreamAppend(
                        delivery_stream_id(r["delivery_id"]),
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
            self.inflight.start(self.send(job))
        return len(jobs)

    async def drain(self) -> None:
        while self.inflight.tasks:
            await asyncio.wait(list(self.inflight.tasks))
        await self.flush_shadow()

    async def run(self, stop: asyncio.Event) -> None:
        def _notify(_conn: object, _pid: int, _channel: str, payload: str) -> None:
            if payload != DISPATCH_TAG:  # a dispatcher's own commit makes nothing else due
                self._wake.set()

        last_reconcile = 0.0
        last_rollout_check = 0.0
        busy_until = 0.0
        upkeep = (
            asyncio.create_task(self.upkeep.run(stop), name="ledger-upkeep")
            if self.upkeep is not None
            else None
        )
        try:
            async with Listening(self.store, _notify) as listener:
                while not stop.is_set():
                    self._wake.clear()
                    try:
                        await listener.refresh()  # after a restart
                        n = await self.run_once()
                        if time.monotonic() - last_reconcile > 5:
                            last_reconcile = time.monotonic()
                            await self.reconcile_leases()
                            await self.flush_shadow()
                            if (
                                self.rollouts is not None
                                and time.monotonic() - last_rollout_check > ROLLOUT_CHECK_S
                            ):  # the automatic pause of a cutover (figures scan the log)
                                last_rollout_check = time.monotonic()
                                await self.rollouts.check_all()
                    except Exception as exc:  # the loop must outlive any one bad tick
                        log.warning(
                            "dispatch_tick_failed", error=type(exc).__name__, detail=str(exc)[:200]
                        )
                        n = 0
                        await asyncio.sleep(self.poll_interval)
                    if n and not self._drained and self.inflight.active < self.max_inflight:
                        continue  # more may be due now; else a NOTIFY, a freed slot or the poll
                    # While claims find work, one may have left rows it could not take (locked
                    # by a sibling's claim: SKIP LOCKED) at endpoints that are not full, whose
                    # freed slots then wake nobody: look again soon, not a poll later
                    if n:
                        busy_until = time.monotonic() + self.busy_window_s
                    busy = time.monotonic() < busy_until
                    wait = self.busy_poll_s if busy else self.poll_interval
                    if self._rate_wait is not None:  # a bucket refills: be back for its token
                        wait = min(wait, max(self._rate_wait, self.busy_poll_s))
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), wait)
        finally:
            if upkeep is not None:
                upkeep.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await upkeep
            if self.inflight.tasks:
                await asyncio.wait(
                    list(self.inflight.tasks), timeout=self.settings.request_timeout_s + 5
                )
