"""``AsyncClient``: the asyncio sender client (httpx), on top of the generated operations;
the same calls as ``Client``, awaited."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, Protocol, TypeVar

import httpx

from ._core import (
    HookproofProblem,
    OutgoingEvent,
    PortalLink,
    RetryPolicy,
    batch_body,
    consumer_body,
    event_type_body,
    portal_body,
    portal_link,
    result_of,
    subscription_body,
)
from .generated.api.consumers import (
    get_v1_consumers,
    post_v1_consumers,
    post_v1_consumers_id_portal_sessions,
)
from .generated.api.deliveries import (
    get_v1_dead_letters,
    get_v1_deliveries,
    get_v1_deliveries_id,
    post_v1_deliveries_id_replay,
)
from .generated.api.event_types import put_v1_event_types_topic
from .generated.api.events import get_v_1_events_event_id, post_v1_events, post_v1_events_batch
from .generated.api.portal_sessions import delete_v1_portal_sessions_id
from .generated.api.subscriptions import (
    get_v1_subscriptions,
    get_v1_subscriptions_id,
    post_v1_subscriptions,
)
from .generated.client import AuthenticatedClient
from .generated.models.consumer import Consumer
from .generated.models.consumer_page import ConsumerPage
from .generated.models.dead_letter import DeadLetter
from .generated.models.dead_letter_page import DeadLetterPage
from .generated.models.delivery import Delivery
from .generated.models.delivery_log_item import DeliveryLogItem
from .generated.models.delivery_log_page import DeliveryLogPage
from .generated.models.event_accepted import EventAccepted
from .generated.models.event_batch_results import EventBatchResults
from .generated.models.event_type import EventType
from .generated.models.event_view import EventView
from .generated.models.portal_session_started import PortalSessionStarted
from .generated.models.subscription import Subscription
from .generated.models.subscription_created import SubscriptionCreated
from .generated.models.subscription_page import SubscriptionPage
from .generated.types import UNSET, Response, Unset

__all__ = ["AsyncClient"]

T = TypeVar("T")
I = TypeVar("I")  # noqa: E741


class _Paged(Protocol[I]):
    items: list[I]
    next_cursor: str | None


async def pages(fetch: Callable[[str | Unset], Awaitable[_Paged[I]]]) -> AsyncIterator[I]:
    """Every item of a cursor-paged list, page after page, until ``nextCursor`` is null."""
    cursor: str | Unset = UNSET
    while True:
        page = await fetch(cursor)
        for item in page.items:
            yield item
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


class AsyncClient:
    """A tenant's asyncio client of one hookproof engine (``base_url``, bearer ``token``).

    ``verify``: as httpx takes it (a CA bundle path, an ``ssl.SSLContext`` or a bool);
    ``retry``: how :meth:`publish` and :meth:`publish_batch` try again. Every other call is
    tried once; any answer outside 2xx raises :class:`HookproofProblem`. Use it as an async
    context manager, or :meth:`aclose` it."""

    def __init__(
        self,
        base_url: str,
        token: str,
        *,
        timeout: float = 30.0,
        verify: Any = True,
        retry: RetryPolicy | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        self.retry = retry or RetryPolicy()
        self.api = AuthenticatedClient(
            base_url=base_url.rstrip("/"),
            token=token,
            timeout=httpx.Timeout(timeout),
            verify_ssl=verify,
            headers=dict(headers or {}),
        )

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self.api.get_async_httpx_client().aclose()

    async def _tried(self, send: Callable[[], Awaitable[Response[Any]]]) -> Response[Any]:
        """*send* until it is answered by something but a 503, or the tries run out (then
        the last error is raised, or the 503 is returned to be raised as a problem)."""
        for attempt in range(self.retry.attempts):
            last = attempt == self.retry.attempts - 1
            try:
                response = await send()
            except httpx.TransportError:
                if last:
                    raise
                await asyncio.sleep(self.retry.delay(attempt))
                continue
            if last or not RetryPolicy.retries(None, response):
                return response
            await asyncio.sleep(self.retry.delay(attempt, response.headers.get("retry-after")))
        raise AssertionError("unreachable: RetryPolicy.attempts is at least 1")

    # events

    async def publish(
        self,
        event_type: str,
        payload: Any,
        *,
        event_id: str | None = None,
        version: str = "1.0",
        aggregate_id: str | None = None,
        aggregate_version: int = 1,
        occurred_at: datetime | str | None = None,
        consumer_id: str | None = None,
    ) -> EventAccepted:
        """Publish one event. Its ``eventId`` (a fresh one unless given) is fixed before the
        first try, so a retry after a lost answer is the same event (``created`` false); the
        same id with another payload raises ``event_payload_conflict`` (409)."""
        event = OutgoingEvent(
            event_type,
            payload,
            event_id=event_id or "",
            version=version,
            aggregate_id=aggregate_id,
            aggregate_version=aggregate_version,
            occurred_at=occurred_at or "",
            consumer_id=consumer_id,
        )
        return await self.publish_event(event)

    async def publish_event(self, event: OutgoingEvent) -> EventAccepted:
        body = event.body()
        response = await self._tried(
            lambda: post_v1_events.asyncio_detailed(client=self.api, body=body)
        )
        return result_of(response, EventAccepted)

    async def publish_batch(self, events: Iterable[OutgoingEvent]) -> EventBatchResults:
        """Up to 1,000 events in one request, each answered on its own (``results``, in
        order: status 202, or 409/400 with its ``problem``); retried as :meth:`publish`."""
        body = batch_body(list(events))
        response = await self._tried(
            lambda: post_v1_events_batch.asyncio_detailed(client=self.api, body=body)
        )
        return result_of(response, EventBatchResults)

    async def get_event(self, event_id: str) -> EventView:
        return result_of(
            await get_v_1_events_event_id.asyncio_detailed(event_id, client=self.api), EventView
        )

    # the catalogue, consumers, subscriptions

    async def create_event_type(
        self,
        event_type: str,
        description: str,
        versions: Mapping[int | str, Mapping[str, Any]],
        *,
        deprecated: bool = False,
    ) -> EventType:
        """Define (or replace) an event type: per major version a JSON Schema 2020-12 and an
        example, ``{1: {"schema": {...}, "example": {...}}}``."""
        body = event_type_body(description, versions, deprecated)
        return result_of(
            await put_v1_event_types_topic.asyncio_detailed(event_type, client=self.api, body=body),
            EventType,
        )

    async def create_consumer(
        self, id: str, name: str, *, metadata: Mapping[str, Any] | None = None
    ) -> Consumer:
        body = consumer_body(id, name, metadata)
        return result_of(
            await post_v1_consumers.asyncio_detailed(client=self.api, body=body), Consumer
        )

    async def create_subscription(
        self,
        endpoint: str | None,
        topics: list[str],
        *,
        owner: str,
        region: str,
        event_versions: list[int] | None = None,
        signature_algorithm: str = "ed25519",
        consumer_id: str | None = None,
        extra: Mapping[str, Any] | None = None,
    ) -> SubscriptionCreated:
        """Register an endpoint (the engine challenges it; it is ACTIVE once it answered).
        ``extra``: other fields as the API spells them (``retryPolicy``, ...)."""
        body = subscription_body(
            endpoint,
            topics,
            owner=owner,
            region=region,
            event_versions=event_versions or [1],
            signature_algorithm=signature_algorithm,
            consumer_id=consumer_id,
            extra=extra,
        )
        return result_of(
            await post_v1_subscriptions.asyncio_detailed(client=self.api, body=body),
            SubscriptionCreated,
        )

    async def get_subscription(self, subscription_id: str) -> Subscription:
        return result_of(
            await get_v1_subscriptions_id.asyncio_detailed(subscription_id, client=self.api),
            Subscription,
        )

    def iter_subscriptions(
        self, *, consumer_id: str | None = None, page_size: int = 100
    ) -> AsyncIterator[Subscription]:
        who: str | Unset = UNSET if consumer_id is None else consumer_id

        async def fetch(cursor: str | Unset) -> SubscriptionPage:
            r = await get_v1_subscriptions.asyncio_detailed(
                client=self.api, limit=page_size, cursor=cursor, consumer_id=who
            )
            return result_of(r, SubscriptionPage)

        return pages(fetch)

    def iter_consumers(self, *, page_size: int = 100) -> AsyncIterator[Consumer]:
        async def fetch(cursor: str | Unset) -> ConsumerPage:
            r = await get_v1_consumers.asyncio_detailed(
                client=self.api, limit=page_size, cursor=cursor
            )
            return result_of(r, ConsumerPage)

        return pages(fetch)

    # deliveries

    def iter_deliveries(
        self, *, page_size: int = 100, **filters: Any
    ) -> AsyncIterator[DeliveryLogItem]:
        """The delivery log, newest first, every page. ``filters``: ``subscription_id``,
        ``event_type``, ``state``, ``evidence``, ``since``, ``until``, ``event_id``,
        ``delivery_id`` (as the generated ``get_v1_deliveries`` takes them)."""

        async def fetch(cursor: str | Unset) -> DeliveryLogPage:
            r = await get_v1_deliveries.asyncio_detailed(
                client=self.api, limit=page_size, cursor=cursor, **filters
            )
            return result_of(r, DeliveryLogPage)

        return pages(fetch)

    def iter_dead_letters(self, *, page_size: int = 100) -> AsyncIterator[DeadLetter]:
        async def fetch(cursor: str | Unset) -> DeadLetterPage:
            r = await get_v1_dead_letters.asyncio_detailed(
                client=self.api, limit=page_size, cursor=cursor
            )
            return result_of(r, DeadLetterPage)

        return pages(fetch)

    async def get_delivery(self, delivery_id: str) -> Delivery:
        return result_of(
            await get_v1_deliveries_id.asyncio_detailed(delivery_id, client=self.api), Delivery
        )

    async def replay(self, delivery_id: str) -> Delivery:
        """Replay a delivery (a dead letter, say): a new attempt under the same identity."""
        return result_of(
            await post_v1_deliveries_id_replay.asyncio_detailed(delivery_id, client=self.api),
            Delivery,
        )

    # portal

    async def create_portal_session(
        self,
        consumer_id: str,
        *,
        ttl_seconds: int | None = None,
        capabilities: list[str] | None = None,
    ) -> PortalLink:
        """A portal link for one consumer (``.url``, shown once; default one hour)."""
        body = portal_body(ttl_seconds, capabilities)
        r = await post_v1_consumers_id_portal_sessions.asyncio_detailed(
            consumer_id, client=self.api, body=body
        )
        return portal_link(result_of(r, PortalSessionStarted))

    async def end_portal_session(self, session_id: str) -> None:
        r = await delete_v1_portal_sessions_id.asyncio_detailed(session_id, client=self.api)
        if int(r.status_code) != 204:
            raise HookproofProblem.of_response(int(r.status_code), r.content)
