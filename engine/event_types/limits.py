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
``MAX_VERSIONS`` major versions per type; a regex being defined has at most
``regex_cost.MAX_POSITIONS`` positions (``pattern_too_complex``). Per payload, the work
(subschemas x values + each regex's weight x the bytes it may read: ``regex_cost``) is at
most ``MAX_WORK``: a payload past it is refused (``payload_too_complex``) before it is
validated, so no payload costs more than that. A stored type is priced the same way when it
is used, whatever limits held when it was defined.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import jsonschema_rs

from hookproof.events.canonical import canonical_json

from .errors import PatternTooComplex, SchemaInvalid
from .regex_cost import MAX_POSITIONS, RegexCost, regex_cost

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
    "Compiled",
    "collect_errors",
    "compile_schema",
    "errors_of",
    "pointer_of",
    "reports_all",
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
#: work units one payload may cost: subschemas x values + each regex's weight x the bytes it
#: may read (about 30 ns per unit here: docs/event-types.md has the measurements)
MAX_WORK = 2_000_000
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
    where referenced), and the regexes among them. Refuses a reference cycle, a reference
    out of the document, ``$dynamicRef``, ``$id`` or an anchor below the root, a size past
    ``limit`` (stops counting there) and more than ``MAX_PATTERNS`` regexes."""
    nodes, patterns = _unfold(schema, field, limit)
    return nodes, len(patterns)


def _unfold(schema: Any, field: str, limit: int) -> tuple[int, list[str]]:
    """``unfolded_size``, with the regexes themselves (each as often as it is applied)."""
    memo: dict[int, tuple[int, tuple[str, ...]]] = {}
    active: set[int] = set()
    seen = [0]
    patterns: list[str] = []

    def grow(n: int) -> None:
        seen[0] += n
        if seen[0] > limit:
            raise SchemaInvalid(
                f"schema too large with its $ref written out: more than {limit} subschemas",
                field=field,
            )

    def found(more: Any) -> None:
        patterns.extend(more)
        if len(patterns) > MAX_PATTERNS:
            raise SchemaInvalid(
                f"a schema holds at most {MAX_PATTERNS} regexes with its $ref written out",
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
            found(memo[key][1])
            return memo[key][0]
        if key in active:
            raise SchemaInvalid("recursive $ref is not supported", field=field)
        active.add(key)
        before = len(patterns)
        grow(1)
        total = 1
        if isinstance(node.get("pattern"), str):
            found([node["pattern"]])
        if isinstance(node.get("patternProperties"), dict):
            found([k for k in node["patternProperties"] if isinstance(k, str)])
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
        memo[key] = (total, tuple(patterns[before:]))
        return total

    return size(schema), patterns


@dataclass(frozen=True, slots=True)
class Compiled:
    """A compiled schema, what bounds the work of one validation with it, and its source (the
    canonical JSON a validation process compiles it from: ``offload``)."""

    validator: jsonschema_rs.Validator
    nodes: int  # subschemas with every $ref written out
    regexes: tuple[RegexCost, ...]  # each pattern and patternProperties key, as often as applied
    source: bytes = b"true"
    digest: str = ""

    @property
    def patterns(self) -> int:
        return len(self.regexes)

    def work(self, encoded: bytes) -> int:
        """Work units of validating the JSON value whose canonical bytes are ``encoded``: at
        most subschemas x values, plus what each regex may cost on the bytes it may read."""
        size = len(encoded)
        values = 1 + size  # an upper bound of values_in, free to compute
        if self._work(size, values) > MAX_WORK:
            values = values_in(encoded)
        return self._work(size, values)

    def _work(self, size: int, values: int) -> int:
        return self.nodes * values + sum(r.work(size, values) for r in self.regexes)


def values_in(encoded: bytes) -> int:
    """An upper bound of the values in a JSON text: one more than its separators."""
    return 1 + encoded.count(b",") + encoded.count(b":") + encoded.count(b"[")


def compile_schema(schema: Any, field: str = "schema", *, defining: bool = False) -> Compiled:
    """The compiled 2020-12 validator of a schema within the limits, or :class:`SchemaInvalid`.

    ``defining``: a definition being written also has each regex within
    ``regex_cost.MAX_POSITIONS`` (:class:`PatternTooComplex`); a stored one is compiled
    whatever it holds and priced by what its regexes cost."""
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
        nodes, patterns = _unfold(schema, field, MAX_UNFOLDED_NODES)
    else:
        nodes, patterns = 1, []
    try:
        validator = jsonschema_rs.Draft202012Validator(schema, pattern_options=_REGEX, offline=True)
    except (ValueError, jsonschema_rs.ReferencingError) as exc:  # ValidationError is one
        message = getattr(exc, "message", None) or str(exc)
        raise SchemaInvalid(
            f"not a valid JSON Schema 2020-12: {message[:MAX_MESSAGE]}", field=field
        ) from exc
    costs = {p: regex_cost(p) for p in set(patterns)}
    if defining:  # each regex is a valid one now: what it costs
        for p, cost in sorted(costs.items()):
            _check_regex(p, cost, field)
    source = canonical_json(schema)
    return Compiled(
        validator,
        nodes,
        tuple(costs[p] for p in patterns),
        source,
        hashlib.sha256(source).hexdigest(),
    )


def _check_regex(pattern: str, cost: RegexCost, field: str) -> None:
    shown = pattern if len(pattern) <= 80 else pattern[:77] + "..."
    if not cost.parsed:
        raise PatternTooComplex(
            f"regex {shown!r} cannot be priced (its syntax is not read here)",
            field=field,
            pattern=shown,
            positions=None,
        )
    if cost.positions > MAX_POSITIONS:
        raise PatternTooComplex(
            f"regex {shown!r} has {cost.positions} positions with its counted repetitions "
            f"written out, more than {MAX_POSITIONS}: bound lengths with minLength/maxLength "
            "rather than {m,n}",
            field=field,
            pattern=shown,
            positions=cost.positions,
        )


def pointer_of(path: list[str | int]) -> str:
    """RFC 6901 pointer of an instance path (``""`` is the whole payload)."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def errors_of(compiled: Compiled, instance: Any, encoded: bytes) -> list[dict[str, str]]:
    """At most ``MAX_ERRORS`` of ``{pointer, message}``; empty: the instance is valid. One
    pass: the verdict and the report come from the same validation.

    jsonschema-rs builds every error before its iterator yields the first (about 15-30 us
    each: 1,999 integers against 998 ``minimum`` took 58 s), so the list is collected only when
    the errors possible (subschemas x values) are at most ``MAX_REPORTED_CHECKS``; otherwise
    the first error alone, which ``validate`` finds and stops at."""
    return collect_errors(compiled.validator, instance, reports_all(compiled, encoded))


def reports_all(compiled: Compiled, encoded: bytes) -> bool:
    """Whether every error (up to ``MAX_ERRORS``) is reported, or only the first."""
    return compiled.nodes * values_in(encoded) <= MAX_REPORTED_CHECKS


def collect_errors(
    validator: jsonschema_rs.Validator, instance: Any, report_all: bool
) -> list[dict[str, str]]:
    """``errors_of`` with the choice made (the validation process runs this)."""
    if report_all:
        out: list[dict[str, str]] = []
        for err in validator.iter_errors(instance):
            out.append(_error(err))
            if len(out) == MAX_ERRORS:
                break
        return out
    try:
        validator.validate(instance)
    except jsonschema_rs.ValidationError as err:
        return [_error(err)]
    return []


def _error(err: jsonschema_rs.ValidationError) -> dict[str, str]:
    return {"pointer": pointer_of(err.instance_path), "message": err.message[:MAX_MESSAGE]}
