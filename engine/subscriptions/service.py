"""Subscriptions: fold the stream, decide, append with the stream version (compare-and-set)."""

from __future__ import annotations

import base64
import builtins
import json
import re
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

import asyncpg
import msgspec

from hookproof.config import Settings
from hookproof.errors import NotFound, ValidationError
from hookproof.events import Event, EventStore, Metadata, RecordedEvent
from hookproof.events.command import execute
from hookproof.events.subscription_events import (
    DestinationConfig,
    RateLimit,
    SubscriptionConfig,
    subscription_stream_id,
)
from hookproof.projections.subscriptions import PendingRow, SubscriptionState, fold
from hookproof.schemas.api import RateLimitIn, SubscriptionCreate, SubscriptionPatch
from hookproof.schemas.destinations import DestinationIn, RelayDestinationIn
from hookproof_subscriber import destination_digest

from ..destinations.brokers.binding import bound_view, config_of, kind_config_of
from ..destinations.brokers.spec import BrokerCredentials, Destination, parse_destination
from ..destinations.fields import KindDestination
from ..destinations.relay.endpoint import normalise_relay_endpoint, relay_config
from ..endpoint_auth import AuthMaterials, AuthSecret, parse_auth
from .decide import AUTH_FIELD, Command, Register, Transition, Update, decide
from .filter_spec import filter_spec
from .repository import SubscriptionRepository
from .transformation_spec import transformation_spec
from .validation import (
    validate_endpoint,
    validate_event_versions,
    validate_expiry,
    validate_gap_timeout,
    validate_imported_secret,
    validate_receipt_key,
    validate_retry_policy,
    validate_text,
    validate_topics,
)

__all__ = [
    "SUBSCRIPTION_ID",
    "ConsumerCheck",
    "SecretIssuer",
    "SubscriptionService",
    "stream_of",
]

#: the format of every id ``register`` makes
SUBSCRIPTION_ID = re.compile(r"^sub_[0-9a-f]{24}$")


def rate_limit_of(body: RateLimitIn | None) -> RateLimit | None:
    return None if body is None else RateLimit(per_second=body.per_second, burst=body.burst)


def stream_of(subscription_id: str) -> str:
    return subscription_stream_id(subscription_id)


class SecretIssuer(Protocol):
    async def create_subscription_secret(self, subscription_id: str) -> Any: ...

    async def import_subscription_secret(self, subscription_id: str, secret: bytes) -> str: ...


class CredentialsSealer(Protocol):
    """Broker credentials at rest (``engine.destinations.credentials``)."""

    def digest(self, credentials: BrokerCredentials | None) -> str | None: ...

    async def seal(self, subscription_id: str, credentials: BrokerCredentials) -> str: ...


class ConsumerCheck(Protocol):
    """The consumers service, as registration uses it: an enabled consumer's id, or a 400."""

    async def require_enabled(self, tenant_id: str, consumer_id: str, field: str) -> str: ...


class SubscriptionService:
    def __init__(
        self,
        store: EventStore,
        settings: Settings,
        *,
        secrets_issuer: SecretIssuer | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        repository: SubscriptionRepository | None = None,
        consumers: ConsumerCheck | None = None,
        credentials: CredentialsSealer | None = None,
        auth_materials: AuthMaterials | None = None,
    ) -> None:
        self.store = store
        self.repository = repository or SubscriptionRepository.of(store)
        self.settings = settings
        self.secrets_issuer = secrets_issuer
        self.clock = clock
        #: the consumer service (``require_enabled``) a ``consumerId`` is checked against
        self.consumers = consumers
        #: where a broker destination's write-only credentials are sealed
        self.credentials = credentials
        #: where a subscription's ``auth`` is sealed (None: ``auth`` is refused)
        self.auth_materials = auth_materials

    # -- reads --------------------------------------------------------------------------

    async def load(self, subscription_id: str) -> SubscriptionState | None:
        return fold(await self.store.read_stream(stream_of(subscription_id)))

    async def pending_challenge(self, subscription_id: str) -> PendingRow | None:
        """The subscription's pending challenge as its projection row has it (no stream read:
        what an unauthenticated answer is checked against first)."""
        row = await self.repository.pending_challenge(subscription_id)
        if row is None:
            return None
        return PendingRow(
            row["pending_challenge_id"],
            row["pending_nonce_sha256"],
            row["pending_expires_at"],
            row["answered_challenge_id"],
        )

    async def get(self, tenant_id: str, subscription_id: str) -> SubscriptionState:
        if not SUBSCRIPTION_ID.match(subscription_id):  # malformed: never reaches a query
            raise NotFound("no such subscription", code="subscription_not_found")
        state = await self.load(subscription_id)
        if state is None or state.tenant_id != tenant_id:
            raise NotFound("no such subscription", code="subscription_not_found")
        return state

    async def require_visible(
        self, tenant_id: str, subscription_ids: Sequence[str], consumer_id: str | None = None
    ) -> None:
        """404 ``subscription_not_found`` unless every id is one of the tenant's subscriptions
        (and of ``consumer_id``, when given): one read of the projection for them all."""
        seen = await self.repository.visible(tenant_id, subscription_ids, consumer_id)
        for sid in subscription_ids:
            if sid not in seen:
                raise NotFound(f"no such subscription: {sid}", code="subscription_not_found")

    async def list(self, tenant_id: str, limit: int = 500) -> list[SubscriptionState]:
        return (await self.page(tenant_id, limit))[0]

    async def page(
        self,
        tenant_id: str,
        limit: int,
        after: tuple[datetime, str] | None = None,
        consumer_id: str | None = None,
    ) -> tuple[builtins.list[SubscriptionState], tuple[datetime, str] | None]:
        """One page from the projection, in creation order, with every stream of the page
        folded from one read; the key to continue after, when there is more. Only
        ``consumer_id``'s subscriptions when given."""
        rows = await self.repository.page(tenant_id, after, limit + 1, consumer_id)
        more = len(rows) > limit
        rows = rows[:limit]
        streams = [stream_of(r["subscription_id"]) for r in rows]
        by_stream: dict[str, list[RecordedEvent]] = {}
        for rec in await self.repository.events_of_streams(streams):
            by_stream.setdefault(rec["stream_id"], []).append(RecordedEvent.from_record(rec))
        out = []
        for r in rows:
            events = by_stream.get(stream_of(r["subscription_id"]))
            state = fold(events) if events else await self.load(r["subscription_id"])  # archived
            if state is not None and state.tenant_id == tenant_id:
                out.append(state)
        nxt = (rows[-1]["created_at"], rows[-1]["subscription_id"]) if more and rows else None
        return out, nxt

    async def history(
        self, tenant_id: str, subscription_id: str, *, after: int = 0, limit: int | None = None
    ) -> builtins.list[RecordedEvent]:
        """The stream's events after version ``after``, at most ``limit`` of them."""
        await self.get(tenant_id, subscription_id)
        return await self.store.read_stream(
            stream_of(subscription_id),
            from_version=after + 1,
            to_version=after + limit if limit is not None else None,
        )

    # -- writes -------------------------------------------------------------------------

    async def register(
        self,
        tenant_id: str,
        body: SubscriptionCreate,
        *,
        actor: str,
        kind: KindDestination | None = None,
    ) -> tuple[SubscriptionState, bytes | None]:
        """Register; returns the state and, for hmac-sha256, the secret (shown once; an
        imported ``whsec_`` secret is never returned). ``kind``: the checked ``destination``
        of an installed kind that declares its members (instead of ``body.destination``)."""
        now = self.clock()
        relay = None
        if kind is not None:
            if body.endpoint is not None:
                raise ValidationError(
                    "endpoint and destination exclude each other",
                    field="destination",
                    code="destination_with_endpoint",
                )
            endpoint_url, endpoint_digest = kind.uri, destination_digest(kind.uri)
            parsed = None
        elif isinstance(body.destination, RelayDestinationIn):  # ``hookproof listen``
            relay = self._relay(body.endpoint)
            endpoint_url, endpoint_digest = relay.url, relay.digest
            parsed = None
        else:
            parsed = self._parse_destination(body.destination, body.endpoint)
            if parsed is None:
                assert body.endpoint is not None
                endpoint = validate_endpoint(body.endpoint, self.settings)
                endpoint_url, endpoint_digest = endpoint.url, endpoint.digest
            else:
                endpoint_url, endpoint_digest = parsed[0].uri, parsed[0].digest
        consumer_id = None
        if body.consumer_id is not None:
            if self.consumers is None:
                raise ValidationError("consumers are not configured", code="unknown_consumer")
            consumer_id = await self.consumers.require_enabled(
                tenant_id, body.consumer_id, "consumerId"
            )
        auth = self._parse_auth(body.auth)
        subscription_id = "sub_" + secrets.token_hex(12)
        secret: bytes | None = None
        secret_key_id: str | None = None
        imported = validate_imported_secret(body)
        if body.signature_algorithm == "hmac-sha256":
            if self.secrets_issuer is None:
                secret = imported or secrets.token_bytes(32)
                secret_key_id = None
            elif imported is not None:
                secret_key_id = await self.secrets_issuer.import_subscription_secret(
                    subscription_id, imported
                )
                secret = imported
            else:
                issued = await self.secrets_issuer.create_subscription_secret(subscription_id)
                secret_key_id = issued[0]
                raw = issued[1]
                secret = base64.b64decode(raw) if isinstance(raw, str) else raw
        config = SubscriptionConfig(
            endpoint=endpoint_url,
            endpoint_digest=endpoint_digest,
            topics=validate_topics(body.topics),
            filters=filter_spec(body.filters, body.filter),
            event_versions=validate_event_versions(body.event_versions),
            region=validate_text(body.region, "region"),
            signature_algorithm=body.signature_algorithm,
            retry_policy=validate_retry_policy(body.retry_policy),
            expires_at=validate_expiry(body.expires_at, now),
            owner=validate_text(body.owner, "owner"),
            receipt_key=validate_receipt_key(body.receipt_key),
            old_generation_policy=body.old_generation_policy,
            secret_key_id=secret_key_id,
            signature_profile=body.signature_profile,
            ordering=body.ordering,
            ordering_gap_timeout_s=validate_gap_timeout(body.ordering_gap_timeout_s),
            consumer_id=consumer_id,
            destination=relay,
            rate_limit=rate_limit_of(body.rate_limit),
            format=body.format,
            transformation=await transformation_spec(body.transformation),
        )
        if parsed is not None:  # every field checked: only now is anything stored
            destination = await self._bind(subscription_id, parsed, None)
            config = msgspec.structs.replace(config, destination=destination)
        elif kind is not None:
            destination = await self._bind_kind(subscription_id, kind, endpoint_digest)
            config = msgspec.structs.replace(config, destination=destination)
        if auth is None:
            state = await self.execute(
                subscription_id, Register(subscription_id, tenant_id, config), actor=actor
            )
        else:
            state = await self._sealed(
                subscription_id,
                auth,
                lambda ref: Register(
                    subscription_id, tenant_id, msgspec.structs.replace(config, auth=ref)
                ),
                actor=actor,
            )
        return state, (None if imported is not None else secret)

    @staticmethod
    def _relay(url: str | None) -> DestinationConfig:
        """A relay's binding: the local loopback ``http://`` URL the listening CLI forwards
        to (nothing the engine dials, so no vetting beyond loopback)."""
        if url is None:
            raise ValidationError(
                "a relay destination needs the local endpoint it forwards to",
                field="endpoint",
                code="endpoint_required",
            )
        return relay_config(normalise_relay_endpoint(url))

    def _parse_auth(self, body: Any) -> AuthSecret | None:
        """The checked ``auth`` (None: none given); refused when nothing can seal it."""
        if body is None:
            return None
        if self.auth_materials is None:
            raise ValidationError(
                "endpoint authentication is not available here",
                field="auth",
                code="auth_unsupported",
            )
        return parse_auth(body, self.settings)

    async def _sealed(
        self,
        subscription_id: str,
        auth: AuthSecret,
        command: Callable[[Any], Command],
        *,
        actor: str,
    ) -> SubscriptionState:
        """Seal ``auth`` and append ``command(ref)``'s events in one transaction (the
        repository's :meth:`~.repository.SubscriptionRepository.sealed`)."""
        assert self.auth_materials is not None

        async def append(ref: Any, conn: asyncpg.Connection) -> SubscriptionState:
            return await self.execute(subscription_id, command(ref), actor=actor, conn=conn)

        return await self.repository.sealed(self.auth_materials, subscription_id, auth, append)

    def patch_changes(self, state: SubscriptionState, body: SubscriptionPatch) -> dict[str, Any]:
        now = self.clock()
        changes: dict[str, Any] = {}
        raw = {f: getattr(body, f) for f in body.__struct_fields__}
        present = {k: v for k, v in raw.items() if v is not msgspec.UNSET}
        present.pop("auth", None)  # its own event, sealed by ``update``
        if present.pop("consumer_id", state.config.consumer_id) != state.config.consumer_id:
            raise ValidationError(
                "consumerId is set at registration and never changes",
                field="consumerId",
                code="immutable_field",
            )
        relay = state.config.destination is not None and state.config.destination.is_relay
        if "destination" in present:
            if relay or isinstance(present["destination"], RelayDestinationIn):
                raise ValidationError(
                    "a relay destination is set at registration and never changes",
                    field="destination",
                    code="immutable_field",
                )
            parsed = self._parse_destination(present["destination"], present.get("endpoint"))
            assert parsed is not None
            dest = parsed[0]
            changes["endpoint"] = dest.uri
            changes["endpoint_digest"] = dest.digest
            changes["destination"] = parsed  # sealed by ``update`` unless the binding holds
        elif "endpoint" in present and relay:
            moved = self._relay(present["endpoint"])
            changes["endpoint"] = moved.url
            changes["endpoint_digest"] = moved.digest
            changes["destination"] = moved
        elif "endpoint" in present:
            ep = validate_endpoint(present["endpoint"], self.settings)
            changes["endpoint"] = ep.url
            changes["endpoint_digest"] = ep.digest
            changes["destination"] = None  # an HTTPS endpoint replaces a broker destination
        if "topics" in present:
            changes["topics"] = validate_topics(present["topics"])
        if "filter" in present or "filters" in present:
            changes["filters"] = filter_spec(present.get("filters"), present.get("filter"))
            changes["filter"] = None  # a legacy filter lives on converted, in filters
        if "event_versions" in present:
            changes["event_versions"] = validate_event_versions(present["event_versions"])
        if "region" in present:
            changes["region"] = validate_text(present["region"], "region")
        if "retry_policy" in present:
            changes["retry_policy"] = validate_retry_policy(present["retry_policy"])
        if "expires_at" in present:
            changes["expires_at"] = validate_expiry(present["expires_at"], now)
        if "owner" in present:
            changes["owner"] = validate_text(present["owner"], "owner")
        if "receipt_key" in present:
            old = state.config.receipt_key
            gen = (old.generation + 1) if old is not None else 1
            changes["receipt_key"] = validate_receipt_key(present["receipt_key"], gen)
        if "old_generation_policy" in present:
            changes["old_generation_policy"] = present["old_generation_policy"]
        if "ordering" in present:
            changes["ordering"] = present["ordering"]
        if "format" in present:
            changes["format"] = present["format"]
        if "rate_limit" in present:
            changes["rate_limit"] = rate_limit_of(present["rate_limit"])
        if "ordering_gap_timeout_s" in present:
            changes["ordering_gap_timeout_s"] = validate_gap_timeout(
                present["ordering_gap_timeout_s"]
            )
        return changes

    async def update(
        self,
        tenant_id: str,
        subscription_id: str,
        expected_generation: int,
        body: SubscriptionPatch,
        *,
        actor: str,
    ) -> SubscriptionState:
        state = await self.get(tenant_id, subscription_id)
        changes = self.patch_changes(state, body)
        if body.transformation is not msgspec.UNSET:  # checked in the sandbox: awaited here
            changes["transformation"] = await transformation_spec(body.transformation)
        parsed = changes.get("destination")
        if isinstance(parsed, tuple):
            changes["destination"] = await self._bind(
                subscription_id, parsed, state.config.destination
            )
        if changes.get("destination", 0) is None and state.config.destination is None:
            del changes["destination"]
        if body.auth is msgspec.UNSET:
            return await self.execute(
                subscription_id, Update(expected_generation, changes), actor=actor
            )
        auth = self._parse_auth(body.auth)
        if auth is None:  # removed
            return await self.execute(
                subscription_id,
                Update(expected_generation, {**changes, AUTH_FIELD: None}),
                actor=actor,
            )
        return await self._sealed(
            subscription_id,
            auth,
            lambda ref: Update(expected_generation, {**changes, AUTH_FIELD: ref}),
            actor=actor,
        )

    # -- broker destinations (DESIGN.md 13) ---------------------------------------------

    def _parse_destination(
        self, value: DestinationIn | None, endpoint: str | None
    ) -> tuple[Destination, BrokerCredentials | None, str | None] | None:
        """The checked destination, its credentials and their digest; None for an HTTPS
        subscription. ``endpoint`` and ``destination`` exclude each other."""
        if value is None:
            if endpoint is None:
                raise ValidationError(
                    "endpoint (HTTPS) or destination (a broker) is required",
                    field="endpoint",
                    code="endpoint_required",
                )
            return None
        if endpoint is not None:
            raise ValidationError(
                "endpoint and destination exclude each other",
                field="destination",
                code="destination_with_endpoint",
            )
        dest, credentials = parse_destination(
            value,
            allowed_ports=self.settings.egress_ports,
            allow_pairs=self.settings.egress_allow,
        )
        if self.credentials is None:
            raise ValidationError(
                "broker destinations are not configured",
                field="destination",
                code="destination_unavailable",
            )
        return dest, credentials, self.credentials.digest(credentials)

    async def _bind(
        self,
        subscription_id: str,
        parsed: tuple[Destination, BrokerCredentials | None, str | None],
        current: DestinationConfig | None,
    ) -> DestinationConfig:
        """The destination's config: the current one when nothing bound changes (the same
        credentials are not sealed again), else a new one with the credentials sealed."""
        dest, credentials, digest = parsed
        if current is not None:
            same = config_of(dest, current.credentials_id, digest)
            if bound_view(same) == bound_view(current):
                return current
        credentials_id = None
        if current is not None and digest is not None and current.credentials_digest == digest:
            credentials_id = current.credentials_id  # the same credentials: sealed already
        elif credentials is not None:
            assert self.credentials is not None
            credentials_id = await self.credentials.seal(subscription_id, credentials)
        return config_of(dest, credentials_id, digest)

    async def _bind_kind(
        self, subscription_id: str, kind: KindDestination, digest: str
    ) -> DestinationConfig:
        """An installed kind's config; its write-only members sealed like broker credentials
        (one sealed document), bound by their keyed digest."""
        if not kind.secrets:
            return kind_config_of(kind, digest, None, None)
        if self.credentials is None:
            raise ValidationError(
                "sealed destination members are not configured",
                field="destination",
                code="destination_unavailable",
            )
        sealed = BrokerCredentials(creds=json.dumps(kind.secrets, sort_keys=True))
        credentials_id = await self.credentials.seal(subscription_id, sealed)
        return kind_config_of(kind, digest, credentials_id, self.credentials.digest(sealed))

    async def transition(
        self,
        tenant_id: str | None,
        subscription_id: str,
        command: str,
        *,
        actor: str,
        expected_generation: int | None = None,
        reason: str | None = None,
    ) -> SubscriptionState:
        if tenant_id is not None:
            await self.get(tenant_id, subscription_id)
        return await self.execute(
            subscription_id, Transition(command, expected_generation, reason), actor=actor
        )

    async def execute(
        self,
        subscription_id: str,
        command: Command,
        *,
        actor: str,
        extra: Sequence[Any] = (),
        conn: asyncpg.Connection | None = None,
    ) -> SubscriptionState:
        """Fold, decide, append with the stream version as expected; re-decide on a race.
        ``extra`` events follow the decided ones in the same append (none when it decided
        nothing)."""

        def decided(state: SubscriptionState | None, command: Command) -> Sequence[Event]:
            new_events = decide(state, command, self.clock())
            return [*new_events, *extra] if new_events else []

        done = await execute(
            self.store,
            stream_of(subscription_id),
            fold,
            decided,
            command,
            metadata=Metadata(actor=actor),
            conn=conn,
        )
        result = fold(done.history)
        assert result is not None
        return result

    async def expire_due(self, *, actor: str = "scheduler") -> builtins.list[str]:
        """Expire every subscription whose expiry has passed (run by the daemon)."""
        now = self.clock()
        rows = await self.repository.due_expiry(now)
        done = []
        for r in rows:
            try:
                await self.execute(r["subscription_id"], Transition("expire"), actor=actor)
                done.append(r["subscription_id"])
            except Exception:  # another daemon got there first, or it changed meanwhile
                continue
        return done
