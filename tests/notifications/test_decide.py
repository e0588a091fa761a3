"""The notification decision without a database: which log events are causes, for what."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from hookproof.engine.notifications import (
    CAUSE_TYPES,
    DEAD_LETTERED,
    DRIFT_DETECTED,
    KEY_COMPROMISED,
    NOTIFICATION_TOPICS,
    ROLLOUT_PAUSED,
    SUSPENDED,
    cause_of,
    is_notification_topic,
    names_notifications,
)
from hookproof.engine.notifications.decide import notification_event, notification_event_id
from hookproof.engine.notifications.service import listener_patterns
from hookproof.engine.subscriptions.matching import topic_matches
from hookproof.events.delivery_events import DeadLettered, EndpointAccepted
from hookproof.events.key_events import KeyRevoked, KeyState, RevokeReason
from hookproof.events.rollout_events import RolloutPaused, RolloutResumed
from hookproof.events.subscription_events import DriftDetected, SubscriptionStateChanged

AT = "2026-11-30T10:00:00+00:00"
NOW = datetime(2026, 11, 30, 10, tzinfo=UTC)


def _changed(to_state: str) -> SubscriptionStateChanged:
    return SubscriptionStateChanged(
        subscription_id="sub_1",
        command="suspend",
        from_state="ACTIVE",
        to_state=to_state,
        generation=2,
        reason="endpoint_gone",
        at=AT,
    )


def test_each_cause_and_its_topic() -> None:
    suspended = cause_of(_changed("SUSPENDED"))
    assert suspended is not None and suspended.topic == SUSPENDED
    assert suspended.subject == "sub_1" and suspended.facts["reason"] == "endpoint_gone"
    drift = cause_of(
        DriftDetected(
            subscription_id="sub_1",
            generation=1,
            reason="dns_changed",
            addresses=["1.2.3.4"],
            at=AT,
        )
    )
    assert drift is not None and drift.topic == DRIFT_DETECTED
    dead = cause_of(
        DeadLettered(
            delivery_id="dlv_1",
            attempt=3,
            owner="ops",
            reason="exhausted:http_500",
            replay="x",
            at=AT,
        )
    )
    assert dead is not None and (dead.topic, dead.subject) == (DEAD_LETTERED, "dlv_1")
    key = cause_of(
        KeyRevoked(
            key_id="k_1", at=NOW, reason=RevokeReason.COMPROMISED, previous_state=KeyState.ACTIVE
        )
    )
    assert (
        key is not None and key.topic == KEY_COMPROMISED and key.facts["previousState"] == "ACTIVE"
    )
    paused = cause_of(RolloutPaused(rollout_id="ro_1", reason="acceptance_below_baseline", at=AT))
    assert paused is not None and paused.topic == ROLLOUT_PAUSED
    # the notifier decodes only these types: every cause above is of one of them
    causing = [
        _changed("SUSPENDED"),
        KeyRevoked(
            key_id="k", at=NOW, reason=RevokeReason.COMPROMISED, previous_state=KeyState.ACTIVE
        ),
    ]
    assert {type(e).__struct_config__.tag for e in causing} <= CAUSE_TYPES
    assert CAUSE_TYPES == {
        "subscription.state_changed",
        "subscription.drift_detected",
        "delivery.dead_lettered",
        "key.revoked",
        "rollout.paused",
    }


async def test_the_notifier_does_not_decode_other_log_events() -> None:
    """Every delivery event passes the notifier; only a possible cause's type is decoded."""
    import uuid

    import structlog

    from hookproof.engine.notifications.service import Notifier
    from hookproof.events import RecordedEvent

    def recorded(type_: str) -> RecordedEvent:
        return RecordedEvent(
            1, 1, "delivery-x", 1, uuid.uuid4(), type_, 1, b"{", b"{}", NOW, None, b""
        )

    notifier = Notifier.__new__(Notifier)  # handle() of a non-cause touches no store
    with structlog.testing.capture_logs() as logs:
        assert await notifier.handle(recorded("delivery.endpoint_accepted")) == 0
        assert await notifier.handle(recorded("delivery.dead_lettered")) == 0  # undecodable
    assert [e["event"] for e in logs] == ["notifier_undecodable"]


def test_what_is_not_a_cause() -> None:
    assert cause_of(_changed("ACTIVE")) is None
    assert cause_of(_changed("REVOKED")) is None
    retired = KeyRevoked(
        key_id="k_1", at=NOW, reason=RevokeReason.RETIRED, previous_state=KeyState.VERIFY_ONLY
    )
    assert cause_of(retired) is None
    assert cause_of(RolloutResumed(rollout_id="ro_1", at=AT)) is None
    accepted = EndpointAccepted(
        delivery_id="d",
        attempt=1,
        status=204,
        peer_address=None,
        spki_sha256=None,
        duration_ms=1.0,
        at=AT,
    )
    assert cause_of(accepted) is None


def test_only_an_explicit_name_brings_notifications() -> None:
    for topic in NOTIFICATION_TOPICS:
        assert is_notification_topic(topic)
        assert "*" not in listener_patterns(topic)
        assert names_notifications([topic]) and names_notifications(["hookproof.*"])
    assert not names_notifications(["*"])
    assert not names_notifications(["order.*", "*"])
    assert not is_notification_topic("order.created")


@given(st.sampled_from(NOTIFICATION_TOPICS), st.lists(st.sampled_from(["*", "order.*", "a"])))
def test_a_wildcard_subscription_matches_but_does_not_name(topic: str, topics: list[str]) -> None:
    if "*" in topics:
        assert topic_matches(topics, topic)
    assert not names_notifications(topics)


def test_one_cause_one_event_per_tenant_stable_ids() -> None:
    cause = cause_of(_changed("SUSPENDED"))
    assert cause is not None
    a = notification_event(
        cause, tenant_id="ten_a", source_event_id="e-1", source_version=4, occurred_at=NOW
    )
    again = notification_event(
        cause, tenant_id="ten_a", source_event_id="e-1", source_version=4, occurred_at=NOW
    )
    b = notification_event(
        cause, tenant_id="ten_b", source_event_id="e-1", source_version=4, occurred_at=NOW
    )
    assert a == again and a["eventId"] == notification_event_id("e-1", "ten_a")
    assert a["eventId"] != b["eventId"]
    assert a["topic"] == SUSPENDED and a["aggregateId"] == "sub_1" and a["aggregateVersion"] == 4
    assert a["payload"]["sourceEventId"] == "e-1"


def test_a_denied_drift_and_dead_letter_reveal_no_dns_view() -> None:
    """Issue 11, defect 7: what the engine's resolver answered stays with the operator."""
    drift = cause_of(
        DriftDetected(
            subscription_id="sub_1",
            generation=1,
            reason="dns_rebinding_denied",
            addresses=["10.20.30.40"],
            at=AT,
        )
    )
    assert drift is not None and drift.facts["addresses"] == []
    for code in ("egress_refused_address", "dns_failure"):
        dead = cause_of(
            DeadLettered(
                delivery_id="dlv_1",
                attempt=3,
                owner="ops",
                reason=f"exhausted:{code}",
                replay="x",
                at=AT,
            )
        )
        assert dead is not None and dead.facts["reason"] == "exhausted:endpoint_ip_forbidden"
