"""What the sync and the asyncio client share: request bodies, the problem type, the retry
rule and its backoff. No I/O here."""

from __future__ import annotations

import random
import threading
import uuid
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeVar

import httpx

from ._problems import HookproofProblem
from .generated.models.consumer_create import ConsumerCreate
from .generated.models.consumer_patch import ConsumerPatch
from .generated.models.event_batch_in import EventBatchIn
from .generated.models.event_in import EventIn
from .generated.models.event_type_in import EventTypeIn
from .generated.models.portal_branding_in import PortalBrandingIn
from .generated.models.portal_session_create import PortalSessionCreate
from .generated.models.portal_session_started import PortalSessionStarted
from .generated.models.recover_in import RecoverIn
from .generated.models.subscription_create import SubscriptionCreate
from .generated.models.test_event_in import TestEventIn
from .generated.types import Response

__all__ = [
    "RETRY_STATUSES",
    "ETags",
    "HookproofProblem",
    "OutgoingEvent",
    "PortalLink",
    "RetryPolicy",
    "batch_body",
    "branding_body",
    "consumer_body",
    "consumer_patch_body",
    "event_type_body",
    "new_event_id",
    "portal_body",
    "portal_link",
    "recover_body",
    "result_of",
    "strict_model",
    "subscription_body",
    "test_event_body",
]

T = TypeVar("T")
M = TypeVar("M", bound="_Model")

#: statuses a publish tries again (the engine's database is away; it says Retry-After)
RETRY_STATUSES = frozenset({503})


def new_event_id() -> str:
    """A fresh event id (``evt_`` and 32 hex digits): fixed before the first try."""
    return "evt_" + uuid.uuid4().hex


class _Model(Protocol):
    """A generated model: made from and turned back into the API's JSON."""

    @classmethod
    def from_dict(cls: type[M], src_dict: Mapping[str, Any]) -> M: ...

    def to_dict(self) -> dict[str, Any]: ...


def strict_model(model: type[M], doc: Mapping[str, Any]) -> M:
    """*doc* (members as the API spells them) as *model*; a member the model does not have
    raises ``TypeError`` (the generated ``from_dict`` would drop it without a word)."""
    made = model.from_dict(dict(doc))
    unknown = sorted(set(doc) - set(made.to_dict()))
    if unknown:
        raise TypeError(f"{model.__name__} has no member {', '.join(unknown)}")
    return made


class ETags:
    """The last ``ETag`` the API answered for each subscription (its generation), kept for
    the next ``If-Match``; the newest 4,096 ids are remembered."""

    LIMIT = 4096

    def __init__(self) -> None:
        self._tags: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            return self._tags.get(key)

    def remember(self, key: str, tag: str | None) -> None:
        if not tag:
            return
        with self._lock:
            self._tags[key] = tag
            self._tags.move_to_end(key)
            while len(self._tags) > self.LIMIT:
                self._tags.popitem(last=False)


def result_of(response: Response[Any], want: type[T]) -> T:
    """The parsed 2xx body as *want*, or the answer's problem raised."""
    status = int(response.status_code)
    if 200 <= status < 300 and isinstance(response.parsed, want):
        return response.parsed
    raise HookproofProblem.of_response(status, response.content)


@dataclass(frozen=True)
class RetryPolicy:
    """How a publish tries again after a network error or a 503: at most ``attempts`` tries,
    sleeping a random time up to ``base_s * 2**n`` (at most ``cap_s``; a ``Retry-After``
    the engine sent wins when it is longer, up to ``cap_s``)."""

    attempts: int = 5
    base_s: float = 0.2
    cap_s: float = 10.0

    def delay(self, attempt: int, retry_after: str | None = None) -> float:
        wait = random.uniform(0, min(self.cap_s, self.base_s * 2**attempt))
        if retry_after is not None and retry_after.strip().isascii():
            try:
                wait = max(wait, min(self.cap_s, float(retry_after)))
            except ValueError:
                pass
        return wait

    @staticmethod
    def retries(error: BaseException | None, response: Response[Any] | None) -> bool:
        """Whether this outcome is worth another try of the same request."""
        if error is not None:
            return isinstance(error, httpx.TransportError)
        return response is not None and int(response.status_code) in RETRY_STATUSES


@dataclass(frozen=True)
class OutgoingEvent:
    """One event to publish. Its ``event_id`` is fixed when it is made (a fresh one unless
    given), so every retry sends the same id and the engine keeps one event; the same id
    with a different payload is ``409 event_payload_conflict``."""

    event_type: str
    payload: Any
    event_id: str = ""  # empty: a fresh one (new_event_id), set here, once
    version: str = "1.0"
    aggregate_id: str | None = None  # None: the event id (each event its own aggregate)
    aggregate_version: int = 1
    #: empty: not sent; the engine records when it first accepted the event, and the same
    #: event published again without one (from any process) is recognised, not a conflict
    occurred_at: datetime | str = ""
    consumer_id: str | None = None

    def __post_init__(self) -> None:
        if not self.event_id:
            object.__setattr__(self, "event_id", new_event_id())

    def to_dict(self) -> dict[str, Any]:
        at = self.occurred_at
        doc: dict[str, Any] = {
            "eventId": self.event_id,
            "topic": self.event_type,
            "version": self.version,
            "aggregateId": self.aggregate_id if self.aggregate_id is not None else self.event_id,
            "aggregateVersion": self.aggregate_version,
            "payload": self.payload,
        }
        if at:
            doc["occurredAt"] = at.isoformat() if isinstance(at, datetime) else at
        if self.consumer_id is not None:
            doc["consumerId"] = self.consumer_id
        return doc

    def body(self) -> EventIn:
        return EventIn.from_dict(self.to_dict())


def batch_body(events: list[OutgoingEvent]) -> EventBatchIn:
    return EventBatchIn(events=[e.to_dict() for e in events])


def consumer_body(id: str, name: str, metadata: Mapping[str, Any] | None) -> ConsumerCreate:
    return ConsumerCreate.from_dict({"id": id, "name": name, "metadata": dict(metadata or {})})


def event_type_body(
    description: str, versions: Mapping[int | str, Mapping[str, Any]], deprecated: bool
) -> EventTypeIn:
    """``versions``: per major version ``{"schema": <JSON Schema>, "example": <payload>}``."""
    return EventTypeIn.from_dict(
        {
            "description": description,
            "versions": {str(k): dict(v) for k, v in versions.items()},
            "deprecated": deprecated,
        }
    )


def subscription_body(
    endpoint: str | None,
    topics: list[str],
    *,
    owner: str,
    region: str,
    event_versions: list[int],
    signature_algorithm: str,
    consumer_id: str | None,
    extra: Mapping[str, Any] | None,
) -> SubscriptionCreate:
    """``extra``: any other field of ``SubscriptionCreate`` as the API spells it
    (``retryPolicy``, ``signatureProfile``, ``destination``, ...)."""
    doc: dict[str, Any] = {
        "topics": topics,
        "eventVersions": event_versions,
        "region": region,
        "signatureAlgorithm": signature_algorithm,
        "owner": owner,
    }
    if endpoint is not None:
        doc["endpoint"] = endpoint
    if consumer_id is not None:
        doc["consumerId"] = consumer_id
    doc.update(extra or {})
    return strict_model(SubscriptionCreate, doc)


def consumer_patch_body(name: str | None, metadata: Mapping[str, Any] | None) -> ConsumerPatch:
    doc: dict[str, Any] = {}
    if name is not None:
        doc["name"] = name
    if metadata is not None:
        doc["metadata"] = dict(metadata)
    return ConsumerPatch.from_dict(doc)


def _when(at: datetime | str) -> str:
    return at.isoformat() if isinstance(at, datetime) else at


def recover_body(
    since: datetime | str,
    until: datetime | str | None,
    states: list[str] | None,
    limit: int | None,
) -> RecoverIn:
    doc: dict[str, Any] = {"since": _when(since)}
    if until is not None:
        doc["until"] = _when(until)
    if states is not None:
        doc["states"] = list(states)
    if limit is not None:
        doc["limit"] = limit
    return RecoverIn.from_dict(doc)


def test_event_body(topic: str | None, version: int | None) -> TestEventIn:
    doc: dict[str, Any] = {}
    if topic is not None:
        doc["topic"] = topic
    if version is not None:
        doc["version"] = version
    return TestEventIn.from_dict(doc)


def branding_body(
    display_name: str | None,
    logo_url: str | None,
    accent_colour: str | None,
    frame_ancestors: list[str] | None,
) -> PortalBrandingIn:
    return PortalBrandingIn.from_dict(
        {
            "displayName": display_name,
            "logoUrl": logo_url,
            "accentColour": accent_colour,
            "frameAncestors": list(frame_ancestors or []),
        }
    )


def portal_body(ttl_seconds: int | None, capabilities: list[str] | None) -> PortalSessionCreate:
    doc: dict[str, Any] = {}
    if ttl_seconds is not None:
        doc["ttlSeconds"] = ttl_seconds
    if capabilities is not None:
        doc["capabilities"] = capabilities
    return PortalSessionCreate.from_dict(doc)


@dataclass(frozen=True)
class PortalLink:
    """A started portal session: ``url`` is the link to hand to the customer (the portal
    under your branding policy, embeddable: the API's ``embedUrl``); ``console_url`` the same
    session in the plain console; ``token`` the bearer token inside both (shown once)."""

    url: str
    session_id: str
    consumer_id: str
    expires_at: str
    console_url: str
    token: str
    capabilities: tuple[str, ...]


def portal_link(started: PortalSessionStarted) -> PortalLink:
    return PortalLink(
        url=started.embed_url,
        session_id=started.session_id,
        consumer_id=started.consumer_id,
        expires_at=started.expires_at,
        console_url=started.url,
        token=started.token,
        capabilities=tuple(c.value for c in started.capabilities),
    )
