"""Every operation of the hand-written layer, written once: which generated operation sends
it (its blocking and its asyncio form) and what its 2xx answer is. ``Client`` runs a
:class:`Plan` blocking, ``AsyncClient`` awaits it; neither repeats an operation's details.
No I/O here: a plan is only built."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Generic, Protocol, TypeVar

from ._core import ETags, result_of
from .generated.api.consumers import (
    delete_v1_consumers_id_portal_sessions as end_sessions_op,
)
from .generated.api.consumers import (
    get_v1_consumers,
    get_v1_consumers_id,
    get_v1_consumers_id_portal_sessions,
    patch_v1_consumers_id,
    post_v1_consumers,
    post_v1_consumers_id_disable,
    post_v1_consumers_id_portal_sessions,
)
from .generated.api.deliveries import (
    get_v1_dead_letters,
    get_v1_deliveries,
    get_v1_deliveries_id,
    get_v1_deliveries_id_timeline,
    post_v1_deliveries_id_replay,
    post_v1_deliveries_id_skip,
)
from .generated.api.event_types import (
    get_v1_event_types,
    get_v1_event_types_topic,
    put_v1_event_types_topic,
)
from .generated.api.events import get_v_1_events_event_id, post_v1_events, post_v1_events_batch
from .generated.api.portal import get_v1_portal_branding, put_v1_portal_branding
from .generated.api.portal_sessions import delete_v1_portal_sessions_id
from .generated.api.subscriptions import (
    get_v1_subscriptions,
    get_v1_subscriptions_id,
    get_v1_subscriptions_id_attempt_stats,
    get_v1_subscriptions_id_history,
    get_v1_subscriptions_id_timeline,
    patch_v1_subscriptions_id,
    post_v1_subscriptions,
    post_v1_subscriptions_id_challenge,
    post_v1_subscriptions_id_recover,
    post_v1_subscriptions_id_resume,
    post_v1_subscriptions_id_revoke,
    post_v1_subscriptions_id_secret_rotate,
    post_v1_subscriptions_id_suspend,
    post_v1_subscriptions_id_test_events,
)
from .generated.api.whoami import get_v1_whoami
from .generated.client import AuthenticatedClient as Api
from .generated.models.attempt_stats import AttemptStats
from .generated.models.consumer import Consumer
from .generated.models.consumer_create import ConsumerCreate
from .generated.models.consumer_disable import ConsumerDisable
from .generated.models.consumer_page import ConsumerPage
from .generated.models.consumer_patch import ConsumerPatch
from .generated.models.dead_letter import DeadLetter
from .generated.models.dead_letter_page import DeadLetterPage
from .generated.models.delivery import Delivery
from .generated.models.delivery_log_item import DeliveryLogItem
from .generated.models.delivery_log_page import DeliveryLogPage
from .generated.models.event_accepted import EventAccepted
from .generated.models.event_batch_in import EventBatchIn
from .generated.models.event_batch_results import EventBatchResults
from .generated.models.event_in import EventIn
from .generated.models.event_type import EventType
from .generated.models.event_type_in import EventTypeIn
from .generated.models.event_type_page import EventTypePage
from .generated.models.event_view import EventView
from .generated.models.history_event import HistoryEvent
from .generated.models.history_page import HistoryPage
from .generated.models.portal_branding import PortalBranding
from .generated.models.portal_branding_in import PortalBrandingIn
from .generated.models.portal_session_create import PortalSessionCreate
from .generated.models.portal_session_item import PortalSessionItem
from .generated.models.portal_session_page import PortalSessionPage
from .generated.models.portal_session_started import PortalSessionStarted
from .generated.models.portal_sessions_ended import PortalSessionsEnded
from .generated.models.recover_in import RecoverIn
from .generated.models.recovered import Recovered
from .generated.models.secret_rotated import SecretRotated
from .generated.models.subscription import Subscription
from .generated.models.subscription_create import SubscriptionCreate
from .generated.models.subscription_created import SubscriptionCreated
from .generated.models.subscription_page import SubscriptionPage
from .generated.models.subscription_patch import SubscriptionPatch
from .generated.models.subscription_transition import SubscriptionTransition
from .generated.models.test_event_in import TestEventIn
from .generated.models.test_event_sent import TestEventSent
from .generated.models.timeline import Timeline
from .generated.models.timeline_entry import TimelineEntry
from .generated.models.whoami import Whoami
from .generated.types import UNSET, Response, Unset

__all__ = ["Cursor", "Page", "Plan", "settle"]

T = TypeVar("T")
I = TypeVar("I")  # noqa: E741
Cursor = str | Unset


@dataclass(frozen=True)
class Page(Generic[I]):
    """One page of a list: its ``items`` and the ``next_cursor`` (None on the last page)."""

    items: list[I]
    next_cursor: str | None


class _Paged(Protocol[I]):
    items: list[I]
    next_cursor: str | None


@dataclass(frozen=True)
class Plan(Generic[T]):
    """One request: ``sync`` sends it blocking, ``aio`` with asyncio; ``parse`` turns the
    answer into ``T`` (or raises its problem); ``etag_key`` names the subscription whose
    ``ETag`` the answer carries."""

    sync: Callable[[], Response[Any]]
    aio: Callable[[], Awaitable[Response[Any]]]
    parse: Callable[[Response[Any]], T]
    etag_key: Callable[[T], str] | None = None


def settle(plan: Plan[T], response: Response[Any], etags: ETags) -> T:
    """The answer as the plan's ``T`` (a problem raised), its ETag remembered."""
    value = plan.parse(response)
    if plan.etag_key is not None:
        etags.remember(plan.etag_key(value), response.headers.get("etag"))
    return value


def _expect(want: type[T]) -> Callable[[Response[Any]], T]:
    return lambda r: result_of(r, want)


def _paged(want: type[_Paged[I]]) -> Callable[[Response[Any]], Page[I]]:
    def parse(r: Response[Any]) -> Page[I]:
        page = result_of(r, want)
        return Page(list(page.items), page.next_cursor)

    return parse


def _timeline(r: Response[Any]) -> Page[TimelineEntry]:
    t = result_of(r, Timeline)
    return Page(list(t.entries), t.next_cursor)


def _no_content(r: Response[Any]) -> None:
    if int(r.status_code) != 204:
        result_of(r, type(None))  # raises the answer's problem


def _sub_id(s: Subscription | SubscriptionCreated) -> str:
    return s.id


def _at(value: datetime | None) -> datetime | Unset:
    return UNSET if value is None else value


# events


def publish(api: Api, body: EventIn) -> Plan[EventAccepted]:
    return Plan(
        lambda: post_v1_events.sync_detailed(client=api, body=body),
        lambda: post_v1_events.asyncio_detailed(client=api, body=body),
        _expect(EventAccepted),
    )


def publish_batch(api: Api, body: EventBatchIn) -> Plan[EventBatchResults]:
    return Plan(
        lambda: post_v1_events_batch.sync_detailed(client=api, body=body),
        lambda: post_v1_events_batch.asyncio_detailed(client=api, body=body),
        _expect(EventBatchResults),
    )


def get_event(api: Api, event_id: str) -> Plan[EventView]:
    return Plan(
        lambda: get_v_1_events_event_id.sync_detailed(event_id, client=api),
        lambda: get_v_1_events_event_id.asyncio_detailed(event_id, client=api),
        _expect(EventView),
    )


# the catalogue


def put_event_type(api: Api, topic: str, body: EventTypeIn) -> Plan[EventType]:
    return Plan(
        lambda: put_v1_event_types_topic.sync_detailed(topic, client=api, body=body),
        lambda: put_v1_event_types_topic.asyncio_detailed(topic, client=api, body=body),
        _expect(EventType),
    )


def get_event_type(api: Api, topic: str) -> Plan[EventType]:
    return Plan(
        lambda: get_v1_event_types_topic.sync_detailed(topic, client=api),
        lambda: get_v1_event_types_topic.asyncio_detailed(topic, client=api),
        _expect(EventType),
    )


def event_types(api: Api, limit: int, cursor: Cursor) -> Plan[Page[EventType]]:
    return Plan(
        lambda: get_v1_event_types.sync_detailed(client=api, limit=limit, cursor=cursor),
        lambda: get_v1_event_types.asyncio_detailed(client=api, limit=limit, cursor=cursor),
        _paged(EventTypePage),
    )


# consumers


def create_consumer(api: Api, body: ConsumerCreate) -> Plan[Consumer]:
    return Plan(
        lambda: post_v1_consumers.sync_detailed(client=api, body=body),
        lambda: post_v1_consumers.asyncio_detailed(client=api, body=body),
        _expect(Consumer),
    )


def get_consumer(api: Api, id: str) -> Plan[Consumer]:
    return Plan(
        lambda: get_v1_consumers_id.sync_detailed(id, client=api),
        lambda: get_v1_consumers_id.asyncio_detailed(id, client=api),
        _expect(Consumer),
    )


def update_consumer(api: Api, id: str, body: ConsumerPatch) -> Plan[Consumer]:
    return Plan(
        lambda: patch_v1_consumers_id.sync_detailed(id, client=api, body=body),
        lambda: patch_v1_consumers_id.asyncio_detailed(id, client=api, body=body),
        _expect(Consumer),
    )


def disable_consumer(api: Api, id: str, reason: str | None) -> Plan[Consumer]:
    body = ConsumerDisable(reason=reason)
    return Plan(
        lambda: post_v1_consumers_id_disable.sync_detailed(id, client=api, body=body),
        lambda: post_v1_consumers_id_disable.asyncio_detailed(id, client=api, body=body),
        _expect(Consumer),
    )


def consumers(api: Api, limit: int, cursor: Cursor) -> Plan[Page[Consumer]]:
    return Plan(
        lambda: get_v1_consumers.sync_detailed(client=api, limit=limit, cursor=cursor),
        lambda: get_v1_consumers.asyncio_detailed(client=api, limit=limit, cursor=cursor),
        _paged(ConsumerPage),
    )


# subscriptions


def create_subscription(api: Api, body: SubscriptionCreate) -> Plan[SubscriptionCreated]:
    return Plan(
        lambda: post_v1_subscriptions.sync_detailed(client=api, body=body),
        lambda: post_v1_subscriptions.asyncio_detailed(client=api, body=body),
        _expect(SubscriptionCreated),
        _sub_id,
    )


def get_subscription(api: Api, id: str) -> Plan[Subscription]:
    return Plan(
        lambda: get_v1_subscriptions_id.sync_detailed(id, client=api),
        lambda: get_v1_subscriptions_id.asyncio_detailed(id, client=api),
        _expect(Subscription),
        _sub_id,
    )


def update_subscription(
    api: Api, id: str, body: SubscriptionPatch, if_match: str
) -> Plan[Subscription]:
    return Plan(
        lambda: patch_v1_subscriptions_id.sync_detailed(
            id, client=api, body=body, if_match=if_match
        ),
        lambda: patch_v1_subscriptions_id.asyncio_detailed(
            id, client=api, body=body, if_match=if_match
        ),
        _expect(Subscription),
        _sub_id,
    )


_TRANSITIONS = {
    "revoke": post_v1_subscriptions_id_revoke,
    "suspend": post_v1_subscriptions_id_suspend,
    "resume": post_v1_subscriptions_id_resume,
}


def transition(api: Api, command: str, id: str, reason: str | None) -> Plan[Subscription]:
    """``revoke``, ``suspend`` or ``resume`` (each with an optional ``reason``)."""
    op = _TRANSITIONS[command]
    body = SubscriptionTransition(reason=reason)
    return Plan(
        lambda: op.sync_detailed(id, client=api, body=body),
        lambda: op.asyncio_detailed(id, client=api, body=body),
        _expect(Subscription),
        _sub_id,
    )


def challenge(api: Api, id: str) -> Plan[Subscription]:
    return Plan(
        lambda: post_v1_subscriptions_id_challenge.sync_detailed(id, client=api),
        lambda: post_v1_subscriptions_id_challenge.asyncio_detailed(id, client=api),
        _expect(Subscription),
        _sub_id,
    )


def subscriptions(
    api: Api, limit: int, cursor: Cursor, consumer_id: str | None
) -> Plan[Page[Subscription]]:
    who: str | Unset = UNSET if consumer_id is None else consumer_id
    return Plan(
        lambda: get_v1_subscriptions.sync_detailed(
            client=api, limit=limit, cursor=cursor, consumer_id=who
        ),
        lambda: get_v1_subscriptions.asyncio_detailed(
            client=api, limit=limit, cursor=cursor, consumer_id=who
        ),
        _paged(SubscriptionPage),
    )


def history(api: Api, id: str, limit: int, cursor: Cursor) -> Plan[Page[HistoryEvent]]:
    return Plan(
        lambda: get_v1_subscriptions_id_history.sync_detailed(
            id, client=api, limit=limit, cursor=cursor
        ),
        lambda: get_v1_subscriptions_id_history.asyncio_detailed(
            id, client=api, limit=limit, cursor=cursor
        ),
        _paged(HistoryPage),
    )


def subscription_timeline(
    api: Api, id: str, limit: int, cursor: Cursor, as_of: datetime | None
) -> Plan[Page[TimelineEntry]]:
    at = _at(as_of)
    return Plan(
        lambda: get_v1_subscriptions_id_timeline.sync_detailed(
            id, client=api, limit=limit, cursor=cursor, as_of=at
        ),
        lambda: get_v1_subscriptions_id_timeline.asyncio_detailed(
            id, client=api, limit=limit, cursor=cursor, as_of=at
        ),
        _timeline,
    )


def attempt_stats(api: Api, id: str) -> Plan[AttemptStats]:
    return Plan(
        lambda: get_v1_subscriptions_id_attempt_stats.sync_detailed(id, client=api),
        lambda: get_v1_subscriptions_id_attempt_stats.asyncio_detailed(id, client=api),
        _expect(AttemptStats),
    )


def recover(api: Api, id: str, body: RecoverIn) -> Plan[Recovered]:
    return Plan(
        lambda: post_v1_subscriptions_id_recover.sync_detailed(id, client=api, body=body),
        lambda: post_v1_subscriptions_id_recover.asyncio_detailed(id, client=api, body=body),
        _expect(Recovered),
    )


def rotate_secret(api: Api, id: str) -> Plan[SecretRotated]:
    return Plan(
        lambda: post_v1_subscriptions_id_secret_rotate.sync_detailed(id, client=api),
        lambda: post_v1_subscriptions_id_secret_rotate.asyncio_detailed(id, client=api),
        _expect(SecretRotated),
    )


def send_test_event(api: Api, id: str, body: TestEventIn) -> Plan[TestEventSent]:
    return Plan(
        lambda: post_v1_subscriptions_id_test_events.sync_detailed(id, client=api, body=body),
        lambda: post_v1_subscriptions_id_test_events.asyncio_detailed(id, client=api, body=body),
        _expect(TestEventSent),
    )


# deliveries


def deliveries(
    api: Api, limit: int, cursor: Cursor, filters: dict[str, Any]
) -> Plan[Page[DeliveryLogItem]]:
    return Plan(
        lambda: get_v1_deliveries.sync_detailed(client=api, limit=limit, cursor=cursor, **filters),
        lambda: get_v1_deliveries.asyncio_detailed(
            client=api, limit=limit, cursor=cursor, **filters
        ),
        _paged(DeliveryLogPage),
    )


def dead_letters(api: Api, limit: int, cursor: Cursor) -> Plan[Page[DeadLetter]]:
    return Plan(
        lambda: get_v1_dead_letters.sync_detailed(client=api, limit=limit, cursor=cursor),
        lambda: get_v1_dead_letters.asyncio_detailed(client=api, limit=limit, cursor=cursor),
        _paged(DeadLetterPage),
    )


def get_delivery(api: Api, id: str) -> Plan[Delivery]:
    return Plan(
        lambda: get_v1_deliveries_id.sync_detailed(id, client=api),
        lambda: get_v1_deliveries_id.asyncio_detailed(id, client=api),
        _expect(Delivery),
    )


def replay(api: Api, id: str) -> Plan[Delivery]:
    return Plan(
        lambda: post_v1_deliveries_id_replay.sync_detailed(id, client=api),
        lambda: post_v1_deliveries_id_replay.asyncio_detailed(id, client=api),
        _expect(Delivery),
    )


def skip(api: Api, id: str) -> Plan[Delivery]:
    return Plan(
        lambda: post_v1_deliveries_id_skip.sync_detailed(id, client=api),
        lambda: post_v1_deliveries_id_skip.asyncio_detailed(id, client=api),
        _expect(Delivery),
    )


def delivery_timeline(
    api: Api, id: str, limit: int, cursor: Cursor, as_of: datetime | None
) -> Plan[Page[TimelineEntry]]:
    at = _at(as_of)
    return Plan(
        lambda: get_v1_deliveries_id_timeline.sync_detailed(
            id, client=api, limit=limit, cursor=cursor, as_of=at
        ),
        lambda: get_v1_deliveries_id_timeline.asyncio_detailed(
            id, client=api, limit=limit, cursor=cursor, as_of=at
        ),
        _timeline,
    )


# the portal


def start_portal_session(
    api: Api, consumer_id: str, body: PortalSessionCreate
) -> Plan[PortalSessionStarted]:
    return Plan(
        lambda: post_v1_consumers_id_portal_sessions.sync_detailed(
            consumer_id, client=api, body=body
        ),
        lambda: post_v1_consumers_id_portal_sessions.asyncio_detailed(
            consumer_id, client=api, body=body
        ),
        _expect(PortalSessionStarted),
    )


def portal_sessions(
    api: Api, consumer_id: str, limit: int, cursor: Cursor
) -> Plan[Page[PortalSessionItem]]:
    op = get_v1_consumers_id_portal_sessions
    return Plan(
        lambda: op.sync_detailed(consumer_id, client=api, limit=limit, cursor=cursor),
        lambda: op.asyncio_detailed(consumer_id, client=api, limit=limit, cursor=cursor),
        _paged(PortalSessionPage),
    )


def end_portal_sessions(api: Api, consumer_id: str) -> Plan[PortalSessionsEnded]:
    return Plan(
        lambda: end_sessions_op.sync_detailed(consumer_id, client=api),
        lambda: end_sessions_op.asyncio_detailed(consumer_id, client=api),
        _expect(PortalSessionsEnded),
    )


def end_portal_session(api: Api, session_id: str) -> Plan[None]:
    return Plan(
        lambda: delete_v1_portal_sessions_id.sync_detailed(session_id, client=api),
        lambda: delete_v1_portal_sessions_id.asyncio_detailed(session_id, client=api),
        _no_content,
    )


def get_branding(api: Api) -> Plan[PortalBranding]:
    return Plan(
        lambda: get_v1_portal_branding.sync_detailed(client=api),
        lambda: get_v1_portal_branding.asyncio_detailed(client=api),
        _expect(PortalBranding),
    )


def set_branding(api: Api, body: PortalBrandingIn) -> Plan[PortalBranding]:
    return Plan(
        lambda: put_v1_portal_branding.sync_detailed(client=api, body=body),
        lambda: put_v1_portal_branding.asyncio_detailed(client=api, body=body),
        _expect(PortalBranding),
    )


def whoami(api: Api) -> Plan[Whoami]:
    return Plan(
        lambda: get_v1_whoami.sync_detailed(client=api),
        lambda: get_v1_whoami.asyncio_detailed(client=api),
        _expect(Whoami),
    )
