"""One filter expression of a ``filters`` array, compiled: the CloudEvents Subscriptions API
dialects (``exact``, ``prefix``, ``suffix``, ``all``, ``any``, ``not``, ``sql``; section
3.2.4.1) and hookproof's ``match`` (Hookdeck's JSON match syntax).

``matches`` is the fast answer (short-circuits); ``evaluate`` is the answer with its
evidence: the value and the first error, as ``POST /v1/filters/evaluate`` reports them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from hookproof.engine.filters.attributes import FilterEvent
from hookproof.engine.filters.cesql import CesqlExpression, compile_cesql
from hookproof.engine.filters.cesql_ast import Value
from hookproof.engine.filters.cesql_types import CesqlError, to_str
from hookproof.engine.filters.errors import (
    FILTER_INVALID,
    FILTER_INVALID_MATCH,
    FILTER_UNKNOWN_DIALECT,
    FilterError,
)
from hookproof.engine.filters.match import MatchDocument, compile_match

__all__ = ["DIALECTS", "MAX_NESTING", "CompiledFilter", "FilterResult", "compile_filter"]

DIALECTS = ("exact", "prefix", "suffix", "all", "any", "not", "sql", "match")
#: how deeply ``all``, ``any`` and ``not`` may nest
MAX_NESTING = 16


@dataclass(frozen=True, slots=True)
class FilterResult:
    """One expression's answer: ``value`` (a CESQL value for ``sql``, else the Boolean),
    the first ``error`` met while evaluating it (``sql`` only), and whether it ``matched``."""

    value: Value
    matched: bool
    error: CesqlError | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"value": self.value}
        if self.error is not None:
            out["error"] = {"kind": self.error.kind, "detail": self.error.detail}
        return out


class CompiledFilter(Protocol):
    @property
    def dialect(self) -> str: ...

    def matches(self, event: FilterEvent) -> bool: ...

    def evaluate(self, event: FilterEvent) -> FilterResult: ...


@dataclass(frozen=True, slots=True)
class _Attributes:
    """``exact``, ``prefix``, ``suffix``: every named attribute, read as a String."""

    dialect: str
    wanted: tuple[tuple[str, str], ...]

    def matches(self, event: FilterEvent) -> bool:
        attributes = event.attributes
        for name, text in self.wanted:
            value = attributes.get(name)
            if value is None:
                return False
            actual = to_str(value)
            if self.dialect == "exact":
                ok = actual == text
            elif self.dialect == "prefix":
                ok = actual.startswith(text)
            else:
                ok = actual.endswith(text)
            if not ok:
                return False
        return True

    def evaluate(self, event: FilterEvent) -> FilterResult:
        matched = self.matches(event)
        return FilterResult(matched, matched)


@dataclass(frozen=True, slots=True)
class _Nested:
    """``all``, ``any`` (of an array) and ``not`` (of one expression)."""

    dialect: str
    children: tuple[CompiledFilter, ...]

    def matches(self, event: FilterEvent) -> bool:
        if self.dialect == "all":
            return all(child.matches(event) for child in self.children)
        if self.dialect == "any":
            return any(child.matches(event) for child in self.children)
        return not self.children[0].matches(event)

    def evaluate(self, event: FilterEvent) -> FilterResult:
        results = [child.evaluate(event) for child in self.children]
        if self.dialect == "all":
            matched = all(r.matched for r in results)
        elif self.dialect == "any":
            matched = any(r.matched for r in results)
        else:
            matched = not results[0].matched
        error = next((r.error for r in results if r.error is not None), None)
        return FilterResult(matched, matched, error)


@dataclass(frozen=True, slots=True)
class _Sql:
    dialect: str
    expression: CesqlExpression

    def matches(self, event: FilterEvent) -> bool:
        return self.expression.matches(event.attributes)

    def evaluate(self, event: FilterEvent) -> FilterResult:
        result = self.expression.evaluate(event.attributes)
        value = result.value
        matched = result.error is None and (
            value is True or (isinstance(value, str) and value.lower() == "true")
        )
        return FilterResult(value, matched, result.error)


@dataclass(frozen=True, slots=True)
class _Match:
    dialect: str
    document: MatchDocument

    def matches(self, event: FilterEvent) -> bool:
        return self.document.matches(event.document)

    def evaluate(self, event: FilterEvent) -> FilterResult:
        matched = self.matches(event)
        return FilterResult(matched, matched)


def _invalid(detail: str, dialect: str | None, path: str) -> FilterError:
    return FilterError(detail, code=FILTER_INVALID, dialect=dialect, path=path)


def _attributes(dialect: str, body: Any, path: str) -> CompiledFilter:
    if not isinstance(body, dict) or not body:
        raise _invalid(f"{dialect} takes an object of attribute names and strings", dialect, path)
    wanted = []
    for name, text in body.items():
        here = f"{path}/{str(name).replace('~', '~0').replace('/', '~1')}"
        if not isinstance(name, str) or not name or not isinstance(text, str) or not text:
            raise _invalid(
                f"{dialect}: attribute names and values are non-empty strings", dialect, here
            )
        wanted.append((name, text))
    return _Attributes(dialect, tuple(wanted))


def compile_filter(expression: Any, path: str = "", depth: int = 0) -> CompiledFilter:
    """Compile one filter expression ``{"<dialect>": <body>}``; ``path`` is its JSON Pointer,
    which a :class:`FilterError` reports."""
    if not isinstance(expression, dict) or len(expression) != 1:
        raise _invalid("a filter expression is an object with one key, its dialect", None, path)
    ((dialect, body),) = expression.items()
    if not isinstance(dialect, str) or dialect not in DIALECTS:
        shown = str(dialect) if len(str(dialect)) <= 64 else str(dialect)[:64] + "..."
        raise FilterError(
            f"unknown filter dialect {shown!r} (known: {', '.join(DIALECTS)})",
            code=FILTER_UNKNOWN_DIALECT,
            dialect=shown,
            path=path,
        )
    here = f"{path}/{dialect}"
    if dialect in ("exact", "prefix", "suffix"):
        return _attributes(dialect, body, here)
    if dialect in ("all", "any", "not"):
        if depth >= MAX_NESTING:
            raise _invalid(f"filters nest deeper than {MAX_NESTING}", dialect, here)
        if dialect == "not":
            return _Nested("not", (compile_filter(body, here, depth + 1),))
        if not isinstance(body, list) or not body:
            raise _invalid(f"{dialect} takes a non-empty array of filters", dialect, here)
        children = tuple(
            compile_filter(item, f"{here}/{i}", depth + 1) for i, item in enumerate(body)
        )
        return _Nested(dialect, children)
    if dialect == "sql":
        if not isinstance(body, str):
            raise _invalid("sql takes a string, a CESQL expression", dialect, here)
        try:
            return _Sql("sql", compile_cesql(body))
        except FilterError as refused:
            raise refused.at(here) from refused
    if not isinstance(body, dict):
        raise FilterError(
            "a match document is a JSON object",
            code=FILTER_INVALID_MATCH,
            dialect="match",
            path=here,
        )
    try:
        return _Match("match", compile_match(body))
    except FilterError as refused:
        raise refused.at(here) from refused
