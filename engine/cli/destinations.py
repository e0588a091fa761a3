"""``hookproof destinations list``: the destination kinds installed (the
``hookproof.destinations`` entry points, DESIGN.md section 15) with their ``destination``
fields; read from the registry, no database."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Any

from hookproof.config import Settings

from ..destinations.kind import KindSpec
from ..destinations.registry import installed
from .help import add_command

__all__ = ["kind_view", "register"]


def kind_view(kind: KindSpec) -> dict[str, Any]:
    """One kind as the command shows it (``--json``: the same, one object per kind)."""
    return {
        "name": kind.name,
        "summary": kind.summary,
        "default": kind.default,
        "signsOwnForm": kind.signs_own_form,
        "evidence": list(kind.evidence),
        "fields": [
            {
                "name": f.name,
                "type": f.type,
                "required": f.required,
                "secret": f.secret,
                "bound": f.bound,
                "description": f.description,
            }
            for f in kind.fields
        ],
    }


def _field_text(field: dict[str, Any]) -> str:
    marks = [field["type"]]
    if not field["required"]:
        marks.append("optional")
    if field["secret"]:
        marks.append("write-only")
    return f"{field['name']} ({', '.join(marks)})"


async def cmd_destinations_list(args: argparse.Namespace, settings: Settings) -> int:
    views = [kind_view(kind) for kind in installed()]
    if args.json:
        print(json.dumps({"kinds": views}, indent=2))
        return 0
    for view in views:
        fields = ", ".join(_field_text(f) for f in view["fields"])
        default = " (default: no destination object)" if view["default"] else ""
        print(f"{view['name']}{default}: {view['summary']}")
        print(f"  fields: {fields or '-'}")
    return 0


def register(
    sub: argparse._SubParsersAction,  # type: ignore[type-arg]
    add_json: Callable[[argparse.ArgumentParser], None],
) -> None:
    group = add_command(sub, "destinations", help="destination kinds")
    dsub = group.add_subparsers(dest="destinations_cmd", required=True)
    p = add_command(
        dsub, "list", help="the destination kinds installed, with their destination fields"
    )
    add_json(p)
    p.set_defaults(handler=cmd_destinations_list)
