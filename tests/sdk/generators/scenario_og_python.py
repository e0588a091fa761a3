"""Issue 49's sender scenario as a user of an OpenAPI Generator 7.26 ``python`` client writes
it (package ``hp_og``, generated from ``/openapi.json`` by tests/sdk/test_generators.py), with
nothing but the generated APIs and models. Environment: HOOKPROOF_URL, HOOKPROOF_TOKEN,
OK_ENDPOINT, FLAKY_ENDPOINT (refuses each event's first delivery). Prints one JSON report line,
the same as scenario_opc.py's."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import hp_og
from hp_og.exceptions import ApiException

T = TypeVar("T")
CONSUMER = os.environ.get("CONSUMER_ID", "cust-g")
ONE_TRY = {"initialDelayS": 0.1, "maxDelayS": 0.1, "maxAttempts": 1}
client = hp_og.ApiClient(
    hp_og.Configuration(
        host=os.environ["HOOKPROOF_URL"], access_token=os.environ["HOOKPROOF_TOKEN"]
    )
)
consumers = hp_og.ConsumersApi(client)
deliveries = hp_og.DeliveriesApi(client)
event_types = hp_og.EventTypesApi(client)
events = hp_og.EventsApi(client)
subscriptions = hp_og.SubscriptionsApi(client)


def problem(call: Callable[[], object]) -> dict[str, Any]:
    try:
        call()
    except ApiException as e:
        doc = json.loads(e.body or "{}")
        return {"status": e.status, "code": doc.get("code"), "field": doc.get("field")}
    raise AssertionError("expected a problem, the call succeeded")


def until(what: str, probe: Callable[[], T | None]) -> T:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if (value := probe()) is not None:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def state_of(sid: str) -> str:
    return subscriptions.get_v1_subscriptions_id(sid).state


def event(n: int, topic: str = "order.created", event_id: str = "") -> dict[str, Any]:
    eid = event_id or f"evt-{topic}-{n}-{time.time_ns()}"
    return {
        "eventId": eid,
        "topic": topic,
        "version": "1.0",
        "aggregateId": eid,
        "aggregateVersion": 1,
        "payload": {"orderId": f"o-{n}"},
    }


def subscribe(endpoint: str, topic: str) -> str:
    body = hp_og.SubscriptionCreate.from_dict(
        {
            "endpoint": endpoint,
            "topics": [topic],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "team-shop",
            "retryPolicy": ONE_TRY,
        }
    )
    sid = subscriptions.post_v1_subscriptions(body).id
    until(f"{sid} ACTIVE", lambda: state_of(sid) == "ACTIVE" or None)
    return sid


def main() -> dict[str, Any]:
    report: dict[str, Any] = {}
    since = datetime.now(UTC) - timedelta(minutes=1)
    versions = {"1": {"schema": {"type": "object"}, "example": {"orderId": "o-0"}}}
    for topic in ("order.created", "order.failed"):
        body = hp_og.EventTypeIn.from_dict({"description": topic, "versions": versions})
        event_types.put_v1_event_types_topic(topic, body)
    report["eventTypes"] = [t.topic for t in event_types.get_v1_event_types().items]
    made = consumers.post_v1_consumers(
        hp_og.ConsumerCreate.from_dict({"id": CONSUMER, "name": "Customer G"})
    )
    report["consumer"] = made.id

    sid = subscribe(os.environ["OK_ENDPOINT"], "order.created")
    read = subscriptions.get_v1_subscriptions_id_with_http_info(sid)
    etag = (read.headers or {})["ETag"]
    patch = hp_og.SubscriptionPatch.from_dict({"topics": ["order.created", "order.shipped"]})
    changed = subscriptions.patch_v1_subscriptions_id_with_http_info(sid, etag, patch)
    report["patch"] = {
        "before": read.data.generation,
        "after": changed.data.generation,
        "etagBefore": etag,
        "etagAfter": (changed.headers or {})["ETag"],
        "stale": problem(lambda: subscriptions.patch_v1_subscriptions_id(sid, etag, patch)),
    }
    until(f"{sid} ACTIVE again", lambda: state_of(sid) == "ACTIVE" or None)

    one = hp_og.EventIn.from_dict(event(1))
    single = events.post_v1_events(one)
    again = events.post_v1_events(one)
    batch = events.post_v1_events_batch(
        hp_og.EventBatchIn.from_dict({"events": [event(2), event(3)]})
    )
    report["published"] = [single.event_id, *(str(r.event_id) for r in batch.results)]
    report["again"] = again.created

    def log_pages() -> list[list[str]] | None:
        pages: list[list[str]] = []
        cursor = None
        while True:
            page = deliveries.get_v1_deliveries(
                limit=1,
                cursor=cursor,
                subscription_id=sid,
                state="ENDPOINT_ACCEPTED",
                since=since,
            )
            pages.append([d.event_id for d in page.items])
            if page.next_cursor is None:
                return pages if sum(map(len, pages)) == 3 else None
            cursor = page.next_cursor

    report["logPages"] = until("three accepted deliveries", log_pages)
    read_one = deliveries.get_v1_deliveries_id(single.deliveries[0].delivery_id)
    report["delivery"] = {"state": read_one.state, "attempts": len(read_one.attempts)}
    started = consumers.post_v1_consumers_id_portal_sessions(
        CONSUMER, hp_og.PortalSessionCreate.from_dict({"capabilities": ["read"]})
    )
    report["portalSession"] = started.session_id

    failing = subscribe(os.environ["FLAKY_ENDPOINT"], "order.failed")
    dead = []
    for n in (1, 2):
        accepted = events.post_v1_events(hp_og.EventIn.from_dict(event(n, "order.failed")))
        did = accepted.deliveries[0].delivery_id
        until(f"{did} dead", dead_letter(did))
        dead.append(did)
    deliveries.post_v1_deliveries_id_replay(dead[0])
    until("the replay", accepted_state(dead[0]))
    recovered = subscriptions.post_v1_subscriptions_id_recover(
        failing, hp_og.RecoverIn.from_dict({"since": since.isoformat(), "states": ["DEAD_LETTER"]})
    )
    until("the recovery", accepted_state(dead[1]))
    report["dead"] = {"ids": dead, "recovered": recovered.delivery_ids}

    conflict = hp_og.EventIn.from_dict({**event(9, event_id=single.event_id), "payload": {"x": 1}})
    report["problems"] = {
        "conflict": problem(lambda: events.post_v1_events(conflict)),
        "notFound": problem(lambda: deliveries.get_v1_deliveries_id("dlv_" + "0" * 28)),
        # the generated models check the id pattern before sending: a state the engine refuses
        "invalid": problem(lambda: deliveries.get_v1_deliveries(state="NOT_A_STATE")),
    }
    return report


def dead_letter(did: str) -> Callable[[], bool | None]:
    return lambda: deliveries.get_v1_deliveries_id(did).state == "DEAD_LETTER" or None


def accepted_state(did: str) -> Callable[[], bool | None]:
    return lambda: deliveries.get_v1_deliveries_id(did).state == "ENDPOINT_ACCEPTED" or None


if __name__ == "__main__":
    print(json.dumps(main()))
