"""Issue 24, point 5: an unauthenticated receipt costs one bounded read of the subscription's
current state, never a read and fold of its stream.

A subscription with a long stream (300 suspend/resume events) gets 20 receipts no key
authenticated; Postgres's own table statistics (flushed by closing the pool's connections)
count the rows read from ``events`` meanwhile: fewer than one stream's worth in all (folding
the stream for each receipt read 20 x 300). A superseded receipt key is still recognised.
"""

from __future__ import annotations

import asyncpg

from hookproof.engine.daemon import Engine
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
    """The receipt-key index holds one row per key-bearing registration or update, as the
    log says (the trigger runs in the appending transaction)."""
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
