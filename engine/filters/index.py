"""An index of many subscriptions' filters by the equalities they require, so that an event
is checked against the few subscriptions that can hold for it, not against all of them.

Each ``filters`` array gives at most one index key: an equality that every matching event
satisfies, found in a top-level ``exact`` (one attribute read as a String), under ``all``,
or in a ``match`` document (a plain path to a primitive, or ``$eq`` a primitive, reached
through plain keys and ``$and`` only). An array without one is checked for every event.
The index only narrows: :meth:`FilterIndex.matching` still runs each candidate's filters,
so its answer is exactly that of checking every subscription.
"""

from __future__ import annotations

import hashlib
from collections.abc import Hashable, Iterator
from typing import Any, Generic, TypeVar

import msgspec

from hookproof.engine.filters.attributes import FilterEvent
from hookproof.engine.filters.cesql_types import to_str
from hookproof.engine.filters.filters import CompiledFilters

__all__ = ["MAX_EVENT_KEYS", "FilterIndex", "IndexKey", "event_keys", "index_key", "key_text"]

K = TypeVar("K", bound=Hashable)
#: ("attribute", (name,), value) or ("document", path, value), the value normalised
IndexKey = tuple[str, tuple[str, ...], tuple[str, Any]]
_PRIMITIVE = (str, int, float, bool)
_MISSING: Any = object()


def _normal(value: Any) -> tuple[str, Any] | None:
    """A hashable form under which values the match syntax calls equal meet (1 and 1.0; never
    a Boolean and a number)."""
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int | float):
        return ("n", float(value)) if value == value else None
    if isinstance(value, str):
        return ("s", value)
    return None


def _document_key(schema: Any, path: tuple[str, ...]) -> IndexKey | None:
    if not isinstance(schema, dict):
        return None
    for key, sub in schema.items():
        if key == "$and" and isinstance(sub, list):
            for part in sub:
                found = _document_key(part, path)
                if found is not None:
                    return found
        elif key == "$eq" and path and isinstance(sub, _PRIMITIVE):
            normal = _normal(sub)
            if normal is not None:
                return ("document", path, normal)
        elif not key.startswith("$"):
            if isinstance(sub, _PRIMITIVE):
                normal = _normal(sub)
                if normal is not None:
                    return ("document", (*path, key), normal)
            found = _document_key(sub, (*path, key))
            if found is not None:
                return found
    return None


def _expression_key(expression: Any) -> IndexKey | None:
    if not isinstance(expression, dict) or len(expression) != 1:
        return None
    ((dialect, body),) = expression.items()
    if dialect == "exact" and isinstance(body, dict) and body:
        name, value = next(iter(body.items()))
        return ("attribute", (name,), ("s", value))
    if dialect == "all" and isinstance(body, list):
        for child in body:
            found = _expression_key(child)
            if found is not None:
                return found
    if dialect == "match":
        return _document_key(body, ())
    return None


def index_key(filters: CompiledFilters) -> IndexKey | None:
    """An equality every event these filters hold for satisfies, if one is plain to see."""
    for expression in filters.source:
        found = _expression_key(expression)
        if found is not None:
            return found
    return None


def key_text(key: IndexKey) -> str:
    """An index key as a short stable text (hex), for a database column: the same key always
    gives the same text, in this process and in any other."""
    kind, path, (tag, value) = key
    encoded = msgspec.json.encode([kind, list(path), tag, value])
    return hashlib.sha256(encoded).hexdigest()[:32]


#: the most keys :func:`event_keys` lists for one event (past it: None, check everyone)
MAX_EVENT_KEYS = 1024


def _document_keys(node: Any, path: tuple[str, ...], out: set[IndexKey]) -> None:
    """Every (path, value) :meth:`FilterIndex.candidates` could look up in ``node``."""
    if isinstance(node, list):
        for element in node:
            _document_keys(element, path, out)
        return
    if not isinstance(node, dict):
        return
    for key, child in node.items():
        at = (*path, key)
        for reached in child if isinstance(child, list) else (child,):
            normal = _normal(reached)
            if normal is not None:
                out.add(("document", at, normal))
        if len(out) > MAX_EVENT_KEYS:
            return
        _document_keys(child, at, out)


def event_keys(event: FilterEvent) -> set[IndexKey] | None:
    """Every index key ``event`` satisfies: a ``filters`` array whose :func:`index_key` is
    not among them cannot hold for it. None when there are more than :data:`MAX_EVENT_KEYS`
    (or the event nests past the stack): then no subscription may be left out by its key."""
    out: set[IndexKey] = {
        ("attribute", (name,), ("s", to_str(value)))
        for name, value in event.attributes.items()
        if value is not None
    }
    try:
        _document_keys(event.document, (), out)
    except RecursionError:
        return None
    return out if len(out) <= MAX_EVENT_KEYS else None


def _values_at(node: Any, path: tuple[str, ...]) -> Iterator[Any]:
    """The values a match document's plain path reaches (through arrays, any element), and
    the elements of an array at its end (a primitive matches an array that contains it)."""
    if not path:
        if isinstance(node, list):
            yield from node
        else:
            yield node
        return
    if isinstance(node, dict):
        child = node.get(path[0], _MISSING)
        if child is not _MISSING:
            yield from _values_at(child, path[1:])
    elif isinstance(node, list):
        for element in node:
            yield from _values_at(element, path)


class FilterIndex(Generic[K]):
    """Subscriptions' compiled filters by key (a subscription id, say). Not thread-safe:
    one writer, or a copy per reader."""

    def __init__(self) -> None:
        self._filters: dict[K, CompiledFilters] = {}
        self._order: dict[K, int] = {}
        self._keys: dict[K, IndexKey | None] = {}
        self._buckets: dict[tuple[str, tuple[str, ...]], dict[tuple[str, Any], set[K]]] = {}
        self._scan: set[K] = set()
        self._added = 0

    def __len__(self) -> int:
        return len(self._filters)

    def add(self, key: K, filters: CompiledFilters) -> None:
        """Index ``filters`` under ``key``, replacing what ``key`` had."""
        self.discard(key)
        self._filters[key] = filters
        self._order[key] = self._added
        self._added += 1
        found = index_key(filters)
        self._keys[key] = found
        if found is None:
            self._scan.add(key)
        else:
            kind, path, value = found
            self._buckets.setdefault((kind, path), {}).setdefault(value, set()).add(key)

    def discard(self, key: K) -> None:
        if key not in self._filters:
            return
        del self._filters[key], self._order[key]
        found = self._keys.pop(key)
        if found is None:
            self._scan.discard(key)
            return
        kind, path, value = found
        bucket = self._buckets[(kind, path)]
        bucket[value].discard(key)
        if not bucket[value]:
            del bucket[value]
        if not bucket:
            del self._buckets[(kind, path)]

    def candidates(self, event: FilterEvent) -> list[K]:
        """The keys whose filters may hold for ``event`` (a superset), in the order added."""
        found = set(self._scan)
        try:
            for (kind, path), bucket in self._buckets.items():
                if kind == "attribute":
                    value = event.attributes.get(path[0])
                    if value is not None:
                        found.update(bucket.get(("s", to_str(value)), ()))
                    continue
                for reached in _values_at(event.document, path):
                    normal = _normal(reached)
                    if normal is not None:
                        found.update(bucket.get(normal, ()))
        except RecursionError:  # an event nested past the stack: check everyone
            found = set(self._filters)
        return sorted(found, key=self._order.__getitem__)

    def matching(self, event: FilterEvent) -> list[K]:
        """The keys whose filters hold for ``event``, in the order added: the same answer as
        checking every one, from the candidates only."""
        return [key for key in self.candidates(event) if self._filters[key].matches(event)]
