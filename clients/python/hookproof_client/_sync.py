"""``Client``: the blocking sender client (httpx), on top of the generated operations (each
call is one :mod:`._plans` plan, run here)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any, TypeVar

import httpx

from . import _plans as plans
from ._core import (
    ETags,
    OutgoingEvent,
    PortalLink,
    RetryPolicy,
    batch_body,
    branding_body,
    consumer_body,
    consumer_patch_body,
    event_type_body,
    portal_body,
    portal_link,
    recover_body,
    strict_model,
    subscription_body,
    test_event_body,
)
from ._plans import Cursor, Page, Plan
from .generated.client import AuthenticatedClient
from .generated.models.attempt_stats import AttemptStats
from .generated.models.consumer import Consumer
from .generated.models.dead_letter import DeadLetter
from .generated.models.delivery import Delivery
from .generated.models.delivery_log_item import DeliveryLogItem
from .generated.models.event_accepted import EventAccepted
from .generated.models.event_batch_results import EventBatchResults
from .generated.models.event_type import EventType
from .generated.models.event_view import EventView
from .generated.models.history_event import HistoryEvent
from .generated.models.portal_branding import PortalBranding
from .generated.models.portal_session_item import PortalSessionItem
from .generated.models.recovered import Recovered
from .generated.models.secret_rotated import SecretRotated
from .generated.models.subscription import Subscription
from .generated.models.subscription_created import SubscriptionCreated
from .generated.models.subscription_patch import SubscriptionPatch
from .generated.models.test_event_sent import TestEventSent
from .generated.models.timeline_entry import TimelineEntry
from .generated.models.whoami import Whoami
from .generated.types import UNSET

__all__ = ["Client"]

T = TypeVar("T")
I = TypeVar("I")  # noqa: E741


class Client:
    """A tenant's client of one hookproof engine (``base_url``, bearer ``token``).

    ``verify``: as httpx takes it (a CA bundle path, an ``ssl.SSLContext`` or a bool);
    ``retry``: how :meth:`publish` and :meth:`publish_batch` try again. Every other call is
    tried once; any answer outside 2xx raises a :class:`HookproofProblem` (its subclass for
    the status: ``NotFound``, ``PayloadConflict``, ``PreconditionFailed``, ...). ``etags``:
    the last ``ETag`` seen per subscription, sent as ``If-Match`` by
    :meth:`update_subscription`. Use it as a context manager, or :meth:`close` it."""

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
        self.etags = ETags()
        self.api = AuthenticatedClient(
            base_url=base_url.rstrip("/"),
            token=token,
            timeout=httpx.Timeout(timeout),
            verify_ssl=verify,
            headers=dict(headers or {}),
        )

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.api.get_httpx_client().close()

    def _run(self, plan: Plan[T]) -> T:
        return plans.settle(plan, plan.sync(), self.etags)

    def _tried(self, plan: Plan[T]) -> T:
        """*plan* until it is answered by something but a 503, or the tries run out (then
        the last error is raised, or the 503 as its problem)."""
        for attempt in range(self.retry.attempts):
            last = attempt == self.retry.attempts - 1
            try:
                response = plan.sync()
            except httpx.TransportError:
                if last:
                    raise
                time.sleep(self.retry.delay(attempt))
                continue
            if last or not RetryPolicy.retries(None, response):
                return plans.settle(plan, response, self.etags)
            time.sleep(self.retry.delay(attempt, response.headers.get("retry-after")))
        raise AssertionError("unreachable: RetryPolicy.attempts is at least 1")

    def _pages(self, fetch: Callable[[Cursor], Plan[Page[I]]]) -> Iterator[I]:
        """Every item of a cursor-paged list, page after page, until ``nextCursor`` is null
        (each page fetched when the loop gets to it)."""
        cursor: Cursor = UNSET
        while True:
            page = self._run(fetch(cursor))
            yield from page.items
            if page.next_cursor is None:
                return
            cursor = page.next_cursor

    # events

    def publish(
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
        same id with another payload raises :class:`PayloadConflict` (409). No
        ``occurredAt`` is sent unless given: the same id and payload published again (by
        any process) is the same event, never a conflict."""
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
        return self.publish_event(event)

    def publish_event(self, event: OutgoingEvent) -> EventAccepted:
        return self._tried(plans.publish(self.api, event.body()))

    def publish_batch(self, events: Iterable[OutgoingEvent]) -> EventBatchResults:
        """Up to 1,000 events in one request, each answered on its own (``results``, in
        order: status 202, or 409/400 with its ``problem``); retried as :meth:`publish`."""
        return self._tried(plans.publish_batch(self.api, batch_body(list(events))))

    def get_event(self, event_id: str) -> EventView:
        return self._run(plans.get_event(self.api, event_id))

    # the catalogue

    def create_event_type(
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
        return self._run(plans.put_event_type(self.api, event_type, body))

    def get_event_type(self, event_type: str) -> EventType:
        return self._run(plans.get_event_type(self.api, event_type))

    def iter_event_types(self, *, page_size: int = 50) -> Iterator[EventType]:
        return self._pages(lambda c: plans.event_types(self.api, page_size, c))

    # consumers

    def create_consumer(
        self, id: str, name: str, *, metadata: Mapping[str, Any] | None = None
    ) -> Consumer:
        return self._run(plans.create_consumer(self.api, consumer_body(id, name, metadata)))

    def get_consumer(self, id: str) -> Consumer:
        return self._run(plans.get_consumer(self.api, id))

    def update_consumer(
        self, id: str, *, name: str | None = None, metadata: Mapping[str, Any] | None = None
    ) -> Consumer:
        """Rename a consumer or replace its metadata (what is None stays as it is)."""
        body = consumer_patch_body(name, metadata)
        return self._run(plans.update_consumer(self.api, id, body))

    def disable_consumer(self, id: str, *, reason: str | None = None) -> Consumer:
        """Disable a consumer: its subscriptions stop, its portal sessions end."""
        return self._run(plans.disable_consumer(self.api, id, reason))

    def iter_consumers(self, *, page_size: int = 100) -> Iterator[Consumer]:
        return self._pages(lambda c: plans.consumers(self.api, page_size, c))

    # subscriptions

    def create_subscription(
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
        return self._run(plans.create_subscription(self.api, body))

    def get_subscription(self, subscription_id: str) -> Subscription:
        """The subscription now (its ``ETag`` kept for :meth:`update_subscription`)."""
        return self._run(plans.get_subscription(self.api, subscription_id))

    def update_subscription(
        self, subscription_id: str, changes: Mapping[str, Any], *, if_match: str | None = None
    ) -> Subscription:
        """Change a subscription (``PATCH``; ``changes`` as the API spells them, e.g.
        ``{"topics": [...], "retryPolicy": {...}}``). ``If-Match`` is *if_match*, or the
        ``ETag`` of this client's last answer about the subscription (create, get, update,
        a transition); with none, the subscription is read first. Changed meanwhile by
        someone else: :class:`PreconditionFailed` (412 ``generation_mismatch``); read it
        again and decide again."""
        body = strict_model(SubscriptionPatch, changes)
        tag = if_match or self.etags.get(subscription_id)
        if tag is None:
            self.get_subscription(subscription_id)
            tag = self.etags.get(subscription_id) or ""
        return self._run(plans.update_subscription(self.api, subscription_id, body, tag))

    def revoke_subscription(
        self, subscription_id: str, *, reason: str | None = None
    ) -> Subscription:
        """Revoke for good: nothing more is delivered to it."""
        return self._run(plans.transition(self.api, "revoke", subscription_id, reason))

    def suspend_subscription(
        self, subscription_id: str, *, reason: str | None = None
    ) -> Subscription:
        return self._run(plans.transition(self.api, "suspend", subscription_id, reason))

    def resume_subscription(
        self, subscription_id: str, *, reason: str | None = None
    ) -> Subscription:
        """Resume a suspended subscription (the engine challenges the endpoint again)."""
        return self._run(plans.transition(self.api, "resume", subscription_id, reason))

    def challenge_subscription(self, subscription_id: str) -> Subscription:
        return self._run(plans.challenge(self.api, subscription_id))

    def iter_subscriptions(
        self, *, consumer_id: str | None = None, page_size: int = 100
    ) -> Iterator[Subscription]:
        return self._pages(lambda c: plans.subscriptions(self.api, page_size, c, consumer_id))

    def iter_history(self, subscription_id: str, *, page_size: int = 200) -> Iterator[HistoryEvent]:
        """The subscription's recorded events, oldest first."""
        return self._pages(lambda c: plans.history(self.api, subscription_id, page_size, c))

    def iter_subscription_timeline(
        self, subscription_id: str, *, as_of: datetime | None = None, page_size: int = 200
    ) -> Iterator[TimelineEntry]:
        """What happened to the subscription, entry by entry (``as_of``: up to then)."""
        return self._pages(
            lambda c: plans.subscription_timeline(self.api, subscription_id, page_size, c, as_of)
        )

    def attempt_stats(self, subscription_id: str) -> AttemptStats:
        return self._run(plans.attempt_stats(self.api, subscription_id))

    def recover(
        self,
        subscription_id: str,
        since: datetime | str,
        *,
        until: datetime | str | None = None,
        states: list[str] | None = None,
        limit: int | None = None,
    ) -> Recovered:
        """Send again the deliveries in ``states`` (default the dead letters) whose state
        last changed in ``[since, until)``: they go back to RETRYABLE."""
        body = recover_body(since, until, states, limit)
        return self._run(plans.recover(self.api, subscription_id, body))

    def rotate_secret(self, subscription_id: str) -> SecretRotated:
        """A new hmac secret (shown once); the old one verifies for a while."""
        return self._run(plans.rotate_secret(self.api, subscription_id))

    def send_test_event(
        self, subscription_id: str, *, topic: str | None = None, version: int | None = None
    ) -> TestEventSent:
        """The catalogue's example of ``topic`` to this one endpoint, marked as a test."""
        body = test_event_body(topic, version)
        return self._run(plans.send_test_event(self.api, subscription_id, body))

    # deliveries

    def iter_deliveries(self, *, page_size: int = 100, **filters: Any) -> Iterator[DeliveryLogItem]:
        """The delivery log, newest first, every page. ``filters``: ``subscription_id``,
        ``event_type``, ``state``, ``evidence``, ``since``, ``until``, ``event_id``,
        ``delivery_id`` (as the generated ``get_v1_deliveries`` takes them)."""
        return self._pages(lambda c: plans.deliveries(self.api, page_size, c, filters))

    def iter_dead_letters(self, *, page_size: int = 100) -> Iterator[DeadLetter]:
        return self._pages(lambda c: plans.dead_letters(self.api, page_size, c))

    def get_delivery(self, delivery_id: str) -> Delivery:
        return self._run(plans.get_delivery(self.api, delivery_id))

    def replay(self, delivery_id: str) -> Delivery:
        """Replay a delivery (a dead letter, say): a new attempt under the same identity."""
        return self._run(plans.replay(self.api, delivery_id))

    def skip(self, delivery_id: str) -> Delivery:
        """Give up a waiting delivery (its aggregate's later events go on)."""
        return self._run(plans.skip(self.api, delivery_id))

    def iter_delivery_timeline(
        self, delivery_id: str, *, as_of: datetime | None = None, page_size: int = 200
    ) -> Iterator[TimelineEntry]:
        """The delivery's attempts and state changes, entry by entry."""
        return self._pages(
            lambda c: plans.delivery_timeline(self.api, delivery_id, page_size, c, as_of)
        )

    # the portal

    def create_portal_session(
        self,
        consumer_id: str,
        *,
        ttl_seconds: int | None = None,
        capabilities: list[str] | None = None,
    ) -> PortalLink:
        """A portal link for one consumer (``.url``, shown once; default one hour)."""
        body = portal_body(ttl_seconds, capabilities)
        return portal_link(self._run(plans.start_portal_session(self.api, consumer_id, body)))

    def iter_portal_sessions(
        self, consumer_id: str, *, page_size: int = 100
    ) -> Iterator[PortalSessionItem]:
        """The consumer's live portal sessions (never their tokens)."""
        return self._pages(lambda c: plans.portal_sessions(self.api, consumer_id, page_size, c))

    def end_portal_session(self, session_id: str) -> None:
        self._run(plans.end_portal_session(self.api, session_id))

    def end_portal_sessions(self, consumer_id: str) -> int:
        """End every portal session of a consumer; how many there were."""
        return self._run(plans.end_portal_sessions(self.api, consumer_id)).ended

    def get_branding(self) -> PortalBranding:
        return self._run(plans.get_branding(self.api))

    def set_branding(
        self,
        *,
        display_name: str | None = None,
        logo_url: str | None = None,
        accent_colour: str | None = None,
        frame_ancestors: list[str] | None = None,
    ) -> PortalBranding:
        """Replace the portal's branding whole (what is None is unset)."""
        body = branding_body(display_name, logo_url, accent_colour, frame_ancestors)
        return self._run(plans.set_branding(self.api, body))

    def whoami(self) -> Whoami:
        return self._run(plans.whoami(self.api))
