"""The equalities a ``filters`` array requires, pushed down to the database (pure).

A search evaluates its compiled filters on every candidate itself (the same answer as a
subscription's), so what goes to SQL only has to hold for every event the filters hold for:
it narrows, never decides. Found at the top level or under ``all``:

- ``exact`` on ``type`` (the delivery log's topic column), ``id`` (the event id) and
  ``subject`` (the body's ``aggregateId``);
- a ``match`` document's plain paths to a string, a finite number or a Boolean (and ``$eq``
  of one, through plain keys and ``$and``) under ``data`` (the body's ``payload``), and
  ``id``, ``topic`` and ``metadata.aggregateId``.

The body equalities become one SQL/JSON path predicate over what the index holds of the body
(``{"payload", "aggregateId"}``: ``hookproof_body_search``)
(``$."payload"."customer" == "c-1" && ...``), which the body's ``jsonb_path_ops`` index answers
(migration 1060). In lax mode a path steps through an array (any element) and a comparison
with an array compares each element, as the match syntax does; one level of array each (an
array nested directly in an array is not looked into, so such a body is not found).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from hookproof.engine.filters import CompiledFilters

__all__ = ["Pushdown", "pushdown"]

_ATTRIBUTES = {"subject": "aggregateId"}
#: at most this many equalities go into one predicate (the rest are still evaluated)
_MAX_TERMS = 16


@dataclass
class Pushdown:
    """``topic`` / ``event_id``: columns the log's indexes hold; ``terms``: body equalities."""

    topic: str | None = None
    event_id: str | None = None
    terms: list[str] = field(default_factory=list)
    #: two different equalities on one column: nothing can match
    impossible: bool = False

    @property
    def jsonpath(self) -> str | None:
        return " && ".join(self.terms) if self.terms else None

    def column(self, name: str, value: str) -> None:
        now = getattr(self, name)
        if now is None:
            setattr(self, name, value)
        elif now != value:
            self.impossible = True


def _literal(value: Any) -> str | None:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else None
    if isinstance(value, str) and "\x00" not in value:  # jsonb holds no NUL
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a jsonpath literal
    return None


def _term(path: tuple[str, ...], value: Any) -> str | None:
    literal = _literal(value)
    if literal is None or any("\x00" in key for key in path):
        return None
    keys = "".join("." + json.dumps(key, ensure_ascii=False) for key in path)
    return "$" + keys + " == " + literal


def _body_path(path: tuple[str, ...]) -> tuple[str, ...] | None:
    """The indexed document's path for a match document's path, or None (not indexed)."""
    if path[:1] == ("data",):
        return ("payload", *path[1:])
    if path == ("metadata", "aggregateId"):
        return ("aggregateId",)
    return None


def _document(out: Pushdown, schema: Any, path: tuple[str, ...]) -> None:
    if not isinstance(schema, dict):
        return
    for key, sub in schema.items():
        if key == "$and" and isinstance(sub, list):
            for part in sub:
                _document(out, part, path)
        elif key == "$eq" and path:
            _equality(out, path, sub)
        elif not key.startswith("$"):
            if isinstance(sub, dict):
                _document(out, sub, (*path, key))
            else:
                _equality(out, (*path, key), sub)


def _equality(out: Pushdown, path: tuple[str, ...], value: Any) -> None:
    if path == ("topic",) and isinstance(value, str):
        out.column("topic", value)
    if path == ("id",) and isinstance(value, str):
        out.column("event_id", value)
    body = _body_path(path)
    term = _term(body, value) if body is not None else None
    if term is not None and term not in out.terms and len(out.terms) < _MAX_TERMS:
        out.terms.append(term)


def _expression(out: Pushdown, expression: Any) -> None:
    if not isinstance(expression, dict) or len(expression) != 1:
        return
    ((dialect, body),) = expression.items()
    if dialect == "exact" and isinstance(body, dict):
        for name, value in body.items():
            if not isinstance(value, str):
                continue
            if name == "type":
                out.column("topic", value)
            elif name == "id":
                out.column("event_id", value)
            elif name in _ATTRIBUTES:
                term = _term((_ATTRIBUTES[name],), value)
                if term is not None and term not in out.terms and len(out.terms) < _MAX_TERMS:
                    out.terms.append(term)
    elif dialect == "all" and isinstance(body, list):
        for child in body:
            _expression(out, child)
    elif dialect == "match":
        _document(out, body, ())


def pushdown(filters: CompiledFilters) -> Pushdown:
    """What of ``filters`` the database can check through its indexes (a superset's test)."""
    out = Pushdown()
    for expression in filters.source:
        _expression(out, expression)
    return out
