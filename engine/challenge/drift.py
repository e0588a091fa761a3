"""Drift detection: what a passed challenge pinned, compared with every later connection.

A passed challenge records, per generation, the resolved address set, the peer certificate's
SPKI sha-256 and its issuer (``ChallengePassed``; folded into ``SubscriptionState``). Every
later connection (a delivery) goes through :meth:`DriftGuard.post`, which posts with
``pin=state.pinned_addresses`` and compares what it saw with what was pinned.

Default policy (:data:`DEFAULT_POLICY`):

- any resolved address in a denied range (the transport refuses it before any socket is
  opened): ``dns_rebinding_denied``, the subscription is SUSPENDED; an endpoint whose host is
  an IP address written out (no DNS: nothing rebound, the address is simply not allowed, e.g.
  an engine restarted without the ``HOOKPROOF_EGRESS_ALLOW`` that admitted it) is SUSPENDED
  ``endpoint_ip_forbidden``, and the log names the setting;
- a certificate from another issuer than the one recorded at the challenge:
  ``certificate_issuer_changed``, the subscription is SUSPENDED;
- the address set changed to other public addresses, or the certificate key changed under the
  same issuer (a renewal): allowed, recorded once per distinct observation as a
  ``DriftDetected`` event (``address_set_changed`` / ``certificate_key_changed``);
- a connection refused because the addresses left the pin (``egress_pin_mismatch``: a broker
  destination, whose connection carries the tenant's credentials, is never followed to new
  addresses): ``address_set_changed``, the subscription is SUSPENDED (a refusal that would
  repeat on every retry is not left to spend the retries).

Anything shaped like an egress result is judged (:class:`Observed`): the HTTPS post's
``EgressResult`` through :meth:`DriftGuard.post`, a broker publish's ``BrokerEvidence``
through :meth:`DriftGuard.observe`.

A suspension is one append on the subscription stream: ``SubscriptionStateChanged``
(``command="suspend"``, the reason) and ``DriftDetected``, with the stream version as the
expected version and the generation the caller's state was for; a subscription that moved on
meanwhile (new generation, revoked) is left alone. Leaving SUSPENDED takes ``resume``, which
goes through a new challenge.

``drift_reason`` and ``assess`` are pure; ``DriftGuard`` does the I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import structlog

from hookproof.errors import ConcurrencyConflict, HookproofError
from hookproof.events import Metadata
from hookproof.events.command import execute
from hookproof.events.subscription_events import DriftDetected
from hookproof.projections.subscriptions import SubscriptionState, fold

from ..common.clock import system_clock
from ..egress import EgressResult, EgressTransport, FailureCode, address_set
from ..egress.identity import ClientIdentity
from ..egress.policy import AddressDrift
from ..egress.result import PeerCertificate
from ..subscriptions import SubscriptionService, Transition, stream_of
from .disclosure import EGRESS_ALLOW_SETTING, ENDPOINT_IP_FORBIDDEN, literal_address

__all__ = [
    "DEFAULT_POLICY",
    "DRIFT_REASONS",
    "DriftAssessment",
    "DriftGuard",
    "DriftPolicy",
    "Observed",
    "assess",
    "drift_reason",
]

log = structlog.get_logger("hookproof.drift")

SUSPEND = "suspend"
RECORD = "record"
IGNORE = "ignore"

#: Every reason a ``DriftDetected`` event can carry.
DRIFT_REASONS = frozenset(
    {
        "dns_rebinding_denied",
        ENDPOINT_IP_FORBIDDEN,
        "certificate_issuer_changed",
        "certificate_key_changed",
        "address_set_changed",
    }
)


@dataclass(frozen=True, slots=True)
class DriftPolicy:
    """What each kind of drift does: ``suspend``, ``record`` or ``ignore``.

    A resolved address in a denied range always suspends (the transport refuses it anyway;
    following it silently is never an option), so it has no knob.
    """

    issuer_change: str = SUSPEND
    key_change: str = RECORD
    address_change: str = RECORD


DEFAULT_POLICY = DriftPolicy()


@dataclass(frozen=True, slots=True)
class DriftAssessment:
    """``suspend``: the reason to suspend (None: keep going); ``record``: drift to record."""

    suspend: str | None = None
    record: str | None = None

    @property
    def reason(self) -> str | None:
        return self.suspend or self.record


class Observed(Protocol):
    """What one connection saw, as the drift rules read it (an ``EgressResult``, a
    ``BrokerEvidence``)."""

    @property
    def code(self) -> Any: ...
    @property
    def resolved(self) -> tuple[str, ...]: ...
    @property
    def denied(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def drift(self) -> AddressDrift | None: ...
    @property
    def certificate(self) -> PeerCertificate | None: ...
    @property
    def spki_sha256(self) -> str | None: ...


@dataclass(frozen=True, slots=True)
class _Observation:
    """Drift seen on a connection of ``state``'s generation, to be recorded for ``reason``."""

    state: SubscriptionState
    result: Observed
    reason: str


def assess(
    state: SubscriptionState, result: Observed, policy: DriftPolicy = DEFAULT_POLICY
) -> DriftAssessment:
    """Compare one connection's result with what the passed challenge recorded (pure)."""
    denied = bool(result.denied) or bool(result.drift is not None and result.drift.denied)
    if denied or result.code == FailureCode.REFUSED_ADDRESS:
        literal = literal_address(state.config.endpoint) is not None
        return DriftAssessment(suspend=ENDPOINT_IP_FORBIDDEN if literal else "dns_rebinding_denied")
    if result.code == FailureCode.PIN_MISMATCH and state.pinned_addresses:
        return DriftAssessment(suspend="address_set_changed")
    record: str | None = None
    cert = result.certificate
    if cert is not None and state.issuer is not None and cert.issuer != state.issuer:
        if policy.issuer_change == SUSPEND:
            return DriftAssessment(suspend="certificate_issuer_changed")
        if policy.issuer_change == RECORD:
            record = "certificate_issuer_changed"
    if (
        record is None
        and cert is not None
        and state.spki_sha256 is not None
        and cert.spki_sha256 != state.spki_sha256
    ):
        if policy.key_change == SUSPEND:
            return DriftAssessment(suspend="certificate_key_changed")
        if policy.key_change == RECORD:
            record = "certificate_key_changed"
    if record is None and state.pinned_addresses and result.resolved:
        # the transport's address policy already compared them when it was given the pin
        drift = result.drift
        if drift is not None:
            moved = drift.observed != drift.expected
        else:
            moved = address_set(result.resolved) != address_set(state.pinned_addresses)
        if moved:
            if policy.address_change == SUSPEND:
                return DriftAssessment(suspend="address_set_changed")
            if policy.address_change == RECORD:
                record = "address_set_changed"
    return DriftAssessment(record=record)


def drift_reason(
    state: SubscriptionState, result: Observed, policy: DriftPolicy = DEFAULT_POLICY
) -> str | None:
    """The reason this connection must suspend the subscription, or None (pure)."""
    return assess(state, result, policy).suspend


def _log_fields(state: SubscriptionState, result: Observed, reason: str) -> dict[str, Any]:
    """What a drift log line says of the subscription and the addresses it resolved."""
    return {
        "subscription_id": state.subscription_id,
        "generation": state.generation,
        "reason": reason,
        "pinned": list(state.pinned_addresses),
        "resolved": list(result.resolved),
    }


class DriftGuard:
    """Posts for an ACTIVE subscription through the pinned transport and acts on drift.

    ``policy_for`` picks the policy per subscription (default: :data:`DEFAULT_POLICY`).
    """

    def __init__(
        self,
        store: Any,
        subscriptions: SubscriptionService,
        transport: EgressTransport,
        *,
        policy_for: Callable[[SubscriptionState], DriftPolicy] | None = None,
        clock: Callable[[], datetime] = system_clock,
        actor: str = "system:drift",
    ) -> None:
        self.store = store
        self.subscriptions = subscriptions
        self.transport = transport
        self.policy_for = policy_for or (lambda _state: DEFAULT_POLICY)
        self.clock = clock
        self.actor = actor
        # (subscription, generation) -> the last recorded (reason, addresses, spki): a drift
        # that is only recorded is recorded once per distinct observation, not per delivery
        self._recorded: dict[tuple[str, int], tuple[str, tuple[str, ...], str | None]] = {}

    async def post(
        self,
        state: SubscriptionState,
        url: str,
        body: bytes,
        headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        *,
        identity: ClientIdentity | None = None,
    ) -> EgressResult:
        """POST with the challenge's pinned address set; suspend or record on drift.

        The result is returned as the transport gave it: a refusal (``egress_refused_address``)
        means no socket was opened; the ledger decides what the attempt becomes.
        """
        pin = state.pinned_addresses or None
        result = await self.transport.post(url, body, headers, pin=pin, identity=identity)
        await self.observe(state, result)
        return result

    async def observe(self, state: SubscriptionState, result: Observed) -> None:
        """Judge what a connection of ``state``'s generation saw (made with its pin): suspend
        or record as the policy says. A broker destination's publish comes here."""
        verdict = assess(state, result, self.policy_for(state))
        if verdict.suspend is not None:
            await self._suspend(state, result, verdict.suspend)
        elif verdict.record is not None:
            await self._record(state, result, verdict.record)

    def _event(self, state: SubscriptionState, result: Observed, reason: str) -> DriftDetected:
        return DriftDetected(
            subscription_id=state.subscription_id,
            generation=state.generation,
            reason=reason,
            addresses=sorted(result.resolved),
            spki_sha256=result.spki_sha256,
            at=self.clock().isoformat(),
        )

    async def _suspend(self, state: SubscriptionState, result: Observed, reason: str) -> None:
        literal = literal_address(state.config.endpoint)
        allow = {}
        if literal is not None and reason == ENDPOINT_IP_FORBIDDEN:
            address, port = literal
            pair = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
            allow = {"allow_with": f"{EGRESS_ALLOW_SETTING}={pair}"}
        log.warning(
            "drift_suspend",
            **_log_fields(state, result, reason),
            denied=[list(d) for d in result.denied],
            spki_sha256=result.spki_sha256,
            **allow,
        )
        try:
            await self.subscriptions.execute(
                state.subscription_id,
                Transition(SUSPEND, expected_generation=state.generation, reason=reason),
                actor=self.actor,
                extra=[self._event(state, result, reason)],
            )
        except HookproofError as exc:
            # a new generation, a revoke, or already suspended: nothing of ours to suspend
            log.info(
                "drift_suspend_skipped",
                subscription_id=state.subscription_id,
                reason=reason,
                code=getattr(exc, "code", type(exc).__name__),
            )

    async def _record(self, state: SubscriptionState, result: Observed, reason: str) -> None:
        key = (state.subscription_id, state.generation)
        seen = (reason, tuple(sorted(result.resolved)), result.spki_sha256)
        if self._recorded.get(key) == seen:
            return
        log.info("drift_recorded", **_log_fields(state, result, reason))
        try:
            done = await execute(
                self.store,
                stream_of(state.subscription_id),
                fold,
                self._decide_record,
                _Observation(state, result, reason),
                metadata=Metadata(actor=self.actor),
            )
        except ConcurrencyConflict:  # the subscription kept changing: another time
            return
        if done.changed:
            self._recorded[key] = seen

    def _decide_record(
        self, current: SubscriptionState | None, seen: _Observation
    ) -> list[DriftDetected]:
        """One ``DriftDetected`` while the subscription is still at the observed generation."""
        if current is None or current.generation != seen.state.generation:
            return []
        return [self._event(seen.state, seen.result, seen.reason)]
