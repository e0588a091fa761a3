"""The engine's parts are typed and declared once (engine/services.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from hookproof.engine.services import Services

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


def test_parts_are_set_by_name_and_absent_ones_say_so() -> None:
    s = Services()
    ring = object()
    s.keyring = ring  # type: ignore[assignment]
    assert s.keyring is ring and s["keyring"] is ring and s.get("keyring") is ring
    assert "keyring" in s and "dispatcher" not in s and s.get("dispatcher") is None
    with pytest.raises(AttributeError, match="not installed"):
        _ = s.dispatcher
    with pytest.raises(AttributeError, match="not a declared part"):
        s.mystery = 1  # type: ignore[attr-defined]
    with pytest.raises(KeyError):
        _ = s["dispatcher"]
    assert s.installed() == {"keyring"}
