"""The engine's parts are typed, declared once (engine/runtime/services.py) and set once."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from hookproof.engine.runtime.services import Services

ROOT = Path(__file__).resolve().parents[1]


def _part_names_used() -> set[tuple[str, str]]:
    used: set[tuple[str, str]] = set()
    for folder in ("engine", "tests", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                target = None
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Attribute):
                    if node.value.attr == "services" and node.attr not in dir(Services):
                        target = node.attr
                elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute):
                    if node.value.attr == "services" and isinstance(node.slice, ast.Constant):
                        target = str(node.slice.value)
                if target is not None:
                    used.add((f"{path.relative_to(ROOT)}:{node.lineno}", target))
    return used


def test_every_part_used_is_declared() -> None:
    undeclared = sorted(
        f"{where} {name}" for where, name in _part_names_used() if name not in Services.names()
    )
    assert undeclared == []


def test_parts_are_typed_fields_set_once_and_absent_ones_are_none() -> None:
    """No bag: the parts are the constructor's fields (no dictionary interface), assigning one
    afterwards raises, and a part a role leaves out is None in its typed field."""
    required = [f.name for f in dataclasses.fields(Services) if f.default is dataclasses.MISSING]
    optional = {f.name for f in dataclasses.fields(Services)} - set(required)
    assert optional == {"archiver"}
    parts = {name: object() for name in required}
    s = Services(**parts)  # type: ignore[arg-type]
    assert s.dispatcher is parts["dispatcher"] and s.archiver is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.keyring = object()  # type: ignore[misc, assignment]
    with pytest.raises((AttributeError, TypeError)):
        s.mystery = 1  # type: ignore[attr-defined]
    for dict_like in ("__getitem__", "__setitem__", "__contains__", "get", "update", "installed"):
        assert not hasattr(s, dict_like), dict_like
    with pytest.raises(TypeError):
        Services(**{k: v for k, v in parts.items() if k != "dispatcher"})  # type: ignore[arg-type]
