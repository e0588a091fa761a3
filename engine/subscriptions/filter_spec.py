"""A subscription's ``filters`` (DESIGN.md section 16), checked and compiled when written.

``filters`` is an array of filter expressions that must all hold (``engine/filters``). The
legacy ``filter`` (dotted payload paths to a value or a list of allowed values) is accepted
and converted to one ``match`` expression on ``data``: ``{"order.currency": ["EUR"]}`` is
``[{"match": {"data": {"order": {"currency": {"$in": ["EUR"]}}}}}]``.
"""

from __future__ import annotations

from typing import Any

from hookproof.errors import ValidationError
from hookproof.events.subscription_events import FilterSpec, SubscriptionConfig

from ..filters import CompiledFilters, FilterError, compile_filters, index_key, key_text
from .matching import validate_filter

__all__ = ["effective_filters", "filter_spec", "legacy_to_filters", "spec_of"]


def _nest(parts: list[str], value: Any) -> dict[str, Any]:
    out: dict[str, Any] = {parts[-1]: value}
    for part in reversed(parts[:-1]):
        out = {part: out}
    return out


def _merge(into: dict[str, Any], parts: list[str], value: Any) -> bool:
    """Put ``value`` at ``parts`` in ``into``; False when a path is both a leaf and a parent."""
    node = into
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict) or any(k.startswith("$") for k in child):
            return False
        node = child
    if parts[-1] in node:
        return False
    node[parts[-1]] = value
    return True


def legacy_to_filters(flt: dict[str, Any] | None) -> list[Any]:
    """The legacy ``filter`` as a ``filters`` array: one ``match`` on ``data`` (a list of
    allowed values becomes ``$in``), or one per path when two paths nest into each other."""
    if not flt:
        return []
    paths = [
        (path.split("."), {"$in": wanted} if isinstance(wanted, list) else wanted)
        for path, wanted in flt.items()
    ]
    document: dict[str, Any] = {}
    if all(_merge(document, parts, value) for parts, value in paths):
        return [{"match": {"data": document}}]
    return [{"match": {"data": _nest(parts, value)}} for parts, value in paths]


def spec_of(compiled: CompiledFilters) -> FilterSpec | None:
    """The spec stored in the subscription's config (None for an empty array)."""
    if not compiled.source:
        return None
    key = index_key(compiled)
    return FilterSpec(
        expressions=list(compiled.source),
        digest=compiled.digest,
        index_key=key_text(key) if key is not None else None,
    )


def filter_spec(filters: Any = None, legacy: Any = None) -> FilterSpec | None:
    """Check and compile ``filters`` (or the legacy ``filter``, converted): a 400
    :class:`FilterError` with its code, dialect, path and position for a bad one; None when
    there is no filter at all."""
    if filters is not None and legacy is not None:
        raise ValidationError(
            "filters and filter exclude each other: filters is the new form",
            field="filter",
            code="filter_with_filters",
        )
    if legacy is not None:
        problem = validate_filter(legacy)
        if problem is not None:
            raise ValidationError(problem, field="filter")
        try:
            return spec_of(compile_filters(legacy_to_filters(legacy)))
        except FilterError as exc:  # a path part that reads as a match operator ($...)
            raise ValidationError(
                f"filter cannot be converted to filters: {exc.detail}",
                field="filter",
                code=exc.code,
            ) from None
    if filters is None:
        return None
    return spec_of(compile_filters(filters))


def effective_filters(config: SubscriptionConfig) -> FilterSpec | None:
    """What decides for this config: its ``filters``, or its legacy ``filter`` converted
    (events written before ``filters`` existed; no index key: checked for every event)."""
    if config.filters is not None:
        return config.filters
    if not config.filter:
        return None
    compiled = compile_filters(legacy_to_filters(config.filter))
    return FilterSpec(expressions=list(compiled.source), digest=compiled.digest)
