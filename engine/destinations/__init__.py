"""The destinations wing (DESIGN.md sections 13 and 15): where an attempt goes and what came
back.

- :mod:`.port`: the :class:`~.port.Destination` protocol, the signed message, the evidence and
  the attempt's typed values;
- :mod:`.registry`: the kinds installed (the ``hookproof.destinations`` entry points), each a
  :class:`~.kind.KindSpec`;
- one subpackage per kind: :mod:`.https` (over the pinned egress), :mod:`.amqp`,
  :mod:`.nats`, :mod:`.relay`; :mod:`.brokers` holds what the two broker kinds share (vetting,
  the guarded socket, bounds, pools, the signed broker message, the ``destination`` spec).

Nothing outside this folder imports a kind's subpackage or names a kind: the engine asks the
registry (tests/test_destination_wing.py).
"""
