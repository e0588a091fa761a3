"""The ``amqp`` kind's registration (entry point ``hookproof.destinations: amqp``)."""

from __future__ import annotations

from hookproof.schemas.destinations import AMQP_DEFAULT_PORTS

from ..brokers.kind import BROKER_FIELDS, build
from ..kind import FieldSpec, KindSpec

__all__ = ["KIND"]

KIND = KindSpec(
    name="amqp",
    summary="RabbitMQ (AMQP 0-9-1): published to an exchange, the broker's confirm as evidence",
    build=build,
    fields=(
        *BROKER_FIELDS,
        FieldSpec("exchange", description='the exchange ("" is the default exchange)'),
        FieldSpec("routingKey", required=False, description="the routing key of every message"),
    ),
    evidence=("amqp_confirm",),
    signs_own_form=True,
    schemes=frozenset(AMQP_DEFAULT_PORTS),
)
