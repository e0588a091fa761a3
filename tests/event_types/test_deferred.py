"""A payload too dear to validate inside the group's transaction is deferred: validated off the
loop with no transaction open, then committed on its own, and its verdict counts only while
its type's version holds (issue 32, point 3). A real engine and database; the validator is
the engine's own, held at its door by a subclass so that the type can change meanwhile."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import msgspec

from hookproof.engine.event_types.errors import PayloadSchemaInvalid
from hookproof.engine.event_types.gate import SchemaGate
from hookproof.engine.event_types.limits import Compiled
from hookproof.engine.event_types.offload import SchemaValidator
from hookproof.engine.event_types.repository import EventTypeRepository
from hookproof.engine.ingest.ingest import IngestService
from hookproof.engine.runtime.daemon import Engine
from hookproof.schemas.api import EventIn, EventTypeIn

from .conftest import Api, new_tenant, order

LOOSE = {"type": "object", "properties": {"s": {"type": "string", "pattern": "a[ab]{100}c"}}}
STRICT = {
    "type": "object",
    "properties": {"s": {"type": "string", "pattern": "a[ab]{100}c", "maxLength": 10}},
}
#: matches LOOSE; ~3 KB: priced past the inline bound (209 units a byte), within MAX_WORK
PAYLOAD = {"s": "b" * 3000 + "a" + "b" * 100 + "c"}


class HeldValidator(SchemaValidator):
    """The engine's validator, made to wait at the door of each dear validation."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.dear = 0

    async def errors(
        self, compiled: Compiled, instance: Any, encoded: bytes
    ) -> list[dict[str, str]]:
        if not self.inline(compiled, encoded):
            self.dear += 1
            self.entered.set()
            await self.release.wait()
        return await super().errors(compiled, instance, encoded)


def _definition(schema: dict[str, Any]) -> EventTypeIn:
    body = {"description": "x", "versions": {"1": {"schema": schema, "example": {}}}}
    return msgspec.json.decode(json.dumps(body), type=EventTypeIn)


def _event(event_id: str) -> EventIn:
    return msgspec.json.decode(json.dumps(order(event_id, PAYLOAD, topic="t")), type=EventIn)


async def test_a_deferred_verdict_holds_only_for_its_version(engine: Engine, api: Api) -> None:
    t = await new_tenant(engine, "acme")
    types = engine.services.event_types
    await types.define(t.tenant_id, "t", _definition(LOOSE), actor="test")
    held = HeldValidator()
    ingest = IngestService(
        engine.store, gate=SchemaGate(EventTypeRepository.of(engine.store), validator=held)
    )
    try:
        # the type stays as it is: the deferred event is validated, then committed
        held.release.set()
        accepted = await ingest.ingest(t.tenant_id, _event("e-ok"), actor="test")
        assert accepted.created and held.dear == 1
        assert (await api.call("GET", "/v1/events/e-ok", t.token))[0] == 200

        # the type changes while the event is being validated: judged again by the new one
        held.release.clear()
        held.entered.clear()
        pending = asyncio.create_task(ingest.ingest(t.tenant_id, _event("e-late"), actor="t"))
        await asyncio.wait_for(held.entered.wait(), 30)
        await types.define(t.tenant_id, "t", _definition(STRICT), actor="test")
        held.release.set()
        try:
            await pending
        except PayloadSchemaInvalid as refused:
            assert refused.extra["errors"][0]["pointer"] == "/s"
        else:
            raise AssertionError("judged by the definition it was no longer")
        assert held.dear == 3  # validated under each version
        assert (await api.call("GET", "/v1/events/e-late", t.token))[0] == 404
    finally:
        await ingest.groups.close()
        await held.close()


async def test_a_batch_settles_its_deferred_events_in_order(engine: Engine, api: Api) -> None:
    """A repeat of a deferred eventId in the same batch is decided after the first."""
    t = await new_tenant(engine, "acme")
    body = {"description": "x", "versions": {"1": {"schema": LOOSE, "example": {}}}}
    assert (await api.define(t, "t", body))[0] == 200
    other = dict(PAYLOAD, s=PAYLOAD["s"] + "b")
    events = [order("dup", PAYLOAD, topic="t"), order("dup", other, topic="t")]
    status, doc, _ = await api.call("POST", "/v1/events/batch", t.token, {"events": events})
    assert status == 200, doc
    first, second = doc["results"]
    assert first["status"] == 202 and first["created"] is True, first
    assert second["status"] == 409, second  # the same eventId with another payload
