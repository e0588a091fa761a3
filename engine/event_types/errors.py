"""The catalogue's typed errors, each with its stable reason code (DESIGN.md section 11)."""

from __future__ import annotations

from typing import Any

from hookproof.errors import NotFound, ValidationError

__all__ = [
    "EventTypeNotFound",
    "EventVersionUndeclared",
    "ExampleInvalid",
    "PatternTooComplex",
    "PayloadSchemaInvalid",
    "PayloadTooComplex",
    "SchemaInvalid",
]


class SchemaInvalid(ValidationError):
    """Not a JSON Schema 2020-12 we accept (meta-schema, a limit, a regex, a reference)."""

    code = "schema_invalid"


class PatternTooComplex(SchemaInvalid):
    """A regex of a definition costs too much per byte it reads (its positions, counted
    repetitions written out, past ``regex_cost.MAX_POSITIONS``), or cannot be priced."""

    code = "pattern_too_complex"


class ExampleInvalid(ValidationError):
    """The version's example does not validate against its own schema (``errors`` says how)."""

    code = "example_invalid"

    def __init__(self, detail: str, *, field: str, errors: list[dict[str, str]]) -> None:
        super().__init__(detail, field=field, errors=errors)


class PayloadSchemaInvalid(ValidationError):
    """An event's payload fails the schema of its (topic, major version)."""

    code = "payload_schema_invalid"

    def __init__(self, detail: str, *, errors: list[dict[str, str]], **extra: Any) -> None:
        super().__init__(detail, field="payload", errors=errors, **extra)


class PayloadTooComplex(ValidationError):
    """Validating this payload with its schema would cost more than one event may (the work
    bound of docs/event-types.md); refused before any validation runs."""

    code = "payload_too_complex"


class EventVersionUndeclared(ValidationError):
    """The topic has a type, but not this major version."""

    code = "event_version_undeclared"


class EventTypeNotFound(NotFound):
    code = "event_type_not_found"
