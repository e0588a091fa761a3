"""The HTTP API (aiohttp): JSON through msgspec, errors as RFC 9457 problem+json."""

from .app import create_app
from .context import ApiContext

__all__ = ["ApiContext", "create_app"]
