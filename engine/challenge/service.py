"""The challenger: issue, sign, send through the pinned transport, verify, record.

Activation is one append with the stream version read after the challenge was issued, so a
generation change, a revoke or a second answer racing it cannot both win; every outcome
(issued, passed, failed with its reason) is an event on the subscription stream.
"""

from __future__ import annotations

import asyncio
import base64
import json
import secrets
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Final, NoReturn, Protocol

import structlog

from hookproof.config import Settings
from hookproof.errors import ConcurrencyConflict, ConflictError, NotFound, ValidationError
from hookproof.events import Event, EventStore, Metadata, StreamAppend
from hookproof.events.command import execute
from hookproof.events.subscription_events import (
    ChallengeFailed,
    ChallengeIssued,
    DestinationConfig,
    SubscriptionStateChanged,
)
from hookproof.projections.subscriptions import SubscriptionState, fold
from hookproof_subscriber import SigningKey

from ..destinations.brokers.evidence import BrokerEvidence
from ..destinations.brokers.message import BrokerMessage, build_challenge_message
from ..destinations.port import Destination
from ..destinations.registry import installed
from ..egress import EgressResult, EgressTransport
from ..egress.identity import ClientIdentity
from ..endpoint_auth import EndpointAuth
from ..keys.signing import Signer, sign_headers
from ..observe import tracing
from ..subscriptions import SubscriptionService, stream_of
from ..subscriptions.service import SUBSCRIPTION_ID
from .broker import (
    Answer,
    Published,
    answer_reason,
    decide_answer,
    decide_published,
    precheck,
)
from .decide import Complete, decide, needs_secret, state_reason, transport_reason, verdict
from .disclosure import tenant_reason
from .kinds import ChallengeAttempt, challenge_message, published
from .protocol import Challenge, build_challenge

__all__ = ["BrokerChallenges", "ChallengeOutcome", "Challenger", "RelayChallenges"]

log = structlog.get_logger("hookproof.challenge")

KeyFor = Callable[[SubscriptionState], Any]
#: how long an answer waits for its challenge's confirmation to be recorded (40 x 50 ms)
_PUBLISH_WAITS, _PUBLISH_WAIT_S = 40, 0.05
#: answers judged against their stream at once (each past :func:`.broker.precheck`: its nonce)
_JUDGING: Final = 4
#: a completion's time before ``_prepare`` gives it the time of each attempt
_EACH_ATTEMPT = datetime.min.replace(tzinfo=UTC)


def _decide(state: SubscriptionState | None, command: Complete) -> list[Event]:
    assert state is not None  # a challenge was issued on the stream
    return decide(state, command)


class BrokerChallenges(Protocol):
    """Publishes a broker subscription's challenge (``delivery.broker.BrokerDestination``)."""

    async def publish_to(
        self, cfg: DestinationConfig, message: BrokerMessage
    ) -> BrokerEvidence: ...


class RelayChallenges(Protocol):
    """Sends a relay subscription's challenge through its ``hookproof listen`` session
    (``relay.challenge.RelayChallenges``): the local receiver answers, nothing is dialled."""

    async def post(
        self,
        state: SubscriptionState,
        challenge_id: str,
        body: bytes,
        headers: dict[str, str],
    ) -> EgressResult: ...


class ChallengeOutcome(dict[str, Any]):
    """``{"challengeId", "passed", "reason", "location"?}`` (a dict for the API)."""


def traceparent() -> str:
    return f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01"


class Challenger:
    def __init__(
        self,
        store: EventStore,
        subscriptions: SubscriptionService,
        transport: EgressTransport,
        settings: Settings,
        *,
        signing_key_for: Callable[[SubscriptionState], Any],
        secret_for: Callable[[str], Any] | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        brokers: BrokerChallenges | None = None,
        relay: RelayChallenges | None = None,
        auth: EndpointAuth | None = None,
        kinds: Destination | None = None,
    ) -> None:
        self.brokers = brokers
        #: the composed destination port: an installed kind's challenge goes through it
        self.kinds = kinds
        self.store = store
        #: a relay subscription's challenge goes through its ``hookproof listen`` session
        self.relay = relay
        #: the subscription's ``auth`` applied to the challenge too (DESIGN.md section 14)
        self.auth = auth
        self.subscriptions = subscriptions
        self.transport = transport
        self.settings = settings
        self.signing_key_for = signing_key_for
        self.secret_for = secret_for
        self.clock = clock
        self._judging = asyncio.Semaphore(_JUDGING)

    async def issue(
        self, state: SubscriptionState, key: SigningKey, *, actor: str
    ) -> tuple[Challenge, SubscriptionState]:
        now = self.clock()
        challenge = build_challenge(
            subscription_id=state.subscription_id,
            generation=state.generation,
            endpoint_digest=state.config.endpoint_digest,
            key_id=key.key_id,
            now=now,
            ttl_s=self.settings.challenge_ttl_s,
        )
        events: list[Event] = []
        if state.state == "ACTIVE":  # on-demand re-verification
            events.append(
                SubscriptionStateChanged(
                    subscription_id=state.subscription_id,
                    command="challenge",
                    from_state="ACTIVE",
                    to_state="PENDING_CHALLENGE",
                    generation=state.generation,
                    reason="challenge_requested",
                    at=now.isoformat(),
                )
            )
        events.append(
            ChallengeIssued(
                subscription_id=state.subscription_id,
                challenge_id=challenge.challenge_id,
                generation=challenge.generation,
                endpoint_digest=challenge.endpoint_digest,
                nonce_sha256=challenge.nonce_sha256,
                key_id=key.key_id,
                expires_at=challenge.expires_at,
                at=now.isoformat(),
            )
        )
        await self.store.append(
            [
                StreamAppend(
                    stream_of(state.subscription_id), events, state.version, Metadata(actor=actor)
                )
            ]
        )
        refreshed = await self.subscriptions.load(state.subscription_id)
        assert refreshed is not None
        return challenge, refreshed

    def sign(
        self, state: SubscriptionState, challenge: Challenge, key: SigningKey
    ) -> dict[str, str]:
        headers = {
            "Content-Type": "application/json",
            "Webhook-Id": challenge.challenge_id,
            "Webhook-Delivery-Id": challenge.challenge_id,
            "Webhook-Attempt": "1",
            "Webhook-Subscription": state.subscription_id,
            "Webhook-Generation": str(state.generation),
            "traceparent": traceparent(),
        }
        now = int(self.clock().timestamp())
        headers.update(
            sign_headers(
                "POST",
                state.config.endpoint,
                headers,
                challenge.body,
                [Signer(state.config.signature_profile, key)],
                created=now,
                lifetime=int(self.settings.signature_lifetime_s),
            )
        )
        return headers

    async def run(
        self, subscription_id: str, *, actor: str, key: SigningKey | None = None
    ) -> ChallengeOutcome:
        """Challenge the subscription's current generation now and record the outcome."""
        state = await self.subscriptions.load(subscription_id)
        if state is None:
            raise ConflictError("no such subscription", code="subscription_not_found")
        if state.state not in ("PENDING_CHALLENGE", "ROTATING", "ACTIVE"):
            raise ConflictError(
                f"cannot challenge a {state.state} subscription", code="challenge_not_allowed"
            )
        key = key or await self.signing_key_for(state)
        challenge, state = await self.issue(state, key, actor=actor)
        bound = state.config.destination
        if bound is not None and bound.fields is not None:  # an installed kind (DESIGN.md 15)
            return await self._deliver_kind(state, challenge, key, actor)
        if bound is not None and not bound.is_relay:
            return await self._publish(state, bound, challenge, key, actor)
        headers = self.sign(state, challenge, key)
        with tracing.span(
            "hookproof.challenge",
            {
                "hookproof.challenge_id": challenge.challenge_id,
                "hookproof.subscription_id": state.subscription_id,
                "hookproof.generation": state.generation,
                "hookproof.key_id": key.key_id,
                "hookproof.endpoint_digest": challenge.endpoint_digest,
            },
            client=True,
        ) as span:
            headers["traceparent"] = span.traceparent() or headers["traceparent"]
            result = await self._post(state, challenge, headers)
            span.set("http.response.status_code", result.status)
            span.set("network.peer.address", result.peer_address)
            outcome = await self.complete(challenge, result, actor=actor)
            span.set("hookproof.passed", bool(outcome.get("passed")))
            span.set("hookproof.reason", outcome.get("reason"))
            return outcome

    async def _post(
        self, state: SubscriptionState, challenge: Challenge, headers: dict[str, str]
    ) -> EgressResult:
        """The challenge request: through the pinned egress with the subscription's ``auth``
        (DESIGN.md 14), or for a relay subscription through its relay session (the local
        receiver answers; nothing is dialled)."""
        relay = state.config.destination is not None and state.config.destination.is_relay
        if relay and self.relay is not None:
            return await self.relay.post(state, challenge.challenge_id, challenge.body, headers)
        url = state.config.endpoint
        body = challenge.body

        async def send(
            extra: list[tuple[str, str]], identity: ClientIdentity | None
        ) -> EgressResult:
            return await self.transport.post(
                url, body, [*headers.items(), *extra], identity=identity
            )

        if self.auth is None or state.config.auth is None:
            return await send([], None)
        return await self.auth.send(state, url, send)

    async def complete(
        self, challenge: Challenge, result: EgressResult, *, actor: str
    ) -> ChallengeOutcome:
        """Verify the response against the challenge and the current log; record the outcome."""
        reason, location = transport_reason(result)
        if reason is not None and tenant_reason(reason) != reason:
            # the specifics (addresses, NXDOMAIN or not) are for the operator only
            log.warning(
                "challenge_endpoint_refused",
                subscription_id=challenge.subscription_id,
                challenge_id=challenge.challenge_id,
                code=reason,
                detail=result.detail[:200] if result.detail else None,
            )
            reason = tenant_reason(reason)
        try:
            done = await execute(
                self.store,
                stream_of(challenge.subscription_id),
                fold,
                _decide,
                Complete(challenge, result, _EACH_ATTEMPT, reason, location),
                metadata=Metadata(actor=actor),
                prepare=self._prepare,
            )
        except ConcurrencyConflict:
            raise ConflictError(
                "subscription kept changing during the challenge", code="challenge_race"
            ) from None
        recorded = done.recorded[0].decode()
        reason = recorded.reason if isinstance(recorded, ChallengeFailed) else None
        log.info(
            "challenge_completed",
            subscription_id=challenge.subscription_id,
            challenge_id=challenge.challenge_id,
            generation=challenge.generation,
            key_id=challenge.key_id,
            passed=reason is None,
            reason=reason,
        )
        out = ChallengeOutcome(
            challengeId=challenge.challenge_id, passed=reason is None, reason=reason
        )
        if location:
            out["location"] = location
        return out

    async def _prepare(self, state: SubscriptionState | None, command: Complete) -> Complete:
        """The attempt's time and, unless a failure was found already (it stands), the verdict
        on the log as read, with the shared secret looked up when the answer needs it."""
        assert state is not None
        now = self.clock()
        if command.reason is not None:
            return replace(command, at=now)
        secret = None
        if state_reason(command.challenge, state, command.result) is None and needs_secret(state):
            secret = await self._secret(command.challenge, state)
        reason = verdict(command.challenge, state, command.result, now, secret)
        return replace(command, at=now, reason=reason, secret=secret)

    async def _secret(self, challenge: Challenge, state: SubscriptionState) -> bytes | None:
        """The shared secret the MAC must be under: the one that signed the challenge.

        During a secret rotation the challenge is signed with the next secret (the subscriber
        proves it holds that one); otherwise it is the subscription's current secret. A key
        lookup failure (revoked, destroyed, not a secret) is a failed challenge, not a crash.
        """
        if self.secret_for is None:
            return None
        candidates = [challenge.key_id]
        if state.config.secret_key_id and state.config.secret_key_id != challenge.key_id:
            candidates.append(state.config.secret_key_id)
        for key_id in candidates:
            try:
                secret = await self.secret_for(key_id)
            except Exception as exc:  # KeyTransitionForbidden, KeyMaterialUnavailable, ...
                log.info("challenge_secret_unavailable", key_id=key_id, error=type(exc).__name__)
                continue
            if isinstance(secret, str):
                secret = base64.b64decode(secret)
            return bytes(secret)
        return None

    # -- broker subscriptions (DESIGN.md 13) ------------------------------------------------

    async def _publish(
        self,
        state: SubscriptionState,
        cfg: DestinationConfig,
        challenge: Challenge,
        key: SigningKey,
        actor: str,
    ) -> ChallengeOutcome:
        """Publish the challenge to the destination and record the broker's answer; the
        subscription stays PENDING_CHALLENGE until the consumer answers."""
        if self.brokers is None:
            raise ConflictError("broker destinations are not configured", code="no_brokers")
        message = build_challenge_message(
            cfg.uri,
            challenge.body,
            challenge_id=challenge.challenge_id,
            subscription_id=state.subscription_id,
            generation=state.generation,
            signers=[Signer(state.config.signature_profile, key)],
            created=int(self.clock().timestamp()),
            lifetime=int(self.settings.signature_lifetime_s),
            traceparent=traceparent(),
        )
        found = await self.brokers.publish_to(cfg, message)
        cert = found.certificate
        shown = tenant_reason(found.code) if found.code else None
        command = Published(
            challenge.challenge_id,
            challenge.generation,
            found.ok,
            shown,
            found.peer_address,
            found.resolved,
            cert.spki_sha256 if cert else None,
            found.evidence(),
            self.clock(),
            # the broker's words, unless the code is one whose specifics tenants never see
            found.detail[:300] if found.detail and shown == found.code else None,
        )
        if not found.ok:
            log.warning(
                "challenge_publish_failed",
                subscription_id=state.subscription_id,
                challenge_id=challenge.challenge_id,
                code=found.code,
                detail=found.detail[:200],
            )
        return await self._recorded(state, challenge, command, actor)

    async def _deliver_kind(
        self, state: SubscriptionState, challenge: Challenge, key: SigningKey, actor: str
    ) -> ChallengeOutcome:
        """An installed kind's challenge: sent like a delivery through the kind's adapter
        (:mod:`.kinds`); the subscription stays PENDING_CHALLENGE until the consumer answers."""
        if self.kinds is None:
            raise ConflictError("destination kinds are not configured", code="no_brokers")
        kind = installed().kind_of(state.config.endpoint)
        message = challenge_message(
            challenge,
            self.sign(state, challenge, key),
            Signer(state.config.signature_profile, key),
            signs_own_form=kind.signs_own_form,
            created=int(self.clock().timestamp()),
            lifetime=int(self.settings.signature_lifetime_s),
        )
        evidence = await self.kinds.deliver(message, ChallengeAttempt.of(state, challenge))
        if not evidence.ok:
            log.warning(
                "challenge_publish_failed",
                subscription_id=state.subscription_id,
                challenge_id=challenge.challenge_id,
                code=str(evidence.code),
                kind=kind.name,
            )
        command = published(challenge, evidence, self.clock())
        return await self._recorded(state, challenge, command, actor)

    async def _recorded(
        self, state: SubscriptionState, challenge: Challenge, command: Published, actor: str
    ) -> ChallengeOutcome:
        """Record the publish's answer; the outcome the API shows."""
        await execute(
            self.store,
            stream_of(state.subscription_id),
            fold,
            lambda s, c: decide_published(_present(s), c),
            command,
            metadata=Metadata(actor=actor),
        )
        out = ChallengeOutcome(
            challengeId=challenge.challenge_id, passed=False, reason=command.code
        )
        if command.accepted:
            out["awaitingResponse"] = True
        return out

    async def answer(self, challenge_id: str, body: bytes, *, actor: str) -> ChallengeOutcome:
        """A consumer's answer to a broker challenge: recorded (ACTIVE) only when valid;
        otherwise nothing is written and the reason is raised as a problem.

        Anyone may call this (subscription ids are not secret): the answer is checked against
        the subscription's projection row first (pending challenge id, nonce, expiry: one row,
        the same read for every guess), and only an answer that passes has the stream read,
        at most :data:`_JUDGING` at a time (issue 46)."""
        subscription_id = _subscription_of(body)
        row = (
            await self.subscriptions.pending_challenge(subscription_id) if subscription_id else None
        )
        early = precheck(row, Answer(challenge_id, body, self.clock()))
        if early is not None or subscription_id is None:
            _refuse(early or "challenge_not_found")
        assert subscription_id is not None
        async with self._judging:
            return await self._judge(subscription_id, challenge_id, body, actor=actor)

    async def _judge(
        self, subscription_id: str, challenge_id: str, body: bytes, *, actor: str
    ) -> ChallengeOutcome:
        """The answer against the log (its nonce was right): recorded when valid."""
        state = await self.subscriptions.load(subscription_id)
        if state is None or state.pending is None or state.pending.challenge_id != challenge_id:
            if state is not None and challenge_id in state.consumed_challenges:
                _refuse("response_replayed")
            _refuse("challenge_not_found")
        assert state is not None and state.pending is not None
        secret = None
        if state.config.signature_algorithm == "hmac-sha256":
            probe = Challenge(challenge_id, "", "", 0, "", "", state.pending.key_id, b"")
            secret = await self._secret(probe, state)

        async def judged(s: SubscriptionState | None, a: Answer) -> Answer:
            return replace(a, at=self.clock())

        answer = Answer(challenge_id, body, self.clock(), secret)
        reason = answer_reason(state, answer)
        for _ in range(_PUBLISH_WAITS):  # a consumer may read it before the PubAck is recorded
            if reason != "challenge_not_published":
                break
            await asyncio.sleep(_PUBLISH_WAIT_S)
            latest = await self.subscriptions.load(subscription_id)
            reason = answer_reason(latest, answer) if latest else "challenge_not_pending"
        if reason is None:
            try:
                done = await execute(
                    self.store,
                    stream_of(subscription_id),
                    fold,
                    lambda s, a: decide_answer(_present(s), a),
                    answer,
                    metadata=Metadata(actor=actor),
                    prepare=judged,
                )
            except ConcurrencyConflict:
                raise ConflictError("subscription kept changing", code="challenge_race") from None
            if not done.recorded:  # the log moved under the answer: judge it again
                latest = fold(done.history)
                reason = answer_reason(latest, answer) if latest else "challenge_not_pending"
                reason = reason or "challenge_not_pending"
        log.info(
            "challenge_answered",
            subscription_id=subscription_id,
            challenge_id=challenge_id,
            passed=reason is None,
            reason=reason,
        )
        if reason is not None:
            _refuse(reason)
        return ChallengeOutcome(challengeId=challenge_id, passed=True, reason=None)


def _refuse(reason: str) -> NoReturn:
    """The refused answer's problem: 404 for a guess, 409 for a replay, else 422 with the
    reason code (logged only past the nonce: a guess costs no log line)."""
    if reason == "challenge_not_found":
        raise NotFound("no such pending challenge", code="challenge_not_found")
    if reason == "response_replayed":
        raise ConflictError("challenge already answered", code="response_replayed")
    raise ValidationError(
        f"the answer does not activate the subscription ({reason})", field="body", code=reason
    )


def _present(state: SubscriptionState | None) -> SubscriptionState:
    assert state is not None  # a challenge was issued on the stream
    return state


def _subscription_of(body: bytes) -> str | None:
    """The answer's ``subscriptionId`` when it is a well-formed id (else None)."""
    try:
        doc = json.loads(body.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None
    sid = doc.get("subscriptionId") if isinstance(doc, dict) else None
    return sid if isinstance(sid, str) and SUBSCRIPTION_ID.match(sid) else None
