"""The filters' request and answers (DESIGN.md section 16): ``POST /v1/filters/evaluate``'s body
(``api`` re-exports it) and outcome per expression, and the filters that decided a delivery's
planning (``api_out`` re-exports those)."""

from __future__ import annotations

from typing import Any

import msgspec

__all__ = [
    "DeliveryFilters",
    "FilterOutcome",
    "FilterOutcomeError",
    "FiltersEvaluate",
    "FiltersEvaluated",
]


class FiltersEvaluate(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, rename="camel"):
    """``POST /v1/filters/evaluate``: a ``filters`` array (DESIGN.md section 16) and one
    event to try it on: a hookproof event (the ``POST /v1/events`` body) or a CloudEvent in
    JSON (it has ``specversion``)."""

    filters: list[Any]
    event: dict[str, Any]


class _Out(msgspec.Struct, kw_only=True, rename="camel"):
    pass


class FilterOutcomeError(_Out, kw_only=True):
    """Why an expression erred: ``kind`` is the CESQL TCK's (``parse``, ``math``, ``cast``,
    ``missingFunction``, ``functionEvaluation``, ``missingAttribute``, ``generic``); an
    expression that cannot be compiled is ``parse`` with its ``code``, ``dialect``, ``path``
    (a JSON Pointer into ``filters``) and, in CESQL, ``position``."""

    kind: str
    detail: str
    code: str | msgspec.UnsetType = msgspec.UNSET
    dialect: str | msgspec.UnsetType | None = msgspec.UNSET
    path: str | msgspec.UnsetType = msgspec.UNSET
    position: int | msgspec.UnsetType = msgspec.UNSET


class FilterOutcome(_Out, kw_only=True):
    """One top-level expression: its value (a CESQL value for ``sql``, else whether it
    held; absent when it could not be compiled) and the first error it met."""

    value: bool | int | str | msgspec.UnsetType = msgspec.UNSET
    error: FilterOutcomeError | msgspec.UnsetType = msgspec.UNSET


class FiltersEvaluated(_Out, kw_only=True):
    """``POST /v1/filters/evaluate``: whether every expression held (``matches``), each
    one's outcome in order, and the digest the ledger would record for these filters."""

    matches: bool
    results: list[FilterOutcome]
    digest: str


class DeliveryFilters(_Out, kw_only=True):
    """The filters that decided a delivery's planning (DESIGN.md section 16)."""

    digest: str
    held: bool
