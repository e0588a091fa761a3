"""Schemathesis hooks of the contract run (``test_api_schemathesis.py``)."""

from __future__ import annotations

from typing import Any

import schemathesis

__all__ = ["map_case"]


@schemathesis.hook
def map_case(context: Any, case: Any) -> Any:
    """A positive case never invents a ``cursor``: it is an opaque value only the server makes
    (any other is a 400 ``invalid_cursor``, which negative cases and the tests of
    ``pages.py`` exercise)."""
    meta = getattr(case, "meta", None)
    positive = meta is not None and meta.generation.mode.is_positive
    if positive and case.query and "cursor" in case.query:
        case.query = {k: v for k, v in case.query.items() if k != "cursor"}
    return case
