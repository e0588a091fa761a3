"""A definition as ``PUT /v1/event-types/{topic}`` gives it: checked, compiled, digested.

Nothing here writes: a definition that fails any check is refused whole (``schema_invalid``,
``pattern_too_complex``, ``example_invalid`` or ``invalid_request``) before anything reaches
the log. Validating the examples is the one step left to the caller (``examples``): it may
be dear, so the service runs it through the off-loop validator (``offload``).
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

import msgspec

from hookproof.errors import ValidationError
from hookproof.events.canonical import canonical_json
from hookproof.schemas.api import EventTypeIn

from ..notifications.decide import is_notification_topic
from .errors import ExampleInvalid
from .limits import MAX_VERSIONS, MAX_WORK, Compiled, compile_schema

__all__ = [
    "MAX_DESCRIPTION",
    "RESERVED_TOPICS",
    "TOPIC",
    "CheckedDefinition",
    "check",
    "check_topic",
    "digest_of",
    "example_invalid",
]

#: a typed topic: what a path parameter may be (no ``*``: a type names one topic)
TOPIC = re.compile(r"^[A-Za-z0-9._:\-]{1,200}$")
_MAJOR = re.compile(r"^(0|[1-9][0-9]{0,4})$")
MAX_DESCRIPTION = 2_000
#: ``openapi.json`` is the export's own path under ``/v1/event-types/``
RESERVED_TOPICS = frozenset({"openapi.json"})


@dataclass(frozen=True)
class CheckedDefinition:
    description: str
    versions: dict[str, tuple[Any, Any]]  # major (canonical decimal) -> (schema, example)
    deprecated: bool
    digest: str
    validators: dict[int, Compiled]

    def examples(self) -> list[tuple[str, Compiled, Any, bytes]]:
        """Each version's (major, compiled schema, example, canonical example) to validate,
        in major order; each is priced within the work bound already."""
        return [
            (major, self.validators[int(major)], example, canonical_json(example))
            for major, (_schema, example) in self.versions.items()
        ]


def check_topic(topic: str) -> str:
    if not TOPIC.match(topic):
        raise ValidationError("topic must be 1..200 of [A-Za-z0-9._:-]", field="topic")
    if is_notification_topic(topic) or topic in RESERVED_TOPICS:
        raise ValidationError(
            f"topic {topic!r} is reserved (the engine's own notifications and paths)",
            field="topic",
            code="reserved_topic",
        )
    return topic


def digest_of(description: str, versions: dict[str, tuple[Any, Any]], deprecated: bool) -> str:
    doc = {
        "description": description,
        "versions": {m: {"schema": s, "example": e} for m, (s, e) in versions.items()},
        "deprecated": deprecated,
    }
    return hashlib.sha256(canonical_json(doc)).hexdigest()


def example_invalid(major: str, errors: list[dict[str, str]]) -> ExampleInvalid:
    return ExampleInvalid(
        f"the example of major version {major} does not validate against its schema",
        field=f"versions.{major}.example",
        errors=errors,
    )


def check(body: EventTypeIn) -> CheckedDefinition:
    """Every check a definition must pass but its examples' validation (``examples``), in
    order; the first failure is the answer."""
    if len(body.description) > MAX_DESCRIPTION:
        raise ValidationError(
            f"description is at most {MAX_DESCRIPTION} characters", field="description"
        )
    if not body.versions:
        raise ValidationError("a type declares at least one major version", field="versions")
    if len(body.versions) > MAX_VERSIONS:
        raise ValidationError(
            f"a type declares at most {MAX_VERSIONS} major versions", field="versions"
        )
    versions: dict[str, tuple[Any, Any]] = {}
    validators: dict[int, Compiled] = {}
    for major in sorted(body.versions, key=lambda m: (len(m), m)):
        if not _MAJOR.match(major):
            raise ValidationError(
                f"version keys are major versions (0..99999 without leading zeros): {major!r}",
                field="versions",
            )
        v = body.versions[major]
        field = f"versions.{major}"
        compiled = compile_schema(v.schema, field=f"{field}.schema", defining=True)
        if v.example is msgspec.UNSET:
            raise ValidationError("each version needs an example", field=f"{field}.example")
        encoded = canonical_json(v.example)
        if compiled.work(encoded) > MAX_WORK:
            raise ExampleInvalid(
                f"the example of major version {major} costs more than {MAX_WORK} work units "
                "to validate (values x subschemas + each regex's weight x bytes)",
                field=f"{field}.example",
                errors=[],
            )
        versions[major] = (v.schema, v.example)
        validators[int(major)] = compiled
    return CheckedDefinition(
        body.description,
        versions,
        body.deprecated,
        digest_of(body.description, versions, body.deprecated),
        validators,
    )
