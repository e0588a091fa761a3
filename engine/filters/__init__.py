"""Event filters, pure: CESQL 1.0, the CloudEvents Subscriptions API dialects and Hookdeck's
JSON match syntax, compiled once from a ``filters`` array and evaluated per event
(DESIGN.md section 16). No I/O here: the API, planning and the ledger call in."""

from hookproof.engine.filters.attributes import (
    FilterEvent,
    from_cloudevent,
    from_hookproof_event,
    to_cloudevent_attributes,
)
from hookproof.engine.filters.cesql import CesqlExpression, CesqlResult, compile_cesql
from hookproof.engine.filters.cesql_types import ERROR_KINDS, CesqlError
from hookproof.engine.filters.dialects import DIALECTS, FilterResult
from hookproof.engine.filters.errors import (
    FILTER_INVALID,
    FILTER_INVALID_MATCH,
    FILTER_PARSE_ERROR,
    FILTER_UNKNOWN_DIALECT,
    FilterError,
)
from hookproof.engine.filters.evaluate import evaluate_filters, filter_event_of
from hookproof.engine.filters.filters import (
    CompiledFilters,
    FiltersEvaluation,
    compile_filters,
    digest,
)
from hookproof.engine.filters.index import FilterIndex, event_keys, index_key, key_text
from hookproof.engine.filters.match import MatchDocument, compile_match

__all__ = [
    "DIALECTS",
    "ERROR_KINDS",
    "FILTER_INVALID",
    "FILTER_INVALID_MATCH",
    "FILTER_PARSE_ERROR",
    "FILTER_UNKNOWN_DIALECT",
    "CesqlError",
    "CesqlExpression",
    "CesqlResult",
    "CompiledFilters",
    "FilterError",
    "FilterEvent",
    "FilterIndex",
    "FilterResult",
    "FiltersEvaluation",
    "MatchDocument",
    "compile_cesql",
    "compile_filters",
    "compile_match",
    "digest",
    "evaluate_filters",
    "event_keys",
    "filter_event_of",
    "from_cloudevent",
    "from_hookproof_event",
    "index_key",
    "key_text",
    "to_cloudevent_attributes",
]
