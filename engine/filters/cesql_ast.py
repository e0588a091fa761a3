"""The typed syntax tree of a CESQL 1.0 expression (``cesql/CESQLParser.g4``).

Every node records ``pos``, the 0-based character offset where it starts in the source, so
an evaluation error can say where it arose. Values are Python ``bool``, ``int`` (32-bit
signed) and ``str``: the three CESQL types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal as TypingLiteral

__all__ = [
    "Attribute",
    "Binary",
    "BinaryOp",
    "Call",
    "Exists",
    "In",
    "Like",
    "Literal",
    "Node",
    "Unary",
    "Value",
]

#: a CESQL value: Boolean, Integer or String
Value = bool | int | str

BinaryOp = TypingLiteral[
    "AND", "OR", "XOR", "=", "!=", "<>", "<", "<=", ">", ">=", "+", "-", "*", "/", "%"
]


@dataclass(frozen=True, slots=True, eq=False)
class Literal:
    value: Value
    pos: int


@dataclass(frozen=True, slots=True, eq=False)
class Attribute:
    """A context attribute or extension, by name (CloudEvents names: ``[a-z0-9]+``)."""

    name: str
    pos: int


@dataclass(frozen=True, slots=True, eq=False)
class Exists:
    name: str
    pos: int


@dataclass(frozen=True, slots=True, eq=False)
class Unary:
    op: TypingLiteral["NOT", "-"]
    operand: Node
    pos: int


@dataclass(frozen=True, slots=True, eq=False)
class Binary:
    op: BinaryOp
    left: Node
    right: Node
    pos: int


@dataclass(frozen=True, slots=True, eq=False)
class Like:
    operand: Node
    pattern: str
    pos: int


@dataclass(frozen=True, slots=True, eq=False)
class In:
    operand: Node
    items: tuple[Node, ...]
    pos: int


@dataclass(frozen=True, slots=True, eq=False)
class Call:
    """A function invocation; ``name`` is upper-cased (function names are case-insensitive)."""

    name: str
    args: tuple[Node, ...]
    pos: int


Node = Literal | Attribute | Exists | Unary | Binary | Like | In | Call
