"""The delivery log read through its keys (``delivery_log``, migration 1000): every filter and
pairs of them, paged, give exactly the ledger rows a plain filter of the ledger gives, newest
first; the keys are written by the ledger's inserts (whatever statement inserts them) and
removed with the archive's rows."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg
import pytest

from hookproof.engine.delivery.log import RARE_STATES, LogQuery, log_args, query_name
from hookproof.engine.delivery.log_repository import DeliveryLog, DeliveryLogKeys
from hookproof.projections.ledger import LEDGER_STATES

TENANT = "ten_00000000000000aa"
OTHER = "ten_00000000000000bb"
T0 = datetime(2026, 11, 1, tzinfo=UTC)
# Ledger rows straight into the table (the log reads no events): every state, three
# subscriptions and topics, some accepted or confirmed, pairs planned at the same instant
# (the keyset's tie on created_at), and another tenant's rows beside them. As the fold writes
# them, every ENDPOINT_ACCEPTED row has ``accepted_at`` (ledger.ACCEPTED_ON_ENTRY): its pair
# with ``evidence=NONE`` is answered empty without a read (log.matches_nothing), and the walk
# below holds that answer to the plain filter of the rows.
FILL = """
INSERT INTO deliveries (delivery_id, event_id, subscription_id, tenant_id, generation, endpoint,
    endpoint_digest, payload_digest, topic, owner, receipts, max_attempts, state, attempt,
    application, accepted_at, stream_version, created_at, updated_at)
SELECT 'dlv_' || lpad(to_hex($3::int + g), 28, '0'), 'evt-' || (g / 3),
    'sub_' || lpad(to_hex(g % 3), 24, '0'), $1, 1, 'https://example.test/', 'd', 'sha-256=:x:',
    'topic.' || (g % 4), 'test', true, 8, ($4::text[])[1 + g % cardinality($4::text[])],
    1, CASE WHEN g % 5 = 0 THEN 'CONFIRMED' ELSE 'PENDING' END,
    CASE WHEN g % 2 = 0
              OR ($4::text[])[1 + g % cardinality($4::text[])] = 'ENDPOINT_ACCEPTED'
         THEN $5::timestamptz END, 3,
    $5::timestamptz + make_interval(mins => g / 2), $5::timestamptz
FROM generate_series(1, $2::int) AS g
"""
SUBS = ["sub_" + format(i, "x").rjust(24, "0") for i in range(3)]


def _expected(rows: list[dict[str, Any]], q: LogQuery) -> list[str]:
    def keep(r: dict[str, Any]) -> bool:
        evidence = {
            None: True,
            "APPLICATION_CONFIRMED": r["application"] == "CONFIRMED",
            "ENDPOINT_ACCEPTED": r["accepted_at"] is not None,
            "NONE": r["accepted_at"] is None,
        }[q.evidence]
        return (
            r["tenant_id"] == q.tenant_id
            and q.subscription_id in (None, r["subscription_id"])
            and q.topic in (None, r["topic"])
            and q.state in (None, r["state"])
            and q.event_id in (None, r["event_id"])
            and q.delivery_id in (None, r["delivery_id"])
            and r["delivery_id"].startswith(q.delivery_id_prefix or "")
            and r["event_id"].startswith(q.event_id_prefix or "")
            and (q.since is None or r["created_at"] >= q.since)
            and (q.until is None or r["created_at"] < q.until)
            and evidence
        )

    kept = sorted(
        (r for r in rows if keep(r)),
        key=lambda r: (r["created_at"], r["delivery_id"]),
        reverse=True,
    )
    return [r["delivery_id"] for r in kept]


async def _walk(log: DeliveryLog, filters: dict[str, Any]) -> list[str]:
    out: list[str] = []
    before = None
    while True:
        items, before = await log.page(
            LogQuery(tenant_id=TENANT, limit=7, before=before, **filters)
        )
        out += [i["deliveryId"] for i in items]
        if before is None:
            return out


def _combinations() -> list[dict[str, Any]]:
    one: list[dict[str, Any]] = [{}]
    one += [{"subscription_id": s} for s in SUBS]
    one += [{"topic": f"topic.{i}"} for i in range(4)]
    one += [{"state": s} for s in LEDGER_STATES]
    one += [{"evidence": e} for e in ("APPLICATION_CONFIRMED", "ENDPOINT_ACCEPTED", "NONE")]
    one += [
        {"since": T0 + timedelta(minutes=20)},
        {"until": T0 + timedelta(minutes=40)},
        {"event_id": "evt-7"},
        {"delivery_id": "dlv_" + format(12, "x").rjust(28, "0")},
        {"delivery_id_prefix": "dlv_" + "0" * 26 + "1"},  # ids 0x10..0x1f
        {"delivery_id_prefix": "dlv_0"},  # broad: the time order leads, the filter checks it
        {"event_id_prefix": "evt-1"},  # evt-1, evt-10..evt-19, evt-100..
    ]
    pairs = [{**a, **b} for a, b in itertools.combinations(one[1:], 2) if not set(a) & set(b)]
    return one + pairs


async def test_every_filter_and_pair_pages_the_ledger_rows_it_names(pool: asyncpg.Pool) -> None:
    states = list(LEDGER_STATES)
    await pool.execute(FILL, TENANT, 150, 0, states, T0)
    await pool.execute(FILL, OTHER, 40, 1000, states, T0)
    rows = [dict(r) for r in await pool.fetch("SELECT * FROM deliveries")]
    assert await DeliveryLogKeys(pool).drift() == []  # the INSERT wrote their keys
    log = DeliveryLog(pool)
    used = set()
    for filters in _combinations():
        expected = _expected(rows, LogQuery(tenant_id=TENANT, **filters))
        assert await _walk(log, filters) == expected, filters
        used.add(query_name(LogQuery(tenant_id=TENANT, **filters)))
    assert used == {
        "deliveries_log",
        "deliveries_log_by_id",
        "deliveries_log_by_id_prefix",
        "deliveries_log_by_event",
        "deliveries_log_by_event_prefix",
        "deliveries_log_by_subscription",
        "deliveries_log_by_state",
        "deliveries_log_by_topic",
    }


async def test_a_ledger_row_inserted_by_an_upsert_has_its_key_once(pool: asyncpg.Pool) -> None:
    await pool.execute(FILL, TENANT, 4, 0, ["PLANNED"], T0)
    # the projector's and ingest's statements upsert: an update writes no second key
    await pool.execute(
        "INSERT INTO deliveries SELECT * FROM deliveries WHERE delivery_id = $1"
        " ON CONFLICT (delivery_id) DO UPDATE SET state = 'DISPATCHING'",
        "dlv_" + format(1, "x").rjust(28, "0"),
    )
    assert await pool.fetchval("SELECT count(*) FROM delivery_log") == 4
    assert await DeliveryLogKeys(pool).drift() == []
    await pool.execute("DELETE FROM delivery_log WHERE delivery_id = $1", "dlv_" + "0" * 27 + "2")
    assert await DeliveryLogKeys(pool).drift() == [
        "missing in delivery_log: delivery_id=dlv_" + "0" * 27 + "2"
    ]


@pytest.mark.parametrize("state", sorted(RARE_STATES))
async def test_a_rare_state_reads_its_partial_index(pool: asyncpg.Pool, state: str) -> None:
    """The rare states' rows are in deliveries_log_rare_state (dead letters also in the dead
    letters' page index): the state filter reads one of them, never the whole ledger."""
    from hookproof.engine.delivery.log import SQL

    await pool.execute(FILL, TENANT, 300, 0, list(LEDGER_STATES), T0)
    await pool.execute("ANALYZE deliveries")
    indexes = {
        "DEAD_LETTER": ("deliveries_log_rare_state", "deliveries_dead_page"),
    }.get(state, ("deliveries_log_rare_state",))
    q = LogQuery(tenant_id=TENANT, state=state, limit=25)
    args = log_args(q)
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("SET LOCAL enable_seqscan = off")
        await conn.execute(SQL["deliveries_log_custom_plan"])
        plan = "\n".join(r[0] for r in await conn.fetch("EXPLAIN " + SQL[query_name(q)], *args))
    assert any(f"on {i}" in plan for i in indexes), plan


@pytest.mark.parametrize(
    ("filters", "index"),
    [
        ({"delivery_id_prefix": "dlv_" + "0" * 25 + "12"}, "deliveries_pkey"),
        ({"event_id_prefix": "evt-12"}, "delivery_log_event"),
    ],
)
async def test_an_id_prefix_walks_an_index(
    pool: asyncpg.Pool, filters: dict[str, Any], index: str
) -> None:
    """The console's search by the start of an id reads an index range, never the tenant's
    whole log: the ledger's primary key for a delivery id, delivery_log_event for an event's."""
    from hookproof.engine.delivery.log import SQL

    await pool.execute(FILL, TENANT, 3000, 0, list(LEDGER_STATES), T0)
    await pool.execute("ANALYZE deliveries")
    await pool.execute("ANALYZE delivery_log")
    q = LogQuery(tenant_id=TENANT, limit=25, **filters)
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(SQL["deliveries_log_custom_plan"])
        rows = await conn.fetch("EXPLAIN " + SQL[query_name(q)], *log_args(q))
    plan = "\n".join(r[0] for r in rows)
    assert f"using {index}" in plan or f"on {index}" in plan, plan
    assert "Seq Scan" not in plan, plan
