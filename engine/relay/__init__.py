"""The development relay (``hookproof listen``, DESIGN.md section 11).

- :mod:`.endpoint`: a relay subscription's local ``http://`` loopback endpoint (pure);
- :mod:`.codes`: the relay's failure codes (pure);
- :mod:`.protocol`: the WebSocket frames between the engine and the CLI (pure);
- :mod:`.hub`: each worker's relay sessions and the exchanges through them (Postgres tables
  and the ``hookproof_relay`` NOTIFY channel, so any worker's attempt reaches the worker that
  holds the session);
- :mod:`.destination`: the relay :class:`~hookproof.engine.delivery.destination.Destination`;
- :mod:`.client`: the CLI side (connect, forward to the local receiver, report, reconnect).

Submodules are imported where used (the delivery port imports :mod:`.codes` only).
"""

from __future__ import annotations

__all__: list[str] = []
