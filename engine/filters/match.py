"""Hookdeck's JSON match syntax (simple-json-match, the syntax of Outpost's destination
filters), compiled once into closures.

A document matches a JSON value when:

- a primitive (string, number, boolean, null) equals the value, or is an element of it
  when the value is an array; numbers compare by value, never with booleans;
- an object's plain keys each match the value's field of that name (all of them: an
  implicit AND); an array value matches when one of its elements matches all plain keys;
  a primitive value never matches plain keys, nor the empty object;
- an array matches an array value when each of its elements matches some element of it;
- ``$`` keys apply to the value as a whole: ``$eq``/``$neq`` (deep equality), ``$gt``
  ``$gte`` ``$lt`` ``$lte`` (two numbers, or two strings by code point; anything else is
  false), ``$in``/``$nin`` (membership in an array operand, a substring of a string value, an
  element of an array value), ``$startsWith``/``$endsWith`` (a string or any of an array of
  strings), ``$exist`` (the field is present), ``$or``/``$and`` (arrays of documents) and
  ``$not`` (a document).

A missing field matches only ``$exist: false``, ``$neq`` and ``$nin``. ``$ref`` is not
supported (as in Outpost): an unknown ``$`` key is refused when compiled, and so is any
``$`` key inside an operator's operand (operands are plain JSON values).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from hookproof.engine.filters.errors import FILTER_INVALID_MATCH, FilterError

__all__ = ["MAX_MATCH_DEPTH", "OPERATORS", "MatchDocument", "compile_match"]

Matcher = Callable[[Any], bool]
#: how deeply a document may nest
MAX_MATCH_DEPTH = 32
OPERATORS = frozenset(
    {
        "$eq",
        "$neq",
        "$gt",
        "$gte",
        "$lt",
        "$lte",
        "$in",
        "$nin",
        "$startsWith",
        "$endsWith",
        "$exist",
        "$or",
        "$and",
        "$not",
    }
)
_MISSING: Any = object()
_PRIMITIVE = (str, int, float, bool, type(None))


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: numbers by value (never a boolean), objects and arrays deeply."""
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def _order(op: str, value: Any, operand: Any) -> bool:
    if not (
        (isinstance(value, str) and isinstance(operand, str))
        or (_is_number(value) and _is_number(operand))
    ):
        return False
    if op == "$gt":
        return bool(value > operand)
    if op == "$gte":
        return bool(value >= operand)
    if op == "$lt":
        return bool(value < operand)
    return bool(value <= operand)


def _member(value: Any, operand: Any) -> bool | None:
    """``$in``; None where the operand and the value do not combine."""
    if isinstance(operand, list):
        if not isinstance(value, _PRIMITIVE):
            return None
        return any(_equal(value, item) for item in operand)
    if isinstance(value, str):
        return operand in value if isinstance(operand, str) else None
    if isinstance(value, list):
        return any(_equal(item, operand) for item in value)
    return None


def _invalid(detail: str, path: str) -> FilterError:
    return FilterError(detail, code=FILTER_INVALID_MATCH, dialect="match", path=path)


def _pointer(path: str, key: str | int) -> str:
    return f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"


def _operator(op: str, operand: Any, path: str, depth: int) -> Matcher:
    here = _pointer(path, op)
    if op in ("$or", "$and"):
        if not isinstance(operand, list) or not operand:
            raise _invalid(f"{op} takes a non-empty array of documents", here)
        subs = [_compile(s, _pointer(here, i), depth + 1) for i, s in enumerate(operand)]
        if op == "$or":
            return lambda v: any(m(v) for m in subs)
        return lambda v: all(m(v) for m in subs)
    if op == "$not":
        sub = _compile(operand, here, depth + 1)
        return lambda v: not sub(v)
    _check_json(operand, here, depth + 1)
    if op == "$exist":
        if not isinstance(operand, bool):
            raise _invalid("$exist takes true or false", here)
        return lambda v: (v is not _MISSING) is operand
    if op == "$eq":
        return lambda v: v is not _MISSING and _equal(v, operand)
    if op == "$neq":
        return lambda v: v is _MISSING or not _equal(v, operand)
    if op in ("$gt", "$gte", "$lt", "$lte"):
        return lambda v: _order(op, v, operand)
    if op in ("$in", "$nin"):
        inside = op == "$in"

        def member(v: Any) -> bool:
            if v is _MISSING:
                return not inside
            found = _member(v, operand)
            return found is not None and found is inside

        return member
    # $startsWith / $endsWith
    texts = [operand] if isinstance(operand, str) else operand
    if not isinstance(texts, list) or not texts or not all(isinstance(t, str) for t in texts):
        raise _invalid(f"{op} takes a string or a non-empty array of strings", here)
    affixes = tuple(texts)
    if op == "$startsWith":
        return lambda v: isinstance(v, str) and v.startswith(affixes)
    return lambda v: isinstance(v, str) and v.endswith(affixes)


def _check_json(value: Any, path: str, depth: int) -> None:
    if depth > MAX_MATCH_DEPTH:
        raise _invalid(f"the document nests deeper than {MAX_MATCH_DEPTH}", path)
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise _invalid("object keys are strings", path)
            if key.startswith("$"):  # $ref and the like: an operator where a value must be
                raise _invalid(f"unknown operator {key} in an operand", _pointer(path, key))
            _check_json(item, _pointer(path, key), depth + 1)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_json(item, _pointer(path, i), depth + 1)
    elif not isinstance(value, _PRIMITIVE) or (
        isinstance(value, float) and not math.isfinite(value)  # NaN and infinities: no JSON
    ):
        raise _invalid("not a JSON value", path)


def _compile(schema: Any, path: str, depth: int) -> Matcher:
    if depth > MAX_MATCH_DEPTH:
        raise _invalid(f"the document nests deeper than {MAX_MATCH_DEPTH}", path)
    if isinstance(schema, dict):
        return _compile_object(schema, path, depth)
    if isinstance(schema, list):
        subs = [_compile(s, _pointer(path, i), depth + 1) for i, s in enumerate(schema)]
        return lambda v: isinstance(v, list) and all(any(m(e) for e in v) for m in subs)
    _check_json(schema, path, depth)

    def primitive(v: Any) -> bool:
        if isinstance(v, list):
            return any(_equal(e, schema) for e in v)
        return v is not _MISSING and _equal(v, schema)

    return primitive


def _compile_object(schema: dict[Any, Any], path: str, depth: int) -> Matcher:
    plain: list[tuple[str, Matcher]] = []
    ops: list[Matcher] = []
    for key, sub in schema.items():
        if not isinstance(key, str):
            raise _invalid("object keys are strings", path)
        if key.startswith("$"):
            if key not in OPERATORS:
                raise _invalid(f"unknown operator {key}", _pointer(path, key))
            ops.append(_operator(key, sub, path, depth))
        else:
            plain.append((key, _compile(sub, _pointer(path, key), depth + 1)))
    needs_object = bool(plain) or not ops
    plain_fields, operators = tuple(plain), tuple(ops)

    def fields(v: Any) -> bool:
        if type(v) is dict:
            get = v.get
            for key, matcher in plain_fields:
                if not matcher(get(key, _MISSING)):
                    return False
            return True
        if type(v) is list and plain_fields:
            for element in v:
                if fields(element):
                    return True
        return False

    def match_object(v: Any) -> bool:
        if needs_object and not fields(v):
            return False
        for operator in operators:
            if not operator(v):
                return False
        return True

    return match_object


class MatchDocument:
    """A compiled JSON match document; ``matches(value)`` is its answer for a JSON value."""

    __slots__ = ("_matcher", "document")

    def __init__(self, document: Any) -> None:
        self.document = document
        self._matcher = _compile(document, "", 0)

    def matches(self, value: Any) -> bool:
        try:
            return self._matcher(value)
        except RecursionError:  # a value nested past the interpreter's stack: no match
            return False


def compile_match(document: Any) -> MatchDocument:
    """Compile ``document``; a :class:`FilterError` (``filter_invalid_match``, with the JSON
    Pointer ``path`` of the fault) for an unknown operator or an operand of the wrong kind."""
    return MatchDocument(document)
