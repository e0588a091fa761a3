"""Compiled validators are per worker; a type changed by any worker judges the next event in
every other one (two engines, each with its own pool, on one database: what two ``serve``
workers are)."""

from __future__ import annotations

import copy

import msgspec

from hookproof.config import Settings
from hookproof.engine.db.database import connect_pool
from hookproof.engine.event_types.errors import EventVersionUndeclared, PayloadSchemaInvalid
from hookproof.schemas.api import EventIn, EventTypeIn

from ..support import running_engine
from .conftest import ORDER_EXAMPLE, ORDER_SCHEMA, order, order_type


def _event(event_id: str, payload: object, version: str = "1.0") -> EventIn:
    return msgspec.convert(order(event_id, payload, version=version), EventIn)


def _type(schema: object, majors: tuple[str, ...] = ("1",)) -> EventTypeIn:
    body = order_type(versions={m: {"schema": schema, "example": ORDER_EXAMPLE} for m in majors})
    return msgspec.convert(body, EventTypeIn)


async def test_a_type_changed_in_one_worker_judges_the_next_event_in_another(
    db_url: str, settings: Settings
) -> None:
    pool_a = await connect_pool(db_url, min_size=1, max_size=4)
    pool_b = await connect_pool(db_url, min_size=1, max_size=4)
    try:
        async with running_engine(pool_a, settings) as a, running_engine(pool_b, settings) as b:
            tenant = (await a.tenants.create("acme")).tenant_id
            gate_a = a.services.ingest.gate
            assert gate_a is not None
            loose = copy.deepcopy(ORDER_SCHEMA)
            loose["properties"]["currency"] = {"type": "string"}
            await b.services.event_types.define(tenant, "order.created", _type(loose), actor="t")

            # a compiles v1 once, then judges from its cache
            gbp_like = {**ORDER_EXAMPLE, "currency": "CHF"}
            assert (
                await a.services.ingest.ingest(tenant, _event("e1", gbp_like), actor="t")
            ).created
            assert (
                await a.services.ingest.ingest(tenant, _event("e2", gbp_like), actor="t")
            ).created
            assert gate_a.compiled == 1

            # b tightens the type: a's very next event is judged by the new definition
            await b.services.event_types.define(
                tenant, "order.created", _type(ORDER_SCHEMA), actor="t"
            )
            try:
                await a.services.ingest.ingest(tenant, _event("e3", gbp_like), actor="t")
                raise AssertionError("accepted under the old definition")
            except PayloadSchemaInvalid as exc:
                assert exc.extra["errors"][0]["pointer"] == "/currency"
            assert gate_a.compiled == 2

            # b declares major 2 too (a had judged "2.0" undeclared): a takes it at once
            try:
                await a.services.ingest.ingest(
                    tenant, _event("e4", ORDER_EXAMPLE, "2.0"), actor="t"
                )
                raise AssertionError("an undeclared major was accepted")
            except EventVersionUndeclared:
                pass
            await b.services.event_types.define(
                tenant, "order.created", _type(ORDER_SCHEMA, ("1", "2")), actor="t"
            )
            result = await a.services.ingest.ingest(
                tenant, _event("e4", ORDER_EXAMPLE, "2.0"), actor="t"
            )
            assert result.created
            # and the batch path of a third look: one group, judged by the current version
            answers = await a.services.ingest.ingest_batch(
                tenant, [_event("e5", gbp_like), _event("e6", ORDER_EXAMPLE)], actor="t"
            )
            assert isinstance(answers[0], PayloadSchemaInvalid)
            assert not isinstance(answers[1], Exception) and answers[1].created
            assert gate_a.compiled == 3
    finally:
        await pool_a.close()
        await pool_b.close()
