"""Issue 24, point 5: an unauthenticated receipt costs one bounded read of the subscription's
current state, never a read and fold of its stream.

A subscription with a long stream (300 suspend/resume events) gets 20 receipts no key
authenticated; Postgres's own table statistics (flushed by closing the pool's connections)
count the rows read from ``events`` meanwhile: fewer than one stream's worth in all (folding
the stream for each receipt read 20 x 300). A superseded receipt key is still recognised.
"""

from __future__ import annotations

import json

import asyncpg
import msgspec

from hookproof.engine.runtime.daemon import Engine
from hookproof.events.sqlfiles import migration_files
from hookproof.schemas.api import SubscriptionPatch
from hookproof_subscriber import SigningKey, sign_receipt

from .harness import Api, HookServer, active_subscription, ok_endpoint, receipt_key_body
from .test_unauthenticated import _body

STREAM = 300


async def rows_read_from_events(engine: Engine) -> int:
    """Rows of ``events`` read so far by any backend (stats flushed as the pool's close)."""
    await engine.pool.expire_connections()
    async with engine.pool.acquire() as conn:  # a fresh backend: the others have exited
        await conn.execute("SELECT pg_sleep(0.2)")  # let the exiting backends report
        await conn.execute("SELECT pg_stat_clear_snapshot()")
        row = await conn.fetchrow(
            "SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) AS n"
            " FROM pg_stat_user_tables WHERE relname = 'events'"
        )
    return int(row["n"])


async def test_unauthenticated_receipts_never_fold_the_stream(
    engine: Engine, api: Api, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    tenant, _ = tenant_token
    key = SigningKey.generate_ed25519("rk-1")
    hooks.mount("a", ok_endpoint(key))
    sid = await active_subscription(
        engine, tenant, hooks.url("a"), receiptKey=receipt_key_body(key)
    )
    subs = engine.subscriptions
    for _ in range(STREAM // 2):
        await subs.transition(tenant, sid, "suspend", actor="test")
        await subs.transition(tenant, sid, "resume", actor="test")
    await engine.drain()
    assert len(await engine.store.read_stream(f"subscription-{sid}")) > STREAM
    intruder = SigningKey.generate_ed25519("rk-1")  # the right key id, the wrong key
    before = await rows_read_from_events(engine)
    for i in range(20):
        headers, body = sign_receipt(
            _body(sid, operationId=f"op-{i}"), url=api.receipts_url, key=intruder
        )
        status, doc = await api.call("POST", "/v1/receipts", data=body, headers=headers)
        assert (status, doc["code"]) == (401, "bad_signature"), doc
    read = await rows_read_from_events(engine) - before
    assert read < STREAM, f"{read} rows of events read for 20 receipts"


async def test_history_index_follows_the_log(
    engine: Engine, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    """The receipt-key index holds one row per distinct key a registration or update set, as
    the log says (the trigger runs in the appending transaction)."""
    rows = await engine.pool.fetch(
        "SELECT subscription_id, stream_version, receipt_key::text AS k"
        " FROM receipt_key_history ORDER BY 1, 2"
    )
    assert rows == []
    pool: asyncpg.Pool = engine.pool
    tenant, _ = tenant_token
    key = SigningKey.generate_ed25519("rk-9")
    hooks.mount("b", ok_endpoint(key))
    sid = await active_subscription(
        engine, tenant, hooks.url("b"), receiptKey=receipt_key_body(key)
    )
    [row] = await pool.fetch("SELECT * FROM receipt_key_history WHERE subscription_id = $1", sid)
    assert row["stream_version"] == 1 and '"key_id": "rk-9"' in str(row["receipt_key"])


async def test_history_index_keeps_one_row_per_distinct_key(
    engine: Engine, hooks: HookServer, tenant_token: tuple[str, str]
) -> None:
    """Issue 32, point 5: a row per key change only; a key set again (the same key at a new
    generation, or a key back after another) replaces its older row, so the newest 32 rows
    are the newest 32 distinct keys."""
    tenant, _ = tenant_token
    a, b = SigningKey.generate_ed25519("rk-a"), SigningKey.generate_ed25519("rk-b")
    hooks.mount("c", ok_endpoint(a))
    sid = await active_subscription(engine, tenant, hooks.url("c"), receiptKey=receipt_key_body(a))

    async def patch(**body: object) -> None:
        state = await engine.subscriptions.load(sid)
        assert state is not None
        await engine.subscriptions.update(
            tenant, sid, state.generation, msgspec.convert(body, SubscriptionPatch), actor="t"
        )

    async def rows() -> list[tuple[int, str, int]]:
        got = await engine.pool.fetch(
            "SELECT stream_version AS v, receipt_key ->> 'key_id' AS k,"
            " (receipt_key ->> 'generation')::int AS g"
            " FROM receipt_key_history WHERE subscription_id = $1 ORDER BY 1",
            sid,
        )
        return [(r["v"], r["k"], r["g"]) for r in got]

    first = await rows()
    assert [(k, g) for _, k, g in first] == [("rk-a", 1)]
    await patch(region="eu-2")
    assert await rows() == first  # no key change: no row
    await patch(receiptKey=receipt_key_body(b))
    await patch(region="eu-3")
    await patch(receiptKey=receipt_key_body(b))  # the same key again: generation 3
    assert [(k, g) for _, k, g in await rows()] == [("rk-a", 1), ("rk-b", 3)]
    await patch(receiptKey=receipt_key_body(a))  # A back, at generation 4: its old row goes
    assert [(k, g) for _, k, g in await rows()] == [("rk-b", 3), ("rk-a", 4)]


async def test_migration_folds_the_repeats_it_finds(engine: Engine) -> None:
    """0890 applied to rows 0861 left (a key repeated by ordinary updates): the newest row of
    each distinct key stays, the others go; running it again changes nothing."""
    [sql] = [text for n, _, text in migration_files("hookproof.engine") if n == 890]
    pool: asyncpg.Pool = engine.pool
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("DROP INDEX receipt_key_history_distinct_key")

        def key(kid: str, x: str, gen: int) -> str:
            return json.dumps(
                {"key_id": kid, "public_key_jwk": {"kty": "OKP", "x": x}, "generation": gen}
            )

        old = [("s1", 1, key("a", "xa", 1)), ("s1", 2, key("b", "xb", 2))]
        old += [("s1", v, key("b", "xb", 2)) for v in range(3, 40)]
        old += [("s2", 1, key("a", "xa", 1)), ("s2", 2, key("a", "xa", 1))]
        await conn.executemany("INSERT INTO receipt_key_history VALUES ($1, $2, $3::jsonb)", old)
        for _ in range(2):
            await conn.execute(sql)
            got = await conn.fetch(
                "SELECT subscription_id, stream_version FROM receipt_key_history ORDER BY 1, 2"
            )
            assert [tuple(r) for r in got] == [("s1", 1), ("s1", 39), ("s2", 2)]
