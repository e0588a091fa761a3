"""Which events a subscription receives: topic, accepted major versions, optional filter.

A filter is a JSON object mapping dotted payload paths to a required value or a list of
allowed values, e.g. ``{"order.currency": ["EUR", "USD"], "test": false}``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["filter_matches", "topic_matches", "validate_filter"]

_MISSING = object()


def topic_matches(topics: list[str], topic: str) -> bool:
    """Exact topics, or a prefix pattern ending in ``.*`` (``order.*``), or ``*``."""
    for t in topics:
        if t == topic or t == "*" or (t.endswith(".*") and topic.startswith(t[:-1])):
            return True
    return False


def _lookup(payload: Any, path: str) -> Any:
    cur = payload
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return _MISSING
        cur = cur[part]
    return cur


def filter_matches(flt: dict[str, Any] | None, payload: Any) -> bool:
    if not flt:
        return True
    for path, wanted in flt.items():
        value = _lookup(payload, path)
        if value is _MISSING:
            return False
        if isinstance(wanted, list):
            if value not in wanted:
                return False
        elif value != wanted:
            return False
    return True


def validate_filter(flt: Any) -> str | None:
    """None when the filter is well-formed, else what is wrong."""
    if flt is None:
        return None
    if not isinstance(flt, dict):
        return "filter must be an object"
    if len(flt) > 32:
        return "filter has more than 32 paths"
    for path, wanted in flt.items():
        if not path or len(path) > 200 or any(not p for p in path.split(".")):
            return f"bad filter path {path!r}"
        if isinstance(wanted, dict):
            return f"filter value at {path!r} must be a scalar or a list of scalars"
        if isinstance(wanted, list) and any(isinstance(w, dict | list) for w in wanted):
            return f"filter list at {path!r} must hold scalars"
    return None
