"""How a sub-command is added: its one-line summary (the parent's list) is also the start of
its own ``--help``, unless it has a longer description."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_command"]


def add_command(sub: Any, name: str, *, help: str, **kwargs: Any) -> argparse.ArgumentParser:
    """``sub.add_parser(name, help=help, ...)`` with ``description`` defaulting to ``help``
    as a sentence."""
    if not kwargs.get("description"):
        kwargs["description"] = help[:1].upper() + help[1:] + ("" if help.endswith(".") else ".")
    parser: argparse.ArgumentParser = sub.add_parser(name, help=help, **kwargs)
    return parser
