"""The benchmark order: a ~1 KiB payload and its schema, 15 constrained top-level fields
(shared by bench_event_types.py and bench_validators.py)."""

from __future__ import annotations

from typing import Any

__all__ = ["ORDER_SCHEMA", "order_payload"]

_LINE = {
    "type": "object",
    "required": ["sku", "quantity", "unitPrice", "title"],
    "additionalProperties": False,
    "properties": {
        "sku": {"type": "string", "pattern": "^SKU-[0-9]{6}$"},
        "quantity": {"type": "integer", "minimum": 1, "maximum": 1000},
        "unitPrice": {"type": "number", "minimum": 0},
        "title": {"type": "string", "minLength": 1, "maxLength": 200},
    },
}

ORDER_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "additionalProperties": False,
    "required": [
        "orderId",
        "customerId",
        "status",
        "currency",
        "total",
        "subtotal",
        "tax",
        "createdAt",
        "email",
        "country",
        "channel",
        "shipping",
        "lines",
    ],
    "properties": {
        "orderId": {"type": "string", "pattern": "^ord_[0-9a-f]{16}$"},
        "customerId": {"type": "string", "pattern": "^cus_[0-9]{6}$"},
        "status": {"enum": ["created", "paid", "shipped", "cancelled"]},
        "currency": {"enum": ["EUR", "USD", "GBP", "JPY"]},
        "total": {"type": "number", "minimum": 0},
        "subtotal": {"type": "number", "minimum": 0},
        "tax": {"type": "number", "minimum": 0},
        "createdAt": {"type": "string", "maxLength": 40},
        "email": {"type": "string", "maxLength": 254, "pattern": "^[^@\\s]+@[^@\\s]+$"},
        "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
        "channel": {"enum": ["web", "app", "pos", "api"]},
        "couponCode": {"type": ["string", "null"], "maxLength": 32},
        "notes": {"type": "string", "maxLength": 500},
        "shipping": {
            "type": "object",
            "required": ["name", "street", "city", "postalCode", "country"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string", "minLength": 1, "maxLength": 200},
                "street": {"type": "string", "minLength": 1, "maxLength": 200},
                "city": {"type": "string", "minLength": 1, "maxLength": 100},
                "postalCode": {"type": "string", "pattern": "^[0-9A-Z -]{3,10}$"},
                "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
            },
        },
        "lines": {"type": "array", "minItems": 1, "maxItems": 100, "items": _LINE},
    },
}


def order_payload(i: int) -> dict[str, Any]:
    """About 1 KiB of canonical JSON; valid against ORDER_SCHEMA."""
    return {
        "orderId": f"ord_{i:016x}",
        "customerId": f"cus_{i % 1_000_000:06d}",
        "status": "paid",
        "currency": "EUR",
        "total": 1234.56,
        "subtotal": 1037.45,
        "tax": 197.11,
        "createdAt": "2026-11-30T10:00:00Z",
        "email": f"buyer{i % 1000}@example.com",
        "country": "DE",
        "channel": "web",
        "couponCode": None,
        "notes": "Leave the parcel with the neighbour at number 19 if nobody answers the door;"
        " the bell is broken, please knock twice. Gift wrap the second item, thanks.",
        "shipping": {
            "name": "Erika Mustermann",
            "street": "Heidestrasse 17",
            "city": "Berlin",
            "postalCode": "10557",
            "country": "DE",
        },
        "lines": [
            {
                "sku": f"SKU-{(i + k) % 1_000_000:06d}",
                "quantity": k + 1,
                "unitPrice": 19.99 + k,
                "title": f"Product number {k} in a plain cardboard box",
            }
            for k in range(4)
        ],
    }
