"""Issue 24, point 5: the tenant is checked before any archive read.

``GET /v1/deliveries/{id}`` of an archived delivery: its own tenant gets it (``archived``);
another tenant gets a 404 whatever the segment's state, intact or unreadable, and never a
500 naming the stream; the owner of an unreadable segment is told the truth (a 5xx with
``archive_segment_unreadable``).
"""

from __future__ import annotations

import aiohttp
from aiohttp.test_utils import TestServer

from hookproof.engine.runtime.composition import construct_archiver
from hookproof.engine.runtime.daemon import Engine

from ..delivery.conftest import Subscriber
from .helpers import mixed_workload, now


async def test_another_tenant_gets_404_whatever_the_segment(
    engine: Engine, subscriber: Subscriber
) -> None:
    acme = await engine.tenants.create("acme")
    other = await engine.tenants.create("other")
    await mixed_workload(engine, acme.tenant_id, subscriber)
    result = await construct_archiver(engine.pool, engine.settings).run(await now(engine.pool))
    assert result.events > 0
    row = await engine.pool.fetchrow(
        "SELECT a.stream_id, s.file_name FROM archived_streams AS a"
        " JOIN archive_segments AS s USING (segment_id)"
        " WHERE a.category = 'delivery' ORDER BY a.stream_id LIMIT 1"
    )
    did = row["stream_id"].removeprefix("delivery-")
    assert (
        await engine.pool.fetchval(
            "SELECT tenant_id FROM archived_delivery_owners WHERE delivery_id = $1", did
        )
        == acme.tenant_id
    )
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    try:
        async with aiohttp.ClientSession(str(server.make_url(""))) as http:

            async def get(token: str) -> tuple[int, dict[str, object]]:
                headers = {"Authorization": f"Bearer {token}"}
                async with http.get(f"/v1/deliveries/{did}", headers=headers) as r:
                    return r.status, await r.json(content_type=None)

            status, view = await get(acme.token)
            assert status == 200 and view["archived"] is True
            status, problem = await get(other.token)
            assert (status, problem["code"]) == (404, "delivery_not_found")
            # the segment becomes unreadable
            path = engine.settings.archive_dir / row["file_name"]
            path.write_bytes(b"\x00" * path.stat().st_size)
            status, problem = await get(other.token)
            assert (status, problem["code"]) == (404, "delivery_not_found"), problem
            assert did not in str(problem) and row["file_name"] not in str(problem)
            status, problem = await get(acme.token)
            assert status >= 500 and problem["code"] == "archive_segment_unreadable"
    finally:
        await server.close()


async def test_deliveries_archived_before_owners_were_recorded(
    engine: Engine, subscriber: Subscriber
) -> None:
    """No owner row (archived before migration 0862): an unreadable segment is a 404 for
    anyone asking, never a 500 that names another tenant's stream."""
    acme = await engine.tenants.create("acme")
    other = await engine.tenants.create("other")
    await mixed_workload(engine, acme.tenant_id, subscriber)
    await construct_archiver(engine.pool, engine.settings).run(await now(engine.pool))
    await engine.pool.execute("TRUNCATE archived_delivery_owners")
    row = await engine.pool.fetchrow(
        "SELECT a.stream_id, s.file_name FROM archived_streams AS a"
        " JOIN archive_segments AS s USING (segment_id)"
        " WHERE a.category = 'delivery' ORDER BY a.stream_id LIMIT 1"
    )
    did = row["stream_id"].removeprefix("delivery-")
    path = engine.settings.archive_dir / row["file_name"]
    path.write_bytes(b"\x00" * path.stat().st_size)
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    try:
        async with aiohttp.ClientSession(str(server.make_url(""))) as http:
            for token in (other.token, acme.token):
                headers = {"Authorization": f"Bearer {token}"}
                async with http.get(f"/v1/deliveries/{did}", headers=headers) as r:
                    assert r.status == 404, await r.text()
    finally:
        await server.close()
