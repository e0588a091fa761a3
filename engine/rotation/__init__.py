"""Key rotation rounds: a new engine key, the endpoints challenged under it, the rounds'
acceptance recorded (above keys, subscriptions and challenges, which it orchestrates).

- :mod:`.service`: :class:`Rotation` (rotate, compromise, the round's decisions);
- :mod:`.repository`: its reads and writes of the rotation tables.
"""

from __future__ import annotations

__all__: list[str] = []
