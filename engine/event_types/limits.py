"""What a schema may be, checked when a type is defined: bounded, local, linear-time.

Compiled with jsonschema-rs (``jsonschema_rs``) as JSON Schema 2020-12: its ``pattern`` and
``patternProperties`` run on Rust's ``regex`` engine (finite automata, linear in the input, no
backtracking: look-around and back-references are refused as not a regex), with a bounded
compiled size. Nothing is fetched: remote references are refused (``offline``).

Limits (docs/event-types.md): a schema is at most ``MAX_SCHEMA_BYTES`` of canonical JSON and
``MAX_SCHEMA_DEPTH`` levels deep; a regex compiles within ``MAX_REGEX_BYTES``; ``$ref`` only
points into its own document as a JSON pointer (``#`` or ``#/...``) and never forms a cycle;
the schema with every ``$ref`` written out in place has at most ``MAX_UNFOLDED_NODES``
subschemas (a chain of ``anyOf`` over shared ``$ref`` is otherwise exponential); at most
``MAX_VERSIONS`` major versions per type. Per payload, the work (subschemas x values +
``PATTERN_WEIGHT`` x regexes x bytes) is at most ``MAX_WORK``: a payload past it is refused
(``payload_too_complex``) before it is validated, so no payload costs more than that.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from hookproof.events.canonical import canonical_json

from .errors import SchemaInvalid

__all__ = [
    "MAX_ERRORS",
    "MAX_MESSAGE",
    "MAX_PATTERNS",
    "MAX_REGEX_BYTES",
    "MAX_REPORTED_CHECKS",
    "MAX_SCHEMA_BYTES",
    "MAX_SCHEMA_DEPTH",
    "MAX_UNFOLDED_NODES",
    "MAX_VERSIONS",
    "MAX_WORK",
    "PATTERN_WEIGHT",
    "Compiled",
    "compile_schema",
    "errors_of",
    "pointer_of",
    "unfolded_size",
    "values_in",
]

MAX_SCHEMA_BYTES = 64 * 1024
MAX_SCHEMA_DEPTH = 32
MAX_UNFOLDED_NODES = 2_000
MAX_VERSIONS = 16
#: regexes (``pattern``, ``patternProperties`` keys) with every ``$ref`` written out
MAX_PATTERNS = 64
#: compiled size of one regex (and of its lazy DFA cache), bytes
MAX_REGEX_BYTES = 64 * 1024
#: the lazy DFA's cache per regex (a regex whose DFA outgrows it falls back to a slower,
#: still linear, simulation)
MAX_REGEX_DFA_BYTES = 2 * 1024 * 1024
#: work units one payload may cost: subschemas x values + PATTERN_WEIGHT x patterns x bytes
#: (about 30 ns per unit here: docs/event-types.md has the measurements)
MAX_WORK = 2_000_000
PATTERN_WEIGHT = 5
#: errors reported per refused payload or example, and characters per message
MAX_ERRORS = 10
MAX_MESSAGE = 300
#: all errors (up to MAX_ERRORS) are reported while subschemas x values is at most this
MAX_REPORTED_CHECKS = 4_000

_REGEX = jsonschema_rs.RegexOptions(size_limit=MAX_REGEX_BYTES, dfa_size_limit=MAX_REGEX_DFA_BYTES)
_DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: keywords whose value is one subschema, a list of them, or a map of names to them
_ONE = frozenset(
    {
        "items",
        "additionalProperties",
        "contains",
        "propertyNames",
        "not",
        "if",
        "then",
        "else",
        "unevaluatedItems",
        "unevaluatedProperties",
        "contentSchema",
        "additionalItems",
    }
)
_LIST = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
_MAP = frozenset({"properties", "patternProperties", "dependentSchemas"})
#: keywords that start a new resource or name a place to jump to: root only
_SCOPES = frozenset({"$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor"})


def _depth(value: Any, limit: int) -> int:
    """Nesting depth of a JSON value (objects and arrays), stopping past ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict | list):
            if d > deepest:
                deepest = d
                if deepest > limit:
                    return deepest
            stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
    return deepest


def _resolve(root: Any, ref: str, field: str) -> Any:
    if ref == "#":
        return root
    if not ref.startswith("#/"):
        raise SchemaInvalid(
            f"$ref {ref[:80]!r}: only JSON pointers into the same schema ('#/...') are allowed",
            field=field,
        )
    node = root
    for raw in ref[2:].split("/"):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SchemaInvalid(f"$ref {ref[:80]!r} points at nothing", field=field)
    return node


def unfolded_size(
    schema: Any, field: str = "schema", limit: int = MAX_UNFOLDED_NODES
) -> tuple[int, int]:
    """Subschemas of ``schema`` with every ``$ref`` written out in place (``$defs`` count only
    where referenced). Refuses a reference cycle, a reference out of the document,
    ``$dynamicRef``, ``$id`` or an anchor below the root, and a size past ``limit`` (stops
    counting there)."""
    memo: dict[int, tuple[int, int]] = {}
    active: set[int] = set()
    seen = [0]
    patterns = [0]

    def grow(n: int) -> None:
        seen[0] += n
        if seen[0] > limit:
            raise SchemaInvalid(
                f"schema too large with its $ref written out: more than {limit} subschemas",
                field=field,
            )

    def size(node: Any) -> int:
        """Subschemas applied from ``node`` (itself included), references written out."""
        if not isinstance(node, dict):
            grow(1)  # a boolean schema (or a value the compiler will refuse)
            return 1
        key = id(node)
        if key in memo:
            grow(memo[key][0])
            patterns[0] += memo[key][1]
            return memo[key][0]
        if key in active:
            raise SchemaInvalid("recursive $ref is not supported", field=field)
        active.add(key)
        before = patterns[0]
        grow(1)
        total = 1
        if isinstance(node.get("pattern"), str):
            patterns[0] += 1
        if isinstance(node.get("patternProperties"), dict):
            patterns[0] += len(node["patternProperties"])
        for k, v in node.items():
            if k in ("$dynamicRef", "$recursiveRef"):
                raise SchemaInvalid(f"{k} is not supported", field=field)
            if k in _SCOPES and node is not schema:
                # a nested resource would make '#/...' resolve from it, not from the root this
                # count follows: the validator could then unfold what was never counted
                raise SchemaInvalid(f"{k} is allowed only at the schema's root", field=field)
            if k == "$ref" and isinstance(v, str):
                total += size(_resolve(schema, v, field))
            elif k in _ONE:
                total += size(v)
            elif k in _LIST and isinstance(v, list):
                total += sum(size(c) for c in v)
            elif k in _MAP and isinstance(v, dict):
                total += sum(size(c) for c in v.values())
        active.discard(key)
        memo[key] = (total, patterns[0] - before)
        return total

    return size(schema), patterns[0]


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled schema and what bounds the work of one validation with it."""

    validator: jsonschema_rs.Validator
    nodes: int  # subschemas with every $ref written out
    patterns: int  # pattern and patternProperties regexes among them

    def work(self, encoded: bytes) -> int:
        """Work units of validating the JSON value whose canonical bytes are ``encoded``
        (a text short enough to be within the bound whatever it holds is not counted)."""
        per_byte = self.nodes + PATTERN_WEIGHT * self.patterns
        if self.nodes + per_byte * len(encoded) <= MAX_WORK:  # values_in <= 1 + len
            return self.nodes + per_byte * len(encoded)
        return self.nodes * values_in(encoded) + PATTERN_WEIGHT * self.patterns * len(encoded)


def values_in(encoded: bytes) -> int:
    """An upper bound of the values in a JSON text: one more than its separators."""
    return 1 + encoded.count(b",") + encoded.count(b":") + encoded.count(b"[")


def compile_schema(schema: Any, field: str = "schema") -> Compiled:
    """The compiled 2020-12 validator of a schema within the limits, or :class:`SchemaInvalid`."""
    if not isinstance(schema, dict | bool):
        raise SchemaInvalid("a schema is a JSON object or a boolean", field=field)
    if isinstance(schema, dict):
        dialect = schema.get("$schema", _DIALECT)
        if dialect not in (_DIALECT, _DIALECT + "#"):
            raise SchemaInvalid(f"$schema must be {_DIALECT} (JSON Schema 2020-12)", field=field)
        size = len(canonical_json(schema))
        if size > MAX_SCHEMA_BYTES:
            raise SchemaInvalid(
                f"a schema is at most {MAX_SCHEMA_BYTES} bytes of JSON ({size})", field=field
            )
        if _depth(schema, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH:
            raise SchemaInvalid(f"a schema nests at most {MAX_SCHEMA_DEPTH} levels", field=field)
        nodes, patterns = unfolded_size(schema, field)
        if patterns > MAX_PATTERNS:
            raise SchemaInvalid(
                f"a schema holds at most {MAX_PATTERNS} regexes with its $ref written out "
                f"({patterns})",
                field=field,
            )
    else:
        nodes, patterns = 1, 0
    try:
        validator = jsonschema_rs.Draft202012Validator(schema, pattern_options=_REGEX, offline=True)
    except (ValueError, jsonschema_rs.ReferencingError) as exc:  # ValidationError is one
        message = getattr(exc, "message", None) or str(exc)
        raise SchemaInvalid(
            f"not a valid JSON Schema 2020-12: {message[:MAX_MESSAGE]}", field=field
        ) from exc
    return Compiled(validator, nodes, patterns)


def pointer_of(path: list[str | int]) -> str:
    """RFC 6901 pointer of an instance path (``""`` is the whole payload)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def errors_of(compiled: Compiled, instance: Any, encoded: bytes) -> list[dict[str, str]]:
    """At most ``MAX_ERRORS`` of ``{pointer, message}`` for an instance that fails.

    jsonschema-rs builds every error before its iterator yields the first (about 15-30 us
    each: 1,999 integers against 998 ``minimum`` took 58 s), so the list is collected only when
    the errors possible (subschemas x values) are at most ``MAX_REPORTED_CHECKS``; otherwise
    the first error alone, which ``validate`` finds and stops at."""
    if compiled.nodes * values_in(encoded) <= MAX_REPORTED_CHECKS:
        out: list[dict[str, str]] = []
        for err in compiled.validator.iter_errors(instance):
            out.append(_error(err))
            if len(out) == MAX_ERRORS:
                break
        return out
    try:
        compiled.validator.validate(instance)
    except jsonschema_rs.ValidationError as err:
        return [_error(err)]
    return []


def _error(err: jsonschema_rs.ValidationError) -> dict[str, str]:
    return {"pointer": pointer_of(err.instance_path), "message": err.message[:MAX_MESSAGE]}
