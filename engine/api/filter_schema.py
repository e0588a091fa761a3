"""The JSON Schema of a ``filters`` array (DESIGN.md section 16) for the OpenAPI document.

The request types decode ``filters`` as a JSON array (``engine/filters`` checks each
expression and answers 400 with its code, dialect, path and position); the document shows
what the array holds: one filter expression per element, an object of exactly one dialect.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FILTER_SCHEMAS", "declare_filters"]

_REF = {"$ref": "#/components/schemas/FilterExpression"}
_ATTRIBUTES = {
    "type": "object",
    "minProperties": 1,
    "propertyNames": {"minLength": 1},
    "additionalProperties": {"type": "string", "minLength": 1},
    "description": "CloudEvents attribute name to a String value (DESIGN.md 16's mapping)",
}


#: component schemas the document gains
FILTER_SCHEMAS: dict[str, Any] = {
    "FilterExpression": {
        "type": "object",
        "description": "One filter expression: an object of exactly one dialect. The "
        "CloudEvents Subscriptions API dialects (exact, prefix, suffix, all, any, not, sql: "
        "CESQL 1.0) read the event's CloudEvents attributes; match (Hookdeck's JSON match "
        "syntax) reads {id, topic, time, metadata, data}",
        "minProperties": 1,
        "maxProperties": 1,
        "properties": {
            "exact": {**_ATTRIBUTES, "description": "every attribute equals its value"},
            "prefix": {**_ATTRIBUTES, "description": "every attribute starts with its value"},
            "suffix": {**_ATTRIBUTES, "description": "every attribute ends with its value"},
            "all": {"type": "array", "minItems": 1, "items": _REF, "description": "all hold"},
            "any": {"type": "array", "minItems": 1, "items": _REF, "description": "one holds"},
            "not": {**_REF, "description": "the expression does not hold"},
            "sql": {
                "type": "string",
                "maxLength": 4096,
                "description": "a CESQL 1.0 expression: holds when its value is Boolean TRUE "
                "without error",
            },
            "match": {
                "type": "object",
                "description": "a JSON match document ($eq $neq $gt $gte $lt $lte $in $nin "
                "$startsWith $endsWith $exist $or $and $not)",
                # a match document is any JSON object: paths of the matched document, operators
                "additionalProperties": True,
            },
        },
        "additionalProperties": False,
    },
    "FilterCloudEvent": {
        "type": "object",
        "description": "A CloudEvent in the JSON format, as filters read it: its attributes "
        "(a value that is not a Boolean, 32-bit Integer or String reads as its JSON text) and "
        "data",
        "required": ["specversion", "id", "source", "type"],
        "properties": {
            "specversion": {},
            "id": {"type": "string", "minLength": 1},
            "source": {"type": "string", "minLength": 1},
            "type": {"type": "string", "minLength": 1},
        },
    },
    "Filters": {
        "type": "array",
        "maxItems": 64,
        "items": _REF,
        "description": "filter expressions that must all hold (empty: every event)",
    },
}

#: (schema, property) whose ``filters`` array the document describes in full
_FIELDS = (
    ("SubscriptionCreate", "filters"),
    ("SubscriptionPatch", "filters"),
    ("FiltersEvaluate", "filters"),
    ("Subscription", "filters"),
    ("SubscriptionCreated", "filters"),
    ("SubscriptionChallenged", "filters"),
    ("SearchIn", "filters"),
    ("ReplayIn", "filters"),
)


def declare_filters(schemas: dict[str, Any]) -> None:
    """Add the filter schemas and point every ``filters`` property at them (and the evaluate
    route's ``event`` at the two forms it reads)."""
    schemas.update(FILTER_SCHEMAS)
    evaluate = schemas.get("FiltersEvaluate", {}).get("properties", {})
    if "event" in evaluate:
        evaluate["event"] = {
            "description": "a hookproof event (the POST /v1/events body; occurredAt defaults "
            "to now) or a CloudEvent in JSON (it has specversion)",
            "anyOf": [
                {"$ref": "#/components/schemas/EventIn"},
                {"$ref": "#/components/schemas/FilterCloudEvent"},
            ],
        }
    for name, prop in _FIELDS:
        properties = schemas.get(name, {}).get("properties", {})
        if prop not in properties:
            continue
        current = properties[prop]
        ref = {"$ref": "#/components/schemas/Filters"}
        if "anyOf" in current:  # nullable: null removes the filters
            properties[prop] = {**current, "anyOf": [ref, {"type": "null"}]}
        else:
            properties[prop] = {**{k: v for k, v in current.items() if k != "type"}, **ref}
