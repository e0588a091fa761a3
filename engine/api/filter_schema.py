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


def _one(name: str, schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {
        "type": "object",
        "description": description,
        "properties": {name: schema},
        "required": [name],
        "additionalProperties": False,
    }


#: component schemas the document gains
FILTER_SCHEMAS: dict[str, Any] = {
    "FilterExpression": {
        "description": "One filter expression: the CloudEvents Subscriptions API dialects over "
        "the event's CloudEvents attributes, or match (Hookdeck's JSON match syntax) over "
        "{id, topic, time, metadata, data}",
        "oneOf": [
            _one("exact", _ATTRIBUTES, "every attribute equals its value"),
            _one("prefix", _ATTRIBUTES, "every attribute starts with its value"),
            _one("suffix", _ATTRIBUTES, "every attribute ends with its value"),
            _one("all", {"type": "array", "minItems": 1, "items": _REF}, "all hold"),
            _one("any", {"type": "array", "minItems": 1, "items": _REF}, "one holds"),
            _one("not", _REF, "the expression does not hold"),
            _one(
                "sql",
                {"type": "string", "maxLength": 4096},
                "a CESQL 1.0 expression: holds when its value is Boolean TRUE without error",
            ),
            _one(
                "match",
                {"type": "object", "description": "a JSON match document"},
                "Hookdeck's JSON match syntax ($eq $neq $gt $gte $lt $lte $in $nin "
                "$startsWith $endsWith $exist $or $and $not)",
            ),
        ],
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
