"""The API token cache (``HOOKPROOF_TOKEN_CACHE_S``): a verified token is taken again without a
database read for at most the bound, its secret still compared each time; a revoked token
stops working within the bound when revoked elsewhere, and at once when revoked through the
same process."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import asyncpg
import pytest

from hookproof.engine.portal.tenants import TenantService
from hookproof.errors import Unauthorized
from hookproof.events import EventStore

from ..daemon import run_cli, start_daemon
from ..delivery.test_event_tenancy import event
from .test_daemon_process import call


async def test_a_token_revoked_elsewhere_is_refused_once_the_bound_has_passed(
    pool: asyncpg.Pool,
) -> None:
    store = EventStore(pool)
    now = [1000.0]
    api = TenantService(store, cache_s=1.0, clock=lambda: now[0])
    cli = TenantService(store)  # another process: its revocation cannot reach api's memory
    issued = await cli.create("cached")
    bearer = f"Bearer {issued.token}"
    assert await api.authenticate(bearer) == issued.tenant_id
    # the right token id with another secret is refused, cached or not
    with pytest.raises(Unauthorized):
        await api.authenticate(f"Bearer hp_{issued.token_id}_{'x' * 43}")
    assert await api.authenticate(bearer) == issued.tenant_id
    await cli.revoke_token(issued.token_id)
    now[0] += 0.9  # within the bound the verified token is still taken (what the bound means)
    assert await api.authenticate(bearer) == issued.tenant_id
    now[0] += 0.2  # past it, the token is read again and refused
    with pytest.raises(Unauthorized) as refused:
        await api.authenticate(bearer)
    assert refused.value.code == "invalid_token"
    now[0] += 0.01  # and stays refused (a refusal is never remembered as a success)
    with pytest.raises(Unauthorized):
        await api.authenticate(bearer)


async def test_a_token_revoked_through_the_same_service_is_refused_at_once(
    pool: asyncpg.Pool,
) -> None:
    store = EventStore(pool)
    api = TenantService(store, cache_s=3600.0, clock=lambda: 0.0)
    issued = await api.create("cached")
    bearer = f"Bearer {issued.token}"
    assert await api.authenticate(bearer) == issued.tenant_id
    assert await api.authenticate(bearer) == issued.tenant_id
    await api.revoke_token(issued.token_id)
    with pytest.raises(Unauthorized):
        await api.authenticate(bearer)


def test_the_daemon_refuses_a_token_revoked_by_the_cli(db_url_sync: str, tmp_path: Path) -> None:
    bound_s = 0.3
    env = {
        "HOOKPROOF_DATABASE_URL": db_url_sync,
        "HOOKPROOF_DATA_DIR": str(tmp_path),
        "HOOKPROOF_TOKEN_CACHE_S": str(bound_s),
        "HOOKPROOF_WORKERS": "2",
    }
    created = run_cli(["tenant", "create", "acme", "--json"], env)
    assert created.returncode == 0, created.stderr
    doc = json.loads(created.stdout.strip().splitlines()[-1])
    token, token_id = doc["token"], doc["token"].split("_", 2)[1]
    daemon = start_daemon(env, tmp_path)
    try:
        for i in range(4):  # the workers that served these have verified (and remembered) it
            status, body = call(
                "POST", daemon.base_url + "/v1/events", token, event(f"e-{i}", {"n": i})
            )
            assert status == 202, body
        revoked = run_cli(["tenant", "revoke-token", token_id], env)
        assert revoked.returncode == 0, revoked.stderr
        time.sleep(bound_s + 0.2)
        for i in range(4):
            status, body = call(
                "POST", daemon.base_url + "/v1/events", token, event(f"late-{i}", {"n": i})
            )
            assert (status, body["code"]) == (401, "invalid_token")
    finally:
        assert daemon.stop() == 0, daemon.log()

    async def stored() -> list[str]:
        conn = await asyncpg.connect(db_url_sync)
        try:
            rows = await conn.fetch("SELECT event_id FROM event_bodies ORDER BY event_id")
        finally:
            await conn.close()
        return [r["event_id"] for r in rows]

    assert asyncio.run(stored()) == [f"e-{i}" for i in range(4)]
