"""The engine is built once by the composition root (``engine/runtime/composition.py``): no part is
replaced or wired after construction, while requests, background challenges, deliveries and
a suspension run through it."""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest
from aiohttp.test_utils import TestServer

from hookproof.engine.destinations.https.adapter import HttpsDestination
from hookproof.engine.destinations.port import Destination
from hookproof.engine.destinations.registry import DestinationsByKind, installed
from hookproof.engine.observe.tracing import TracedDestination
from hookproof.engine.runtime.composition import Engine, build_engine
from hookproof.engine.runtime.services import Services

from .conftest import Subscriber, delivery, dispatch_all

Wiring = dict[tuple[int, str], int]


def _own(value: object) -> bool:
    """One of the engine's own objects (not a value it computes with)."""
    module = type(value).__module__ or ""
    return module.startswith("hookproof.") and not isinstance(value, (str, int, float, bytes))


def _fields(obj: object) -> Iterator[tuple[str, Any]]:
    seen: set[str] = set()
    for klass in type(obj).__mro__:
        for name in getattr(klass, "__slots__", ()):
            if name not in seen and hasattr(obj, name):
                seen.add(name)
                yield name, getattr(obj, name)
    for name, value in getattr(obj, "__dict__", {}).items():
        if name not in seen:
            yield name, value


def _is_wiring(value: object, parts: dict[int, object]) -> bool:
    """A part, or behaviour handed in (a function, a bound method, a partial)."""
    return id(value) in parts or isinstance(
        value, types.FunctionType | types.MethodType | functools.partial
    )


def _parts(engine: Engine) -> dict[int, object]:
    """Every engine object reachable from the engine (through attributes and containers)."""
    found: dict[int, object] = {}
    todo: list[object] = [engine]
    while todo:
        obj = todo.pop()
        if isinstance(obj, dict):
            todo.extend(obj.values())
            continue
        if isinstance(obj, list | tuple | set | frozenset):
            todo.extend(obj)
            continue
        if isinstance(obj, types.MethodType):
            todo.append(obj.__self__)
            continue
        if isinstance(obj, functools.partial):
            todo.extend([obj.func, *obj.args])
            continue
        if not _own(obj) or id(obj) in found:
            continue
        found[id(obj)] = obj
        todo.extend(value for _, value in _fields(obj))
    return found


def _wiring(parts: dict[int, object]) -> Wiring:
    """For each part, which object each of its wiring attributes holds."""
    return {
        (key, name): id(value)
        for key, obj in parts.items()
        for name, value in _fields(obj)
        if _is_wiring(value, parts)
    }


async def test_no_part_is_rewired_after_construction(
    pool: Any, settings: Any, subscriber: Subscriber
) -> None:
    engine = await build_engine(settings, pool)
    parts = _parts(engine)
    before = _wiring(parts)
    server = TestServer(engine.app(), host="127.0.0.1")
    await server.start_server()
    try:
        issued = await engine.tenants.create("acme")
        headers = {"Authorization": f"Bearer {issued.token}"}
        subscription = {
            "topics": ["order.created"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "team",
        }
        async with aiohttp.ClientSession(base_url=str(server.make_url(""))) as http:
            ids = {}
            for path in ("ok-wired", "gone-wired"):
                body = {**subscription, "endpoint": subscriber.url(path)}
                async with http.post("/v1/subscriptions", json=body, headers=headers) as r:
                    assert r.status == 201, await r.text()
                    ids[path] = (await r.json())["id"]
            await engine.drain()  # the registrations' challenges, in the background
            event = {
                "eventId": "evt-wired",
                "topic": "order.created",
                "version": "1.0",
                "aggregateId": "order-1",
                "aggregateVersion": 1,
                "occurredAt": "2026-01-01T00:00:00Z",
                "payload": {"amount": 1},
            }
            async with http.post("/v1/events", json=event, headers=headers) as r:
                assert r.status == 202, await r.text()
                planned = (await r.json())["deliveries"]
        assert await dispatch_all(engine) == 2
        views = {
            d["subscriptionId"]: await delivery(engine, issued.tenant_id, d["deliveryId"])
            for d in planned
        }
        assert views[ids["ok-wired"]]["state"] == "ENDPOINT_ACCEPTED"
        gone = await engine.subscriptions.load(ids["gone-wired"])
        assert gone is not None and gone.state == "SUSPENDED"  # on_gone ran
    finally:
        await server.close()
        await engine.services.dispatcher.drain()
        await engine.close()
    assert _wiring(parts) == before


async def test_the_parts_are_frozen_and_the_destination_is_chosen_at_construction(
    pool: Any, settings: Any, subscriber: Subscriber
) -> None:
    engine = await build_engine(settings, pool)
    try:
        services = engine.services
        with pytest.raises(dataclasses.FrozenInstanceError):
            services.dispatcher = services.dispatcher  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            engine.api = engine.api  # type: ignore[misc]
        assert not hasattr(services, "__getitem__") and not hasattr(services, "get")
        assert services.archiver is None  # retention unset: absent, in its typed field
        # traced, dispatched by kind, HTTPS through the pinned egress: one chain, built once
        destination: Destination = services.dispatcher.destination
        assert destination is services.destination
        assert isinstance(destination, TracedDestination)
        assert isinstance(destination.inner, DestinationsByKind)
        # the broker kinds (DESIGN.md 13) share one broker destination beside HTTPS; the
        # relay is hookproof listen's
        assert destination.inner.kinds == set(installed().names)
        assert {"https", "amqp", "nats", "relay"} <= destination.inner.kinds
        https = destination.inner.default
        assert isinstance(https, HttpsDestination)
        assert https.transport is services.transport and https.guard is services.drift_guard
        # one clock, passed down
        clock = engine.clock
        for part in (engine.subscriptions, services.dispatcher, services.ingest, services.rollouts):
            assert part.clock is clock
        assert Services.names() >= {"dispatcher", "destination", "archiver"}
    finally:
        await engine.close()
