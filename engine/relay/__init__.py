"""The development relay (``hookproof listen``, DESIGN.md section 11).

- :mod:`.protocol`: the WebSocket frames between the engine and the CLI (pure);
- :mod:`.hub`: each worker's relay sessions and the exchanges through them (Postgres tables
  and the ``hookproof_relay`` NOTIFY channel, so any worker's attempt reaches the worker that
  holds the session);
- the relay kind's adapter, codes and endpoint rules live in the destinations wing
  (``engine/destinations/relay/``);
- :mod:`.client`: the CLI side (connect, forward to the local receiver, report, reconnect).

Submodules are imported where used.
"""

from __future__ import annotations

__all__: list[str] = []
