"""A ``filters`` array: every expression must hold (an empty array holds for every event).

:func:`compile_filters` validates and compiles it once, when the subscription is written;
``matches`` answers per event; ``evaluate`` answers with each expression's value and error
(the body of ``POST /v1/filters/evaluate``); ``digest`` names the array in the ledger.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import msgspec

from hookproof.engine.filters.attributes import FilterEvent
from hookproof.engine.filters.dialects import CompiledFilter, FilterResult, compile_filter
from hookproof.engine.filters.errors import FILTER_INVALID, FilterError
from hookproof.events.canonical import canonical_json

__all__ = ["MAX_FILTERS", "CompiledFilters", "FiltersEvaluation", "compile_filters", "digest"]

#: the most expressions one ``filters`` array holds
MAX_FILTERS = 64


def digest(filters: Any) -> str:
    """The sha-256 of the array's canonical JSON (keys sorted, compact), in hex: the same
    filters always give the same digest, whatever their key order or whitespace."""
    return hashlib.sha256(canonical_json(filters)).hexdigest()


@dataclass(frozen=True, slots=True)
class FiltersEvaluation:
    matches: bool
    results: tuple[FilterResult, ...]

    def to_json(self) -> dict[str, Any]:
        return {"matches": self.matches, "results": [r.to_json() for r in self.results]}


@dataclass(frozen=True, slots=True)
class CompiledFilters:
    source: tuple[Any, ...]
    filters: tuple[CompiledFilter, ...]
    digest: str

    def matches(self, event: FilterEvent) -> bool:
        return all(f.matches(event) for f in self.filters)

    def evaluate(self, event: FilterEvent) -> FiltersEvaluation:
        results = tuple(f.evaluate(event) for f in self.filters)
        return FiltersEvaluation(all(r.matched for r in results), results)


def compile_filters(filters: Any) -> CompiledFilters:
    """Compile a ``filters`` array; a :class:`FilterError` with a stable code
    (``filter_unknown_dialect``, ``filter_parse_error``, ``filter_invalid_match``,
    ``filter_invalid``), the dialect and the JSON Pointer ``path`` of the fault (and the
    ``position`` in a CESQL expression) for the first bad expression."""
    if not isinstance(filters, list):
        raise FilterError("filters is an array of filter expressions", code=FILTER_INVALID)
    if len(filters) > MAX_FILTERS:
        raise FilterError(f"filters holds at most {MAX_FILTERS} expressions", code=FILTER_INVALID)
    for i, item in enumerate(filters):  # refuse with the caller's own structure and paths
        compile_filter(item, f"/{i}")
    canonical = canonical_json(filters)
    # then compile a copy of its own, as JSON reads it back: a caller that changes its dicts
    # later changes neither the filters' behaviour nor their digest
    source = tuple(msgspec.json.decode(canonical))
    compiled = tuple(compile_filter(item, f"/{i}") for i, item in enumerate(source))
    return CompiledFilters(source, compiled, hashlib.sha256(canonical).hexdigest())
