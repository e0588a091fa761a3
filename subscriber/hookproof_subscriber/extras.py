"""The optional HTTP client: ``aiohttp``, installed with ``hookproof-subscriber[aiohttp]``."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

__all__ = ["AIOHTTP_EXTRA", "MissingExtraError", "has_aiohttp", "require_aiohttp"]

AIOHTTP_EXTRA = 'pip install "hookproof-subscriber[aiohttp]"'


class MissingExtraError(ImportError):
    """A feature needs an optional dependency that is not installed; the message says which
    and how to install it."""

    def __init__(self, what: str, module: str, install: str) -> None:
        super().__init__(f"{what} needs {module}, which is not installed: {install}", name=module)
        self.what = what
        self.module = module
        self.install = install


def has_aiohttp() -> bool:
    """Whether ``aiohttp`` can be imported."""
    return importlib.util.find_spec("aiohttp") is not None


def require_aiohttp(what: str) -> ModuleType:
    """The ``aiohttp`` module, or :class:`MissingExtraError` naming *what* needs it."""
    try:
        return importlib.import_module("aiohttp")
    except ImportError as exc:
        raise MissingExtraError(what, "aiohttp", AIOHTTP_EXTRA) from exc
