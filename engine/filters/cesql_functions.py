"""CESQL 1.0's built-in functions: their signatures (by name and arity) and their bodies.

A body takes arguments already cast to its parameter types and returns a value, or raises
:class:`FunctionFailure` with the value it returns along with the error (``LEFT('abc', -2)``
is ``'abc'`` and a ``functionEvaluation`` error; ``ABS(-2147483648)`` is ``2147483647`` and a
``math`` error).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from typing import Literal as TypingLiteral

from hookproof.engine.filters.cesql_ast import Value
from hookproof.engine.filters.cesql_types import (
    ErrorKind,
    TypeName,
    bool_from_string,
    int_from_string,
    to_str,
)

__all__ = ["BUILTINS", "Builtin", "FunctionFailure", "ParamType", "lookup"]

ParamType = TypeName | TypingLiteral["Any"]
_INT_MAX = 2**31 - 1


class FunctionFailure(Exception):
    def __init__(self, kind: ErrorKind, detail: str, value: Value) -> None:
        super().__init__(detail)
        self.kind: ErrorKind = kind
        self.detail = detail
        self.value = value


@dataclass(frozen=True, slots=True)
class Builtin:
    """One overload: fixed ``params``, then any number of ``variadic`` ones (None: none)."""

    params: tuple[ParamType, ...]
    variadic: ParamType | None
    returns: TypeName
    body: Callable[..., Any]

    def accepts(self, arity: int) -> bool:
        if self.variadic is None:
            return arity == len(self.params)
        return arity >= len(self.params)

    def param(self, index: int) -> ParamType:
        if index < len(self.params):
            return self.params[index]
        assert self.variadic is not None
        return self.variadic


def _abs(x: int) -> int:
    if x == -(2**31):
        raise FunctionFailure("math", "ABS of -2147483648 overflows 32 bits", _INT_MAX)
    return abs(x)


def _left(x: str, y: int) -> str:
    if y < 0:
        raise FunctionFailure("functionEvaluation", "LEFT with a negative length", x)
    return x[:y]


def _right(x: str, y: int) -> str:
    if y < 0:
        raise FunctionFailure("functionEvaluation", "RIGHT with a negative length", x)
    return x[len(x) - y :] if y < len(x) else x


def _substring(x: str, pos: int, length: int | None = None) -> str:
    n = len(x)
    if pos > n or pos < -n:
        raise FunctionFailure("functionEvaluation", "SUBSTRING position out of range", "")
    if length is not None and length < 0:
        raise FunctionFailure("functionEvaluation", "SUBSTRING with a negative length", "")
    if pos == 0:
        return ""
    start = pos - 1 if pos > 0 else n + pos
    return x[start:] if length is None else x[start : start + length]


def _int(x: Value) -> int:
    if isinstance(x, bool):
        return 1 if x else 0
    if isinstance(x, int):
        return x
    parsed = int_from_string(x)
    if parsed is None:
        raise FunctionFailure("cast", "INT of a String that is not an integer", 0)
    return parsed


def _bool(x: Value) -> bool:
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x != 0
    parsed = bool_from_string(x)
    if parsed is None:
        raise FunctionFailure("cast", "BOOL of a String that is not true or false", False)
    return parsed


def _is_bool(x: Value) -> bool:
    return isinstance(x, bool) or (isinstance(x, str) and bool_from_string(x) is not None)


def _is_int(x: Value) -> bool:
    if isinstance(x, bool):
        return False
    return isinstance(x, int) or int_from_string(x) is not None


BUILTINS: dict[str, tuple[Builtin, ...]] = {
    "ABS": (Builtin(("Integer",), None, "Integer", _abs),),
    "LENGTH": (Builtin(("String",), None, "Integer", len),),
    "CONCAT": (Builtin((), "String", "String", lambda *xs: "".join(xs)),),
    "CONCAT_WS": (Builtin(("String",), "String", "String", lambda d, *xs: d.join(xs)),),
    "LOWER": (Builtin(("String",), None, "String", str.lower),),
    "UPPER": (Builtin(("String",), None, "String", str.upper),),
    "TRIM": (Builtin(("String",), None, "String", str.strip),),
    "LEFT": (Builtin(("String", "Integer"), None, "String", _left),),
    "RIGHT": (Builtin(("String", "Integer"), None, "String", _right),),
    "SUBSTRING": (
        Builtin(("String", "Integer"), None, "String", _substring),
        Builtin(("String", "Integer", "Integer"), None, "String", _substring),
    ),
    "INT": (Builtin(("Any",), None, "Integer", _int),),
    "BOOL": (Builtin(("Any",), None, "Boolean", _bool),),
    "STRING": (Builtin(("Any",), None, "String", to_str),),
    "IS_BOOL": (Builtin(("Any",), None, "Boolean", _is_bool),),
    "IS_INT": (Builtin(("Any",), None, "Boolean", _is_int),),
}


def lookup(name: str, arity: int) -> Builtin | None:
    """The overload of ``name`` (upper case) that takes ``arity`` arguments, if any."""
    for overload in BUILTINS.get(name, ()):
        if overload.accepts(arity):
            return overload
    return None
