"""Issue 49's sender scenario as a user of an openapi-python-client 0.29.1 client writes it
(package ``hp_opc``, generated from ``/openapi.json`` by tests/sdk/test_generators.py), with
nothing but the generated operations and models. Environment: HOOKPROOF_URL,
HOOKPROOF_TOKEN, OK_ENDPOINT, FLAKY_ENDPOINT (refuses each event's first delivery). Prints one
JSON report line (tests/sdk/generators/README.md says what it holds)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

from hp_opc.api.consumers import post_v1_consumers, post_v1_consumers_id_portal_sessions
from hp_opc.api.deliveries import (
    get_v1_deliveries,
    get_v1_deliveries_id,
    post_v1_deliveries_id_replay,
)
from hp_opc.api.event_types import get_v1_event_types, put_v1_event_types_topic
from hp_opc.api.events import post_v1_events, post_v1_events_batch
from hp_opc.api.subscriptions import (
    get_v1_subscriptions_id,
    patch_v1_subscriptions_id,
    post_v1_subscriptions,
    post_v1_subscriptions_id_recover,
)
from hp_opc.client import AuthenticatedClient
from hp_opc.models.consumer import Consumer
from hp_opc.models.consumer_create import ConsumerCreate
from hp_opc.models.delivery import Delivery
from hp_opc.models.delivery_log_page import DeliveryLogPage
from hp_opc.models.event_accepted import EventAccepted
from hp_opc.models.event_batch_in import EventBatchIn
from hp_opc.models.event_batch_results import EventBatchResults
from hp_opc.models.event_in import EventIn
from hp_opc.models.event_type_in import EventTypeIn
from hp_opc.models.event_type_page import EventTypePage
from hp_opc.models.get_v1_deliveries_state import GetV1DeliveriesState
from hp_opc.models.portal_session_create import PortalSessionCreate
from hp_opc.models.portal_session_started import PortalSessionStarted
from hp_opc.models.recover_in import RecoverIn
from hp_opc.models.recovered import Recovered
from hp_opc.models.subscription import Subscription
from hp_opc.models.subscription_create import SubscriptionCreate
from hp_opc.models.subscription_created import SubscriptionCreated
from hp_opc.models.subscription_patch import SubscriptionPatch
from hp_opc.types import UNSET, Response, Unset

T = TypeVar("T")
CONSUMER = os.environ.get("CONSUMER_ID", "cust-g")
ONE_TRY = {"initialDelayS": 0.1, "maxDelayS": 0.1, "maxAttempts": 1}
api = AuthenticatedClient(base_url=os.environ["HOOKPROOF_URL"], token=os.environ["HOOKPROOF_TOKEN"])


def ok(r: Response[Any], want: type[T]) -> T:
    assert isinstance(r.parsed, want), (r.status_code, r.content[:300])
    return r.parsed


def problem(r: Response[Any]) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(r.content)
    return {"status": int(r.status_code), "code": doc["code"], "field": doc.get("field")}


def until(what: str, probe: Callable[[], T | None]) -> T:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if (value := probe()) is not None:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def state_of(sid: str) -> str:
    return ok(get_v1_subscriptions_id.sync_detailed(sid, client=api), Subscription).state


def delivery(did: str) -> Delivery:
    return ok(get_v1_deliveries_id.sync_detailed(did, client=api), Delivery)


def dead_letter(did: str) -> Callable[[], bool | None]:
    return lambda: delivery(did).state == "DEAD_LETTER" or None


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
    body = SubscriptionCreate.from_dict(
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
    sid = ok(post_v1_subscriptions.sync_detailed(client=api, body=body), SubscriptionCreated).id
    until(f"{sid} ACTIVE", lambda: state_of(sid) == "ACTIVE" or None)
    return sid


def main() -> dict[str, Any]:
    report: dict[str, Any] = {}
    since = datetime.now(UTC) - timedelta(minutes=1)
    versions = {"1": {"schema": {"type": "object"}, "example": {"orderId": "o-0"}}}
    for topic in ("order.created", "order.failed"):
        put_body = EventTypeIn.from_dict({"description": topic, "versions": versions})
        put = put_v1_event_types_topic.sync_detailed(topic, client=api, body=put_body)
        assert put.status_code == 200, put.content
    types = ok(get_v1_event_types.sync_detailed(client=api), EventTypePage)
    report["eventTypes"] = [t.topic for t in types.items]
    body = ConsumerCreate.from_dict({"id": CONSUMER, "name": "Customer G"})
    report["consumer"] = ok(post_v1_consumers.sync_detailed(client=api, body=body), Consumer).id

    sid = subscribe(os.environ["OK_ENDPOINT"], "order.created")
    read = get_v1_subscriptions_id.sync_detailed(sid, client=api)
    etag = read.headers["etag"]
    patch = SubscriptionPatch.from_dict({"topics": ["order.created", "order.shipped"]})
    changed = patch_v1_subscriptions_id.sync_detailed(sid, client=api, body=patch, if_match=etag)
    stale = patch_v1_subscriptions_id.sync_detailed(sid, client=api, body=patch, if_match=etag)
    report["patch"] = {
        "before": ok(read, Subscription).generation,
        "after": ok(changed, Subscription).generation,
        "etagBefore": etag,
        "etagAfter": changed.headers["etag"],
        "stale": problem(stale),
    }
    until(f"{sid} ACTIVE again", lambda: state_of(sid) == "ACTIVE" or None)

    one = EventIn.from_dict(event(1))
    single = ok(post_v1_events.sync_detailed(client=api, body=one), EventAccepted)
    again = ok(post_v1_events.sync_detailed(client=api, body=one), EventAccepted)
    batch_body = EventBatchIn.from_dict({"events": [event(2), event(3)]})
    batch = ok(post_v1_events_batch.sync_detailed(client=api, body=batch_body), EventBatchResults)
    report["published"] = [single.event_id, *(str(r.event_id) for r in batch.results)]
    report["again"] = again.created

    def log_pages() -> list[list[str]] | None:
        pages: list[list[str]] = []
        cursor: str | Unset = UNSET
        while True:
            page = ok(
                get_v1_deliveries.sync_detailed(
                    client=api,
                    limit=1,
                    cursor=cursor,
                    subscription_id=sid,
                    state=GetV1DeliveriesState.ENDPOINT_ACCEPTED,
                    since=since,
                ),
                DeliveryLogPage,
            )
            pages.append([d.event_id for d in page.items])
            if page.next_cursor is None:
                return pages if sum(map(len, pages)) == 3 else None
            cursor = page.next_cursor

    report["logPages"] = until("three accepted deliveries", log_pages)
    read_one = delivery(single.deliveries[0].delivery_id)
    report["delivery"] = {"state": read_one.state, "attempts": len(read_one.attempts)}
    portal_body = PortalSessionCreate.from_dict({"capabilities": ["read"]})
    started = post_v1_consumers_id_portal_sessions.sync_detailed(
        CONSUMER, client=api, body=portal_body
    )
    report["portalSession"] = ok(started, PortalSessionStarted).session_id

    failing = subscribe(os.environ["FLAKY_ENDPOINT"], "order.failed")
    dead = []
    for n in (1, 2):
        accepted = post_v1_events.sync_detailed(
            client=api, body=EventIn.from_dict(event(n, "order.failed"))
        )
        did = ok(accepted, EventAccepted).deliveries[0].delivery_id
        until(f"{did} dead", dead_letter(did))
        dead.append(did)
    replayed = post_v1_deliveries_id_replay.sync_detailed(dead[0], client=api)
    assert replayed.status_code == 202, replayed.content
    until("the replay", lambda: delivery(dead[0]).state == "ENDPOINT_ACCEPTED" or None)
    recover_body = RecoverIn.from_dict({"since": since.isoformat(), "states": ["DEAD_LETTER"]})
    recovered = ok(
        post_v1_subscriptions_id_recover.sync_detailed(failing, client=api, body=recover_body),
        Recovered,
    )
    until("the recovery", lambda: delivery(dead[1]).state == "ENDPOINT_ACCEPTED" or None)
    report["dead"] = {"ids": dead, "recovered": recovered.delivery_ids}

    conflict = EventIn.from_dict({**event(9, event_id=single.event_id), "payload": {"x": 1}})
    report["problems"] = {
        "conflict": problem(post_v1_events.sync_detailed(client=api, body=conflict)),
        "notFound": problem(get_v1_deliveries_id.sync_detailed("dlv_" + "0" * 28, client=api)),
        "invalid": problem(
            post_v1_consumers.sync_detailed(
                client=api, body=ConsumerCreate.from_dict({"id": "not an id!", "name": "B"})
            )
        ),
    }
    return report


if __name__ == "__main__":
    print(json.dumps(main()))
