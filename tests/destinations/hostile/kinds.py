"""The destination kinds of the hostile kit. A kind joins by adding one :class:`HostileKind`
to :data:`KINDS`: its fake server, the ``destination`` a subscription names it by, what each
misbehaviour must end in (code and outcome) and the mode whose connection hangs (the victim
test's). The shared tests (``test_hostile.py``, ``test_hostile_victim.py``) run every kind."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .amqp import FakeAmqp
from .base import FakeServer
from .nats import FakeNats

__all__ = ["KINDS", "HostileKind", "Misbehaviour"]


@dataclass(frozen=True)
class Misbehaviour:
    """What a mode must end in: the reason ``code``, the ``outcome`` and the deadline that
    bounds it (``handshake`` | ``confirm`` | ``none``: refused on what arrives)."""

    code: str
    outcome: str
    deadline: str


@dataclass(frozen=True)
class HostileKind:
    name: str
    make: Callable[[], FakeServer]
    #: (port, a unique name) -> the ``destination`` field of a subscription (plain, loopback)
    destination: Callable[[int, str], dict[str, Any]]
    #: (fake, destination URI) -> the (headers, body) of each good publish recorded for it
    recorded: Callable[[Any, str], list[tuple[Mapping[str, Any], bytes]]]
    misbehaviours: Mapping[str, Misbehaviour]
    #: a mode in which the broker takes the TCP connection and then stops answering
    hung: str
    giant: tuple[str, ...]
    #: a mode in which the broker takes the connection and never sends a byte (under TLS: the
    #: handshake never completes)
    silent: str
    #: (port, name) -> the ``destination`` of the same kind over TLS
    tls_destination: Callable[[int, str], dict[str, Any]]


H = Misbehaviour("broker_handshake_timeout", "not_sent", "handshake")
TOO_LARGE_FIRST = Misbehaviour("broker_frame_too_large", "not_sent", "none")
TOO_LARGE_AFTER = Misbehaviour("broker_frame_too_large", "unknown", "none")
BUDGET = Misbehaviour("broker_budget_exceeded", "unknown", "none")
NO_CONFIRM = Misbehaviour("confirm_timeout", "unknown", "confirm")
LOST = Misbehaviour("connection_lost", "unknown", "none")


def _amqp_dest(port: int, name: str) -> dict[str, Any]:
    return {
        "type": "amqp",
        "url": f"amqp://127.0.0.1:{port}/%2F",
        "exchange": f"ex-{name}",
        "routingKey": "orders",
    }


def _amqps_dest(port: int, name: str) -> dict[str, Any]:
    return {**_amqp_dest(port, name), "url": f"amqps://127.0.0.1:{port}/%2F"}


def _amqp_recorded(fake: FakeAmqp, uri: str) -> list[tuple[Mapping[str, Any], bytes]]:
    exchange = uri.rsplit("/", 2)[-2]
    return [(p.headers, p.body) for p in fake.published if p.exchange == exchange]


def _nats_dest(port: int, name: str) -> dict[str, Any]:
    return {
        "type": "nats",
        "url": f"nats://127.0.0.1:{port}",
        "subject": f"orders.{name}",
        "stream": "ORDERS",
    }


def _nats_tls_dest(port: int, name: str) -> dict[str, Any]:
    return {**_nats_dest(port, name), "url": f"tls://127.0.0.1:{port}"}


def _nats_recorded(fake: FakeNats, uri: str) -> list[tuple[Mapping[str, Any], bytes]]:
    subject = uri.rsplit("/", 1)[-1]
    return [(p.headers, p.body) for p in fake.published if p.subject == subject]


KINDS: tuple[HostileKind, ...] = (
    HostileKind(
        name="amqp",
        make=FakeAmqp,
        destination=_amqp_dest,
        recorded=_amqp_recorded,
        misbehaviours={
            "hang_start": H,
            "hang_tune": H,
            "hang_open": H,
            "hang_channel": H,
            "hang_confirm_select": H,
            "confirm_never": NO_CONFIRM,
            "confirm_late": NO_CONFIRM,
            "close_after_publish": LOST,
            "giant_start": TOO_LARGE_FIRST,
            "giant_confirm": TOO_LARGE_AFTER,
            "endless": BUDGET,
        },
        hung="hang_channel",
        giant=("giant_start", "giant_confirm"),
        silent="hang_start",
        tls_destination=_amqps_dest,
    ),
    HostileKind(
        name="nats",
        make=FakeNats,
        destination=_nats_dest,
        recorded=_nats_recorded,
        misbehaviours={
            "hang_info": H,
            "hang_pong": H,
            "ack_never": NO_CONFIRM,
            "ack_late": NO_CONFIRM,
            "close_after_publish": LOST,
            "giant_info": TOO_LARGE_FIRST,
            "giant_msg": TOO_LARGE_AFTER,
            "endless": BUDGET,
        },
        hung="hang_info",
        giant=("giant_info", "giant_msg"),
        silent="hang_info",
        tls_destination=_nats_tls_dest,
    ),
)
