"""The ``destination`` objects of installed kinds in the served API document (DESIGN.md 15):
each kind that declares its members (:attr:`~..destinations.kind.KindSpec.fields`) and is
not one of the built-in destinations the schemas describe gets its own closed object in
``SubscriptionCreate.destination`` (a secret member ``writeOnly``), and its public members
join ``DestinationView``. Generated from the registry, so the document a running engine
serves describes exactly the kinds it has installed."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from hookproof.schemas.destinations import DESTINATION_TYPES

from ..destinations.kind import KindSpec

__all__ = ["declare_kinds"]

_REF = "#/components/schemas/"


def _schema_name(kind: KindSpec) -> str:
    return "KindDestinationIn_" + re.sub(r"[^A-Za-z0-9_]", "_", kind.name)


def _object(kind: KindSpec) -> dict[str, Any]:
    properties: dict[str, Any] = {"type": {"enum": [kind.name]}}
    for f in kind.fields:
        member: dict[str, Any] = {"type": f.type}
        if f.description:
            member["description"] = f.description
        if f.secret:
            member["writeOnly"] = True
        properties[f.name] = member
    return {
        "title": _schema_name(kind),
        "description": kind.summary,
        "type": "object",
        "properties": properties,
        "required": ["type", *(f.name for f in kind.fields if f.required)],
        "additionalProperties": False,
    }


def declare_kinds(schemas: dict[str, Any], kinds: Iterable[KindSpec]) -> None:
    """Add each declared kind's object to the registration's ``destination`` and its
    public members to ``DestinationView``."""
    declared = [k for k in kinds if not k.default and k.name not in DESTINATION_TYPES and k.fields]
    create = schemas.get("SubscriptionCreate", {}).get("properties", {}).get("destination")
    view = schemas.get("DestinationView", {}).get("properties")
    if not declared or create is None or view is None:
        return
    union = next((part for part in create.get("anyOf", ()) if "discriminator" in part), None)
    if union is None:
        return
    members = union["oneOf"] if "oneOf" in union else union["anyOf"]  # the tagged union's
    for kind in declared:
        name = _schema_name(kind)
        schemas[name] = _object(kind)
        members.append({"$ref": _REF + name})
        union["discriminator"]["mapping"][kind.name] = _REF + name
        view["type"]["enum"] = [*view["type"]["enum"], kind.name]
        for f in kind.fields:
            if not f.secret and f.name not in view:
                view[f.name] = {"type": f.type}
