"""CESQL 1.0 (CloudEvents SQL): parse once with :func:`compile_cesql`, evaluate many times.

``evaluate`` returns the value and the error together, as the TCK states them; ``matches``
is the filter's answer (the ``sql`` dialect of the Subscriptions API): true only when the
value, coerced to Boolean, is TRUE and no error arose.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from hookproof.engine.filters.cesql_ast import Node, Value
from hookproof.engine.filters.cesql_compile import compile_node, static_type
from hookproof.engine.filters.cesql_parser import parse
from hookproof.engine.filters.cesql_types import CesqlError, Failure, zero
from hookproof.engine.filters.errors import FILTER_INVALID, FilterError

__all__ = ["MAX_EXPRESSION_LENGTH", "CesqlExpression", "CesqlResult", "compile_cesql"]

#: the longest expression accepted, in characters
MAX_EXPRESSION_LENGTH = 4096


@dataclass(frozen=True, slots=True)
class CesqlResult:
    value: Value
    error: CesqlError | None = None


class CesqlExpression:
    """A compiled expression. Immutable; safe to share between tasks."""

    __slots__ = ("_fn", "_zero", "root", "source")

    def __init__(self, source: str, root: Node) -> None:
        self.source = source
        self.root = root
        self._fn = compile_node(root)
        kind = static_type(root)
        self._zero: Value = False if kind is None else zero(kind)

    def evaluate(self, attributes: Mapping[str, Value]) -> CesqlResult:
        """The value and the first error (None when there was none)."""
        try:
            return CesqlResult(self._fn(attributes))
        except Failure as failed:
            value = failed.value if failed.origin is self.root else self._zero
            return CesqlResult(value, failed.error)
        except Exception as unexpected:  # an attribute of no CESQL type, say: never a crash
            detail = f"evaluation failed: {type(unexpected).__name__}"
            return CesqlResult(self._zero, CesqlError("generic", detail))

    def matches(self, attributes: Mapping[str, Value]) -> bool:
        """The filter's answer: the value coerced to Boolean is TRUE, and nothing erred."""
        try:
            value = self._fn(attributes)
        except Exception:  # an error (Failure) or a generic one: false, as a filter
            return False
        return value is True or (type(value) is str and value.lower() == "true")

    def __repr__(self) -> str:
        return f"CesqlExpression({self.source!r})"


def compile_cesql(source: str) -> CesqlExpression:
    """Parse and compile ``source``; a :class:`FilterError` (``filter_parse_error`` with the
    ``position``) when it is not a CESQL 1.0 expression."""
    if len(source) > MAX_EXPRESSION_LENGTH:
        raise FilterError(
            f"a CESQL expression is at most {MAX_EXPRESSION_LENGTH} characters",
            code=FILTER_INVALID,
            dialect="sql",
        )
    return CesqlExpression(source, parse(source))
