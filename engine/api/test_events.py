"""``POST /v1/subscriptions/{id}/test-events``: the catalogue's example to one endpoint, as a
test (``TestEventIn`` in ``schemas/api.py``; open to a portal session for its consumer's
subscriptions). Each caller (the tenant's token, each portal session) has a budget of
:data:`TEST_EVENT_BURST` at once and one more every ``1 / TEST_EVENTS_PER_S`` seconds, and the
tenant as a whole (however many portal sessions it opens) :data:`TENANT_TEST_EVENT_BURST` and
:data:`TENANT_TEST_EVENTS_PER_S`; beyond either the answer is 429 ``rate_limited`` with
``Retry-After`` (issue 46), nothing ingested."""

from __future__ import annotations

from typing import Final

from aiohttp import web

from hookproof.errors import RateLimited, ValidationError
from hookproof.schemas.api import TestEventIn
from hookproof.schemas.api_out import DeliveryRef, TestEventSent

from ..common.budget import Budgets
from ..ingest.test_events import TestEventSender
from ..subscriptions.service import SUBSCRIPTION_ID
from .context import ApiContext, actor, tenant_of
from .problems import decode_body, json_response

__all__ = [
    "TENANT_TEST_EVENTS_PER_S",
    "TENANT_TEST_EVENT_BURST",
    "TEST_EVENTS_PER_S",
    "TEST_EVENT_BURST",
    "routes",
]

#: test events one caller may send at once, and per second after that (per worker)
TEST_EVENT_BURST: Final = 10.0
TEST_EVENTS_PER_S: Final = 0.5
#: the same for all of a tenant's callers together
TENANT_TEST_EVENT_BURST: Final = 30.0
TENANT_TEST_EVENTS_PER_S: Final = 2.0


def routes(sender: TestEventSender) -> list[web.RouteDef]:
    callers = Budgets(TEST_EVENTS_PER_S, TEST_EVENT_BURST)
    tenants = Budgets(TENANT_TEST_EVENTS_PER_S, TENANT_TEST_EVENT_BURST)

    async def send(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        sid = request.match_info["id"]
        if not SUBSCRIPTION_ID.match(sid):
            raise ValidationError(
                "a subscription id is sub_ and 24 hex digits", field="id", code="invalid_id"
            )
        state = await ApiContext.of(request).subscriptions.get(tenant, sid)  # 404 if not its
        body = await decode_body(request, TestEventIn) if request.can_read_body else TestEventIn()
        caller = actor(request, tenant)
        wait = callers.take((tenant, caller)) or tenants.take(tenant)
        if wait:
            raise RateLimited(
                "too many test events from this caller: try again later", retry_after_s=wait
            )
        result = await sender.send(state, body, actor=caller)
        sent = TestEventSent(
            event_id=result.event_id,
            payload_digest=result.payload_digest,
            deliveries=[
                DeliveryRef(delivery_id=d["deliveryId"], subscription_id=d["subscriptionId"])
                for d in result.deliveries
            ],
            test=True,
        )
        return json_response(sent, status=202)

    return [web.post("/v1/subscriptions/{id}/test-events", send)]
