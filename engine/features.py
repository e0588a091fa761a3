"""Optional features wire themselves into the engine here (challenge, keys, delivery...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .daemon import Engine

__all__ = ["install"]


async def install(engine: Engine) -> None:
    """Install every feature that is present."""
    return None
