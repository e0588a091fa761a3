"""The delivery ledger's reads and the dispatcher's transactions (the ``deliveries``
projection, the claim and lease queries, the event bodies): the one place the delivery
services reach the database for them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple, cast

from hookproof.events.subscription_events import subscription_stream_id

from ..db.queries import ENGINE_QUERIES
from ..db.repository import PoolRepository, Record

__all__ = ["Backlog", "DeliveryRepository"]

SQL = ENGINE_QUERIES.named(
    "delivery_get",
    "archived_delivery_owner",
    "ingest_body_get",
    "event_deliveries",
    "dead_letters",
    "verified_generation",
    "recover_candidates",
    "dispatch_claim",
    "dispatch_due_heads",
    "dispatch_claim_endpoints",
    "dispatch_bodies",
    "dispatch_expired_leases",
    "deliveries_lock",
    "dispatch_outcome_lock",
    "ledger_can_vacuum",
    "ledger_dead_rows",
    "ledger_vacuum",
    "metrics_queue",
    "metrics_dead_letters",
    "subscription_attempt_stats",
    "subscriptions_attempt_stats",
)

Connection = Any  # asyncpg.Connection in one of this repository's transactions

#: a claim goes per endpoint while at most this many endpoints have waiting rows
HEADS_MAX = 64


class Backlog(NamedTuple):
    """What a metrics scrape reads: waiting deliveries and dead letters (each counted up to a
    cap), and how long the oldest due one has waited."""

    depth: int
    oldest_due_s: float
    dead_letters: int


class DeliveryRepository(PoolRepository):
    async def get(self, tenant_id: str, delivery_id: str) -> Record | None:
        return await self.pool.fetchrow(SQL["delivery_get"], delivery_id, tenant_id)

    async def archived_owner(self, delivery_id: str) -> str | None:
        """The tenant of an archived delivery, when the archive recorded it (from 0862 on)."""
        value = await self.pool.fetchval(SQL["archived_delivery_owner"], delivery_id)
        return str(value) if value is not None else None

    async def verified_generation(self, subscription_id: str) -> int | None:
        """The newest generation whose challenge passed (read from the subscription stream)."""
        return cast(
            int | None,
            await self.pool.fetchval(
                SQL["verified_generation"], subscription_stream_id(subscription_id)
            ),
        )

    async def body(self, tenant_id: str, event_id: str) -> Record | None:
        return await self.pool.fetchrow(SQL["ingest_body_get"], tenant_id, event_id)

    async def of_event(self, tenant_id: str, event_id: str) -> list[Record]:
        return cast(
            list[Record], await self.pool.fetch(SQL["event_deliveries"], tenant_id, event_id)
        )

    async def dead_letters(
        self,
        tenant_id: str,
        limit: int,
        before: tuple[datetime, str] | None,
        consumer_id: str | None = None,
    ) -> list[Record]:
        """Newest first, up to ``limit`` rows, continuing before ``(updated_at, id)``; only of
        ``consumer_id``'s subscriptions when given."""
        since, last = before if before is not None else (None, None)
        return cast(
            list[Record],
            await self.pool.fetch(SQL["dead_letters"], tenant_id, limit, since, last, consumer_id),
        )

    async def attempt_stats(
        self, tenant_id: str, subscription_id: str, since: datetime
    ) -> list[Record]:
        """``(hour, outcome, attempts)`` of a subscription's attempts recorded since ``since``
        (from the attempt statistics: as far as the projector's last pass)."""
        return cast(
            list[Record],
            await self.pool.fetch(
                SQL["subscription_attempt_stats"], tenant_id, subscription_id, since
            ),
        )

    async def attempt_stats_of(
        self, tenant_id: str, subscription_ids: Sequence[str], since: datetime
    ) -> list[Record]:
        """``attempt_stats`` of several subscriptions: ``(subscription_id, hour, outcome,
        attempts)``."""
        return cast(
            list[Record],
            await self.pool.fetch(
                SQL["subscriptions_attempt_stats"], tenant_id, list(subscription_ids), since
            ),
        )

    async def recoverable(
        self,
        tenant_id: str | None,
        subscription_id: str,
        states: Sequence[str],
        since: datetime,
        until: datetime | None,
        limit: int,
    ) -> list[Record]:
        """A subscription's deliveries in ``states`` last changed in ``[since, until)``, oldest
        first (any tenant's when ``tenant_id`` is None: the operator)."""
        return cast(
            list[Record],
            await self.pool.fetch(
                SQL["recover_candidates"],
                tenant_id,
                subscription_id,
                list(states),
                since,
                until,
                limit,
            ),
        )

    # -- the dispatcher's transactions ----------------------------------------------------

    async def claim(
        self,
        conn: Connection,
        limit: int,
        blocked: Sequence[str],
        share: tuple[int, int, bool, float] = (1, 0, True, 0.0),
        rooms: Mapping[str, int] | None = None,
        room: int = 8,
        scan: int | None = None,
        heads_max: int = HEADS_MAX,
        per_endpoint: bool = False,
        held: Collection[str] = (),
    ) -> list[Record]:
        """Up to ``limit`` due deliveries with their subscriptions, locked, skipping the
        endpoints (digests) in ``blocked`` and the subscriptions in ``held`` (waiting for their
        rate limit's next token), within ``share`` (``claim_shares``), and at most
        ``rooms[digest]`` rows of an endpoint (``room`` for one not named).

        While some endpoint is blocked or some subscription held, and at most ``heads_max``
        (endpoint, subscription) pairs have waiting rows: per pair (``dispatch_due_heads`` then
        ``dispatch_claim_endpoints``: each pair's oldest rows, each endpoint's up to its room,
        no backlog walked). Otherwise by due order among the first ``scan`` due rows
        (``dispatch_claim``; default four times ``limit``): with none blocked it reads no row
        it does not take, and with many pairs waiting one probe each would cost more than the
        walk it saves. ``per_endpoint``: per pair even with none blocked
        (``Reservation.per_endpoint``). A claim by due order that met a rate-limited
        subscription's bucket short and took fewer than ``limit`` rows claims the rest per
        pair, that subscription left out: its backlog, ahead in due order, may have filled the
        scan and hidden every other row (issue 35: the limit delays no one else)."""
        named = rooms or {}
        count = share[0]
        by_endpoint = bool(blocked) or bool(held) or per_endpoint
        if by_endpoint:
            heads = await conn.fetch(SQL["dispatch_due_heads"], heads_max, count)
            if len(heads) <= heads_max:
                return await self._claim_pairs(
                    conn, limit, heads, blocked, held, share, named, room, []
                )
        rows = cast(
            list[Record],
            await conn.fetch(
                SQL["dispatch_claim"],
                limit,
                blocked,
                *share,
                scan if scan is not None else 4 * limit,
                list(named),
                list(named.values()),
                room,
                list(held),
            ),
        )
        short = {r["subscription_id"] for r in rows if r["rate_wait_s"] is not None}
        sent = [r for r in rows if r["rate_wait_s"] is None]
        if by_endpoint or not short or len(sent) >= limit:
            return rows
        heads = await conn.fetch(SQL["dispatch_due_heads"], heads_max, count)
        if len(heads) > heads_max:
            return rows
        used = Counter(r["endpoint_digest"] for r in sent)
        left = {e: named.get(e, room) - used[e] for e in {*named, *used}}
        more = await self._claim_pairs(
            conn,
            limit - len(sent),
            heads,
            blocked,
            {*held, *short},
            share,
            left,
            room,
            [r["delivery_id"] for r in rows],  # held by this transaction already
        )
        return rows + more

    async def _claim_pairs(
        self,
        conn: Connection,
        limit: int,
        heads: Sequence[Record],
        blocked: Collection[str],
        held: Collection[str],
        share: tuple[int, int, bool, float],
        rooms: Mapping[str, int],
        room: int,
        leave: Sequence[str],
    ) -> list[Record]:
        """``dispatch_claim_endpoints`` over the due pairs of ``heads`` (``dispatch_due_heads``)
        of this share, less the ``blocked`` endpoints, the ``held`` subscriptions and the
        endpoints without room; ``leave``: delivery ids this transaction holds already."""
        count, index, own, _steal = share
        skip, waiting = set(blocked), set(held)
        pairs = [
            (h["endpoint_digest"], h["subscription_id"])
            for h in heads
            if h["due"]
            and h["endpoint_digest"] not in skip
            and h["subscription_id"] not in waiting
            and (count <= 1 or (h["share"] == index) == own)
            and rooms.get(h["endpoint_digest"], room) > 0
        ]
        if not pairs:
            return []
        return cast(
            list[Record],
            await conn.fetch(
                SQL["dispatch_claim_endpoints"],
                limit,
                [e for e, _ in pairs],
                [s for _, s in pairs],
                [rooms.get(e, room) for e, _ in pairs],
                *share,
                list(leave),
            ),
        )

    async def bodies(
        self, conn: Connection, events: Collection[tuple[str, str]]
    ) -> dict[tuple[str, str], bytes]:
        """The canonical bodies of ``(tenant_id, event_id)`` pairs, by pair."""
        tenants, ids = [t for t, _ in events], [e for _, e in events]
        rows = await conn.fetch(SQL["dispatch_bodies"], tenants, ids)
        return {(b["tenant_id"], b["event_id"]): bytes(b["body"]) for b in rows}

    async def expired_leases(self, conn: Connection, limit: int) -> list[Record]:
        """DISPATCHING deliveries whose lease ran out, locked (``dispatch_expired_leases``)."""
        return cast(list[Record], await conn.fetch(SQL["dispatch_expired_leases"], limit))

    async def lock(
        self, conn: Connection, delivery_ids: Sequence[str], *, dispatch: bool = False
    ) -> None:
        """Lock the ledger rows of ``delivery_ids`` (in the order given) for this transaction;
        ``dispatch``: the dispatcher's outcomes, tagged for the events channel
        (``dispatch_outcome_lock``)."""
        await conn.execute(
            SQL["dispatch_outcome_lock" if dispatch else "deliveries_lock"], delivery_ids
        )

    async def dead_rows(self) -> tuple[int, int]:
        """(dead, live) row versions of the ledger table, from the statistics."""
        row = await self.pool.fetchrow(SQL["ledger_dead_rows"])
        return (int(row["dead"]), int(row["live"])) if row is not None else (0, 0)

    async def can_vacuum(self) -> bool:
        """Whether this role may vacuum the ledger table (else VACUUM only warns and skips)."""
        return bool(await self.pool.fetchval(SQL["ledger_can_vacuum"]))

    async def vacuum(self) -> None:
        """Vacuum the ledger table (outside any transaction; skipped while another runs)."""
        await self.pool.execute(SQL["ledger_vacuum"])

    async def backlog(self, cap: int) -> Backlog:
        """The queue and the dead letters from their partial indexes, counted up to ``cap``."""
        async with self.pool.acquire() as conn:
            queue = await conn.fetchrow(SQL["metrics_queue"], cap)
            dead = await conn.fetchval(SQL["metrics_dead_letters"], cap)
        return Backlog(queue["depth"], float(queue["oldest_due_s"] or 0.0), dead)
