"""CESQL's types, its implicit casts and its error kinds (the TCK's names).

An evaluation that errs still has a value: the operator or function that met the error
gives its own result (a failed cast counts as the zero value of the type it aimed at), and
every operator above it gives the zero value of its return type with the same error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal as TypingLiteral

from hookproof.engine.filters.cesql_ast import Node, Value

__all__ = [
    "ERROR_KINDS",
    "CesqlError",
    "ErrorKind",
    "Failure",
    "TypeName",
    "bool_from_string",
    "int_from_string",
    "to_bool",
    "to_int",
    "to_str",
    "type_name",
    "zero",
]

ErrorKind = TypingLiteral[
    "parse",
    "math",
    "cast",
    "missingFunction",
    "functionEvaluation",
    "missingAttribute",
    "generic",
]
ERROR_KINDS: tuple[ErrorKind, ...] = (
    "parse",
    "math",
    "cast",
    "missingFunction",
    "functionEvaluation",
    "missingAttribute",
    "generic",
)
TypeName = TypingLiteral["Boolean", "Integer", "String"]

_INT = re.compile(r"[+-]?[0-9]+")
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1


@dataclass(frozen=True, slots=True)
class CesqlError:
    """One evaluation error: its ``kind`` and a ``detail`` that names types and positions,
    never the event's values."""

    kind: ErrorKind
    detail: str


class Failure(Exception):
    """Raised inside a compiled expression: ``value`` is what the node ``origin`` itself
    returns along with the error."""

    __slots__ = ("error", "origin", "value")

    def __init__(self, error: CesqlError, value: Value, origin: Node) -> None:
        super().__init__(error.detail)
        self.error = error
        self.value = value
        self.origin = origin


def type_name(value: Value) -> TypeName:
    if type(value) is bool:
        return "Boolean"
    if type(value) is int:
        return "Integer"
    return "String"


def zero(name: TypeName) -> Value:
    return False if name == "Boolean" else 0 if name == "Integer" else ""


def int_from_string(text: str) -> int | None:
    """The 32-bit integer ``text`` spells (an optional sign, then digits), else None."""
    if not _INT.fullmatch(text):
        return None
    value = int(text)
    return value if _INT_MIN <= value <= _INT_MAX else None


def bool_from_string(text: str) -> bool | None:
    lowered = text.lower()
    if lowered == "true":
        return True
    if lowered == "false":
        return False
    return None


def _cast_error(value: Value, target: TypeName, pos: int) -> CesqlError:
    return CesqlError("cast", f"at {pos}: cannot cast this {type_name(value)} to {target}")


def to_int(value: Value, pos: int) -> tuple[int, CesqlError | None]:
    """The implicit cast to Integer: a String that spells one; a Boolean does not cast."""
    if isinstance(value, bool):
        return 0, _cast_error(value, "Integer", pos)
    if isinstance(value, int):
        return value, None
    parsed = int_from_string(value)
    if parsed is None:
        return 0, _cast_error(value, "Integer", pos)
    return parsed, None


def to_bool(value: Value, pos: int) -> tuple[bool, CesqlError | None]:
    """The implicit cast to Boolean: ``true``/``false`` in any case; an Integer does not."""
    if isinstance(value, bool):
        return value, None
    parsed = bool_from_string(value) if isinstance(value, str) else None
    if parsed is None:
        return False, _cast_error(value, "Boolean", pos)
    return parsed, None


def to_str(value: Value) -> str:
    """The cast to String, which never fails: ``true``/``false`` and decimal integers."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
