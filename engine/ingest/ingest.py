"""Ingest: canonicalise once, plan one delivery per eligible subscription, all in one append."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

import asyncpg
import msgspec
import structlog
from msgspec import UNSET

from hookproof.errors import ConflictError, HookproofError, ValidationError
from hookproof.events import NO_STREAM, EventStore, Metadata, StreamAppend
from hookproof.events.consumer_events import consumer_stream_id
from hookproof.events.delivery_events import (
    DELIVERY_ID,
    EVENT_ID,
    DeliveryPlanned,
    EventIngested,
    EventPayloadConflict,
    delivery_stream_id,
    event_stream_id,
)
from hookproof.schemas.api import EventIn
from hookproof_subscriber import content_digest

from ..consumers.repository import ConsumerRepository
from ..consumers.service import ConsumerDisabledError, UnknownConsumer
from ..delivery.test_event_ids import check_event_id_space
from ..destinations.registry import room_key
from ..event_types.gate import Deferred, Judged, SchemaGate, Verdict
from ..notifications.decide import is_notification_topic, names_notifications
from ..observe import tracing
from ..subscriptions.matching import filter_matches, topic_matches
from .eligibility import Unplanned
from .event_checks import canonical_body, topic_patterns, validate_event
from .group_commit import GroupCommit
from .ingest_repository import IngestRepository
from .repost import with_stored_times
from .unplanned import explain_unplanned

__all__ = [
    "DELIVERY_ID",
    "EVENT_ID",
    "IngestResult",
    "IngestService",
    "canonical_body",
    "delivery_id_for",
    "validate_event",
]

log = structlog.get_logger("hookproof.ingest")


def delivery_id_for(tenant_id: str, event_id: str, subscription_id: str) -> str:
    """Stable: the same (tenant, event, subscription) always has the same delivery id."""
    h = hashlib.sha256(f"{tenant_id}\0{event_id}\0{subscription_id}".encode()).hexdigest()
    return "dlv_" + h[:28]


class IngestResult(msgspec.Struct, frozen=True):
    event_id: str
    payload_digest: str
    deliveries: list[dict[str, str]]
    created: bool


@dataclass(frozen=True, slots=True)
class _Item:
    """One validated event on its way into a group: canonical bytes and digest computed once."""

    tenant_id: str
    event: EventIn
    actor: str
    major: int
    body: bytes
    digest: str
    stream_id: str
    #: a test event: planned for this one subscription only (and marked ``test``)
    only: str | None = None
    #: the event's ``occurredAt``: the sender's, else when the engine accepted it (``filled``)
    occurred_at: str = ""
    filled: bool = False

    @property
    def key(self) -> tuple[str, str]:
        return (self.tenant_id, self.event.event_id)

    def at_time(self, occurred_at: str) -> _Item:
        """This event with another ``occurredAt`` (its body and digest made again)."""
        body = canonical_body(self.event, occurred_at)
        return replace(self, body=body, digest=content_digest(body), occurred_at=occurred_at)


Answer = IngestResult | Exception
#: a group's answer for an event whose validation is deferred (``gate.Deferred``)
Pending = Answer | Deferred
#: how often a deferred event is judged again when its type changes under it
_REJUDGE = 3


def _ordering(c: _Candidate, e: EventIn) -> dict[str, Any]:
    """``ordering: "aggregate"``: the delivery carries its aggregate, version and gap timeout.
    The engine's own notifications are never held: their versions are not the tenant's."""
    if c.gap_timeout_s is None or is_notification_topic(e.topic):
        return {}
    return {
        "aggregate_id": e.aggregate_id,
        "aggregate_version": e.aggregate_version,
        "ordering_gap_timeout_s": c.gap_timeout_s,
    }


class IngestService:
    """Validate, canonicalise, then commit in groups: concurrent ``ingest`` calls share one
    transaction (group commit), ``ingest_batch`` commits a producer's batch the same way.

    Every event still gets exactly the answer it would get alone: a group never holds two
    events of one (tenant, eventId) (a repeat waits for the next round, so it sees the first),
    planning reads the subscriptions inside the group's transaction, and a group that fails
    as a whole is retried one event at a time so that one bad event never blocks the others.
    """

    def __init__(
        self,
        store: EventStore,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        group_window_s: float = 0.001,
        max_group: int = 500,
        max_inflight: int = 2,
        gate: SchemaGate | None = None,
    ) -> None:
        self.store = store
        #: judges payloads of typed topics (the event catalogue) inside each group's transaction
        self.gate = gate
        self.repo = IngestRepository.of(store)
        self.clock = clock
        self.groups: GroupCommit[_Item, IngestResult | Deferred] = GroupCommit(
            self._commit_rounds,
            window_s=group_window_s,
            max_group=max_group,
            max_inflight=max_inflight,
        )

    def prepare(
        self,
        tenant_id: str,
        e: EventIn,
        *,
        actor: str,
        internal: bool = False,
        only: str | None = None,
    ) -> _Item:
        """Validation and the canonical body (no I/O). ``internal``: the engine's own
        notifications, the only events allowed under the reserved ``hookproof.`` prefix;
        ``only``: a test event, for that subscription alone (``test_event_ids``)."""
        major = validate_event(e)
        check_event_id_space(e.event_id, only is not None)
        if not internal and is_notification_topic(e.topic):
            raise ValidationError(
                "topics under 'hookproof.' are reserved for the engine's own notifications",
                field="topic",
                code="reserved_topic",
            )
        filled = e.occurred_at is UNSET
        at = self.clock().isoformat() if filled else str(e.occurred_at)
        body = canonical_body(e, at)
        return _Item(
            tenant_id,
            e,
            actor,
            major,
            body,
            content_digest(body),
            event_stream_id(tenant_id, e.event_id),
            only,
            at,
            filled,
        )

    async def ingest(
        self,
        tenant_id: str,
        e: EventIn,
        *,
        actor: str,
        internal: bool = False,
        only: str | None = None,
    ) -> IngestResult:
        """One event, committed with whatever other events arrive at the same moment."""
        item = self.prepare(tenant_id, e, actor=actor, internal=internal, only=only)
        with tracing.span(
            "hookproof.ingest",
            {
                "hookproof.tenant_id": tenant_id,
                "hookproof.event_id": e.event_id,
                "hookproof.topic": e.topic,
            },
        ) as span:
            pending = await self.groups.submit(item)
            if isinstance(pending, Deferred):  # validated off the loop, committed on its own
                [answer] = await self._settle([(item, pending)])
                if isinstance(answer, Exception):
                    raise answer
                result = answer
            else:
                result = pending
            span.set("hookproof.planned_deliveries", len(result.deliveries))
            span.set("hookproof.created", result.created)
            return result

    async def unplanned(self, tenant_id: str, events: Sequence[EventIn]) -> list[list[Unplanned]]:
        """Why each of ``events`` was planned for no subscription (one cause each; logged)."""
        pairs = [(e, validate_event(e)) for e in events]
        return await explain_unplanned(self.repo, tenant_id, pairs)

    async def ingest_batch(
        self, tenant_id: str, events: Sequence[EventIn | HookproofError], *, actor: str
    ) -> list[Answer]:
        """A producer's batch, in order: each event's own answer (an error is an answer too;
        an event that could not even be decoded arrives here as its error)."""
        answers: list[Answer | None] = [None] * len(events)
        todo: list[tuple[int, _Item]] = []
        for i, e in enumerate(events):
            if isinstance(e, HookproofError):
                answers[i] = e
                continue
            try:
                todo.append((i, self.prepare(tenant_id, e, actor=actor)))
            except HookproofError as exc:
                answers[i] = exc
        with tracing.span(
            "hookproof.ingest_batch",
            {"hookproof.tenant_id": tenant_id, "hookproof.events": len(events)},
        ) as span:
            for start in range(0, len(todo), self.groups.max_group):
                chunk = todo[start : start + self.groups.max_group]
                results = await self._commit_rounds([item for _, item in chunk], settle=True)
                for (i, _), answer in zip(chunk, results, strict=True):
                    assert not isinstance(answer, Deferred)  # settled round by round
                    answers[i] = answer
            span.set("hookproof.created", sum(isinstance(a, IngestResult) for a in answers))
        return [a if a is not None else RuntimeError("no answer") for a in answers]

    # -- committing a group -----------------------------------------------------------------

    async def _commit_rounds(self, items: list[_Item], *, settle: bool = False) -> list[Pending]:
        """Items in rounds where no (tenant, eventId) occurs twice: the n-th occurrence of an
        id goes in round n, so a repeat is decided after (and against) the first. ``settle``
        (a batch): a deferred event is validated and committed before the next round; else
        (the group of concurrent requests) its caller does that itself."""
        seen: dict[tuple[str, str], int] = {}
        rounds: list[list[int]] = []
        for i, item in enumerate(items):
            n = seen.get(item.key, 0)
            seen[item.key] = n + 1
            if n == len(rounds):
                rounds.append([])
            rounds[n].append(i)
        answers: list[Pending | None] = [None] * len(items)
        for r in rounds:
            results = await self._commit_isolated([items[i] for i in r])
            for i, answer in zip(r, results, strict=True):
                answers[i] = answer
            deferred = [(i, a) for i, a in zip(r, results, strict=True) if isinstance(a, Deferred)]
            if settle and deferred:
                settled = await self._settle([(items[i], d) for i, d in deferred])
                for (i, _), answer in zip(deferred, settled, strict=True):
                    answers[i] = answer
        return [a if a is not None else RuntimeError("no answer") for a in answers]

    async def _settle(self, pending: list[tuple[_Item, Deferred]]) -> list[Answer]:
        """Deferred events: validated off the loop with no transaction open (``gate.settle``),
        then committed in a transaction of their own, where each verdict counts only while
        its type's version holds (judged again otherwise, at most ``_REJUDGE`` times)."""
        assert self.gate is not None
        done: dict[tuple[str, str], Answer] = {}
        todo = pending
        for _ in range(_REJUDGE):
            verdicts: dict[Any, Verdict] = {}
            for item, deferred in todo:
                verdicts[item.key] = await self.gate.settle(deferred)
            results = await self._commit_isolated([item for item, _ in todo], verdicts)
            again: list[tuple[_Item, Deferred]] = []
            for (item, _), answer in zip(todo, results, strict=True):
                if isinstance(answer, Deferred):
                    again.append((item, answer))
                else:
                    done[item.key] = answer
            todo = again
            if not todo:
                break
        for item, _ in todo:
            done[item.key] = ConflictError(
                "the event type changed while this event was judged: send it again",
                code="concurrency_conflict",
            )
        return [done[item.key] for item, _ in pending]

    async def _commit_isolated(
        self, items: list[_Item], verdicts: dict[Any, Verdict] | None = None
    ) -> list[Pending]:
        """The group in one transaction; if that fails as a whole, each event on its own."""
        try:
            return await self._commit_group(items, verdicts)
        except Exception as exc:
            if len(items) == 1:
                return [exc]
            log.warning("ingest_group_split", events=len(items), error=type(exc).__name__)
        out: list[Pending] = []
        for item in items:
            try:
                out.extend(await self._commit_group([item], verdicts))
            except Exception as exc:
                out.append(exc)
        return out

    async def _commit_group(
        self, items: list[_Item], verdicts: dict[Any, Verdict] | None = None
    ) -> list[Pending]:
        """Bodies, plans and every stream of the group in one transaction (keys unique). An
        event whose validation is deferred is answered with its ``Deferred`` (nothing of it
        written here)."""
        at = self.clock().isoformat()
        ordered = sorted(items, key=lambda it: it.key)  # one lock order for every group
        answers: dict[tuple[str, str], Pending] = {}
        async with self.repo.transaction() as conn:
            ordered = await self._routable(conn, ordered, answers)
            if self.gate is not None:  # before anything is written: a refused event leaves none
                judged = await self.gate.judge(conn, [_judged(it) for it in ordered], verdicts)
                if judged.refused or judged.deferred:
                    answers.update(judged.refused)
                    answers.update(judged.deferred)
                    ordered = [it for it in ordered if it.key not in answers]
            if not ordered:
                return [answers[it.key] for it in items]
            rows = await self.repo.insert_bodies(
                conn,
                [it.tenant_id for it in ordered],
                [it.event.event_id for it in ordered],
                [it.stream_id for it in ordered],
                [it.digest for it in ordered],
                [it.body for it in ordered],
                [it.event.topic for it in ordered],
            )
            created = {(r["tenant_id"], r["event_id"]) for r in rows}
            fresh = [it for it in ordered if it.key in created]
            again = [it for it in ordered if it.key not in created]
            appends: list[StreamAppend] = []
            if fresh:
                await self._plan(conn, fresh, at, appends, answers)
            if again:
                await self._existing(conn, again, at, appends, answers)
            if appends:  # no savepoint: if the append fails, the group's transaction does
                await self.store.append(appends, conn=conn, savepoint=False)
        return [answers[it.key] for it in items]

    @staticmethod
    async def _routable(
        conn: asyncpg.Connection, items: list[_Item], answers: dict[tuple[str, str], Pending]
    ) -> list[_Item]:
        """The items whose consumer (if they name one) exists and is enabled, its row held
        until the group commits (a disable waits: nothing is planned for it afterwards); the
        others are answered 400 ``unknown_consumer`` / ``consumer_disabled`` and write nothing."""
        named = sorted(
            {consumer_stream_id(it.tenant_id, c) for it in items if (c := it.event.consumer_id)}
        )
        if not named:
            return items
        rows = {r["stream_id"]: r for r in await ConsumerRepository.lock_share(conn, named)}
        keep = []
        for it in items:
            cid = it.event.consumer_id
            if cid is None:
                keep.append(it)
                continue
            row = rows.get(consumer_stream_id(it.tenant_id, cid))
            if row is None or row["tenant_id"] != it.tenant_id:
                answers[it.key] = UnknownConsumer("no consumer with this id", field="consumerId")
            elif row["disabled"]:
                answers[it.key] = ConsumerDisabledError(
                    "this consumer is disabled", field="consumerId"
                )
            else:
                keep.append(it)
        return keep

    async def _plan(
        self,
        conn: asyncpg.Connection,
        fresh: list[_Item],
        at: str,
        appends: list[StreamAppend],
        answers: dict[tuple[str, str], Pending],
    ) -> None:
        """Inside the group's transaction: one delivery per eligible subscription per event."""
        patterns = sorted({p for it in fresh for p in topic_patterns(it.event.topic)})
        tenants = sorted({it.tenant_id for it in fresh})
        rows = await self.repo.candidates(conn, tenants, patterns)
        by_tenant: dict[str, list[_Candidate]] = {}
        for r in rows:
            by_tenant.setdefault(r["tenant_id"], []).append(_Candidate.of(r))
        for it in fresh:
            e = it.event
            notification = is_notification_topic(e.topic)
            meta = Metadata(actor=it.actor, correlation_id=e.event_id)
            deliveries: list[dict[str, str]] = []
            planned: list[StreamAppend] = []
            for c in by_tenant.get(it.tenant_id, ()):
                if c.tenant_id != it.tenant_id:  # never trust one filter with tenancy
                    continue
                if it.only is not None and c.subscription_id != it.only:
                    continue
                if c.consumer_id != e.consumer_id:  # a consumer's events reach only its own
                    continue
                if it.major not in c.event_versions or not topic_matches(c.topics, e.topic):
                    continue
                if notification and not c.hears_notifications:
                    continue  # a bare '*' never brings the engine's notifications
                if not filter_matches(c.filter, e.payload):
                    continue
                did = delivery_id_for(it.tenant_id, e.event_id, c.subscription_id)
                deliveries.append({"deliveryId": did, "subscriptionId": c.subscription_id})
                planned.append(
                    StreamAppend(
                        delivery_stream_id(did),
                        [
                            DeliveryPlanned(
                                delivery_id=did,
                                event_id=e.event_id,
                                subscription_id=c.subscription_id,
                                tenant_id=it.tenant_id,
                                generation=c.generation,
                                endpoint=c.endpoint,
                                endpoint_digest=c.endpoint_digest,
                                payload_digest=it.digest,
                                topic=e.topic,
                                owner=c.owner,
                                receipts=c.receipts,
                                max_attempts=c.max_attempts,
                                at=at,
                                **_ordering(c, e),
                            )
                        ],
                        NO_STREAM,
                        meta,
                    )
                )
            deliveries.sort(key=lambda d: d["deliveryId"])
            appends.append(
                StreamAppend(
                    it.stream_id,
                    [
                        EventIngested(
                            event_id=e.event_id,
                            tenant_id=it.tenant_id,
                            topic=e.topic,
                            version=e.version,
                            aggregate_id=e.aggregate_id,
                            aggregate_version=e.aggregate_version,
                            occurred_at=it.occurred_at,
                            payload_digest=it.digest,
                            body_size=len(it.body),
                            consumer_id=e.consumer_id,
                            deliveries=[d["deliveryId"] for d in deliveries],
                            at=at,
                            test=it.only is not None or UNSET,
                            source=e.source if e.source is not None else UNSET,
                            extensions=e.extensions or UNSET,
                        )
                    ],
                    NO_STREAM,
                    meta,
                )
            )
            appends.extend(planned)
            answers[it.key] = IngestResult(e.event_id, it.digest, deliveries, True)

    async def _existing(
        self,
        conn: asyncpg.Connection,
        again: list[_Item],
        at: str,
        appends: list[StreamAppend],
        answers: dict[tuple[str, str], Pending],
    ) -> None:
        """This tenant's event of that id: the same payload is idempotent, another a conflict.

        A conflict goes to the stream the tenant's event lives in (a legacy
        ``event-<eventId>`` stream for events ingested before ids were tenant-scoped)."""
        tenants = [it.tenant_id for it in again]
        ids = [it.event.event_id for it in again]
        rows = await self.repo.bodies(conn, tenants, ids)
        stored = {(r["tenant_id"], r["event_id"]): r for r in rows}
        again = await with_stored_times(self.repo, conn, again, stored)
        same = [it for it in again if stored[it.key]["payload_digest"] == it.digest]
        planned: dict[tuple[str, str], list[dict[str, str]]] = {it.key: [] for it in same}
        if same:
            for r in await self.repo.deliveries_of_events(
                conn,
                [it.tenant_id for it in same],
                [it.event.event_id for it in same],
            ):
                planned[(r["tenant_id"], r["event_id"])].append(
                    {"deliveryId": r["delivery_id"], "subscriptionId": r["subscription_id"]}
                )
        for it in again:
            row = stored[it.key]
            e = it.event
            if it.key in planned:
                answers[it.key] = IngestResult(e.event_id, it.digest, planned[it.key], False)
                continue
            appends.append(
                StreamAppend(
                    row["stream_id"],
                    [
                        EventPayloadConflict(
                            event_id=e.event_id,
                            tenant_id=it.tenant_id,
                            existing_digest=row["payload_digest"],
                            offered_digest=it.digest,
                            at=at,
                        )
                    ],
                    metadata=Metadata(actor=it.actor, correlation_id=e.event_id),
                )
            )
            answers[it.key] = _PayloadConflict(
                "this eventId was already ingested with another payload",
                code="event_payload_conflict",
                eventId=e.event_id,
                payloadDigest=row["payload_digest"],
            )


def _judged(it: _Item) -> Judged:
    return Judged(it.key, it.tenant_id, it.event.topic, it.major, it.event.payload, it.body)


@dataclass(frozen=True, slots=True)
class _Candidate:
    """A subscription row as planning needs it (its config decoded once per group)."""

    subscription_id: str
    tenant_id: str
    generation: int
    endpoint: str
    endpoint_digest: str  # the room key (``destinations.registry.room_key``)
    topics: list[str]
    event_versions: list[int]
    filter: dict[str, Any] | None
    owner: str
    receipts: bool
    max_attempts: int
    hears_notifications: bool
    gap_timeout_s: float | None  # ordering: "aggregate" (None: unordered)
    consumer_id: str | None  # None: a consumer-less subscription

    @staticmethod
    def of(r: asyncpg.Record) -> _Candidate:
        config = msgspec.json.decode(r["config"])
        return _Candidate(
            r["subscription_id"],
            r["tenant_id"],
            r["generation"],
            r["endpoint"],
            room_key(r["subscription_id"], r["endpoint"], r["endpoint_digest"]),
            list(r["topics"]),
            list(r["event_versions"]),
            config.get("filter"),
            config["owner"],
            config.get("receipt_key") is not None,
            config["retry_policy"]["max_attempts"],
            names_notifications(r["topics"]),
            (
                float(config.get("ordering_gap_timeout_s", 60.0))
                if config.get("ordering", "none") == "aggregate"
                else None
            ),
            r["consumer_id"],
        )


class _PayloadConflict(ConflictError):
    """Raised after the conflict event is appended; the transaction must still commit."""
