"""``POST /v1/subscriptions/{id}/test-events``: the catalogue's example to one endpoint, as a
test (``TestEventIn`` in ``schemas/api.py``; open to a portal session for its consumer's
subscriptions)."""

from __future__ import annotations

from aiohttp import web

from hookproof.errors import ValidationError
from hookproof.schemas.api import TestEventIn
from hookproof.schemas.api_out import DeliveryRef, TestEventSent

from ..ingest.test_events import TestEventSender
from ..subscriptions.service import SUBSCRIPTION_ID
from .context import ApiContext, actor, tenant_of
from .problems import decode_body, json_response

__all__ = ["routes"]


def routes(sender: TestEventSender) -> list[web.RouteDef]:
    async def send(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        sid = request.match_info["id"]
        if not SUBSCRIPTION_ID.match(sid):
            raise ValidationError(
                "a subscription id is sub_ and 24 hex digits", field="id", code="invalid_id"
            )
        state = await ApiContext.of(request).subscriptions.get(tenant, sid)  # 404 if not its
        body = await decode_body(request, TestEventIn) if request.can_read_body else TestEventIn()
        result = await sender.send(state, body, actor=actor(request, tenant))
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
