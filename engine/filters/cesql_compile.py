"""Compile a CESQL syntax tree once into nested closures, each ``fn(attributes) -> value``.

The fast path allocates nothing but the result: a node that meets an error raises
:class:`~hookproof.engine.filters.cesql_types.Failure` with its own value; the nodes above
it let it pass (their value is the zero of their type, which the caller supplies from
:func:`static_type`). ``AND``, ``OR`` and ``IN`` short-circuit; ``XOR`` does not.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from hookproof.engine.filters.cesql_ast import (
    Attribute,
    Binary,
    Call,
    Exists,
    In,
    Like,
    Literal,
    Node,
    Unary,
    Value,
)
from hookproof.engine.filters.cesql_functions import FunctionFailure, lookup
from hookproof.engine.filters.cesql_types import (
    CesqlError,
    Failure,
    TypeName,
    to_bool,
    to_int,
    to_str,
    type_name,
)

__all__ = ["Attributes", "Compiled", "compile_node", "like_matcher", "static_type"]

Attributes = Mapping[str, Value]
Compiled = Callable[[Attributes], Value]

_MIN, _MAX, _SPAN = -(2**31), 2**31 - 1, 2**32
_MISSING = object()
_BOOLEAN_OPS = frozenset({"AND", "OR", "XOR", "=", "!=", "<>", "<", "<=", ">", ">="})


def static_type(node: Node) -> TypeName | None:
    """The type a node always returns; None for an attribute (its type is the event's)."""
    if isinstance(node, Literal):
        return type_name(node.value)
    if isinstance(node, Attribute):
        return None
    if isinstance(node, Exists | Like | In):
        return "Boolean"
    if isinstance(node, Unary):
        return "Boolean" if node.op == "NOT" else "Integer"
    if isinstance(node, Binary):
        return "Boolean" if node.op in _BOOLEAN_OPS else "Integer"
    overload = lookup(node.name, len(node.args))
    return "Boolean" if overload is None else overload.returns


def _wrap(value: int) -> int:
    return (value - _MIN) % _SPAN + _MIN


def _cast_to(target: type, value: Value, pos: int) -> tuple[Value, CesqlError | None]:
    if target is int:
        return to_int(value, pos)
    if target is bool:
        return to_bool(value, pos)
    return to_str(value), None


def like_matcher(pattern: str) -> Callable[[str], bool]:
    """``%`` any run, ``_`` one character, a backslash before ``%`` or ``_`` makes it
    literal (any other backslash is itself, as in the specification and the CloudEvents Go
    SDK); the whole value must match."""
    parts: list[tuple[bool, str]] = []  # (is a wildcard, "%" / "_" or a literal run)
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern) and pattern[i + 1] in "%_":
            i += 1
            c = pattern[i]
        elif c in "%_":
            parts.append((True, c))
            i += 1
            continue
        if parts and not parts[-1][0]:
            parts[-1] = (False, parts[-1][1] + c)
        else:
            parts.append((False, c))
        i += 1
    shape = tuple(p[1] if p[0] else "" for p in parts)
    literals = [p[1] for p in parts if not p[0]]
    text = literals[0] if len(literals) == 1 else ""
    if shape in ((), ("",)):
        return lambda v: v == text
    if shape == ("", "%"):
        return lambda v: v.startswith(text)
    if shape == ("%", ""):
        return lambda v: v.endswith(text)
    if shape == ("%", "", "%"):
        return lambda v: text in v
    if shape and all(s == "%" for s in shape):
        return lambda v: True
    regex = "".join(
        (".*" if text == "%" else ".") if wild else re.escape(text) for wild, text in parts
    )
    compiled = re.compile(regex, re.DOTALL)
    return lambda v: compiled.fullmatch(v) is not None


def compile_node(node: Node) -> Compiled:
    if isinstance(node, Literal):
        constant = node.value
        return lambda attrs: constant
    if isinstance(node, Attribute):
        return _attribute(node)
    if isinstance(node, Exists):
        name = node.name
        return lambda attrs: name in attrs
    if isinstance(node, Unary):
        return _not(node) if node.op == "NOT" else _negate(node)
    if isinstance(node, Binary):
        return _binary(node)
    if isinstance(node, Like):
        return _like(node)
    if isinstance(node, In):
        return _in(node)
    return _call(node)


def _attribute(node: Attribute) -> Compiled:
    name = node.name
    error = CesqlError("missingAttribute", f"at {node.pos}: no attribute {name!r} in the event")

    def attribute(attrs: Attributes) -> Value:
        value = attrs.get(name, _MISSING)
        if value is _MISSING:
            raise Failure(error, False, node)
        return value  # type: ignore[return-value]

    return attribute


def _not(node: Unary) -> Compiled:
    operand, pos = compile_node(node.operand), node.operand.pos

    def negation(attrs: Attributes) -> Value:
        value = operand(attrs)
        if value is True or value is False:
            return not value
        cast, error = to_bool(value, pos)
        if error is not None:
            raise Failure(error, not cast, node)
        return not cast

    return negation


def _negate(node: Unary) -> Compiled:
    operand, pos = compile_node(node.operand), node.operand.pos
    overflow = CesqlError("math", f"at {node.pos}: negation overflows 32 bits")

    def negate(attrs: Attributes) -> Value:
        value = operand(attrs)
        error = None
        if type(value) is not int:
            value, error = to_int(value, pos)
        result = -value
        if result > _MAX:
            result, error = _MIN, error or overflow
        if error is not None:
            raise Failure(error, result, node)
        return result

    return negate


def _arithmetic(node: Binary, left: Compiled, right: Compiled) -> Compiled:
    op, lpos, rpos = node.op, node.left.pos, node.right.pos
    overflow = CesqlError("math", f"at {node.pos}: {op} overflows 32 bits")
    by_zero = CesqlError("math", f"at {node.pos}: {op} by zero")

    def arithmetic(attrs: Attributes) -> Value:
        x, y = left(attrs), right(attrs)
        error = None
        if type(x) is not int:
            x, error = to_int(x, lpos)
        if type(y) is not int:
            y, error_y = to_int(y, rpos)
            error = error or error_y
        assert isinstance(x, int) and isinstance(y, int)
        if op == "+":
            result = x + y
        elif op == "-":
            result = x - y
        elif op == "*":
            result = x * y
        elif y == 0:
            result, error = 0, error or by_zero
        else:
            quotient = abs(x) // abs(y)
            quotient = -quotient if (x < 0) != (y < 0) else quotient
            result = quotient if op == "/" else x - y * quotient
        if not _MIN <= result <= _MAX:
            result, error = _wrap(result), error or overflow
        if error is not None:
            raise Failure(error, result, node)
        return result

    return arithmetic


def _equality(node: Binary, left: Compiled, right: Compiled) -> Compiled:
    """``=``, ``!=``, ``<>``: the right operand's type chooses the overload, the left one is
    cast to it (CESQL section 3.7)."""
    equal, lpos = node.op == "=", node.left.pos

    def equality(attrs: Attributes) -> Value:
        x, y = left(attrs), right(attrs)
        if type(x) is type(y):
            return (x == y) is equal
        x, error = _cast_to(type(y), x, lpos)
        result = (x == y) is equal
        if error is not None:
            raise Failure(error, result, node)
        return result

    return equality


def _ordering(node: Binary, left: Compiled, right: Compiled) -> Compiled:
    op, lpos, rpos = node.op, node.left.pos, node.right.pos

    def ordering(attrs: Attributes) -> Value:
        x, y = left(attrs), right(attrs)
        error = None
        if type(x) is not int:
            x, error = to_int(x, lpos)
        if type(y) is not int:
            y, error_y = to_int(y, rpos)
            error = error or error_y
        assert isinstance(x, int) and isinstance(y, int)
        if op == "<":
            result = x < y
        elif op == "<=":
            result = x <= y
        elif op == ">":
            result = x > y
        else:
            result = x >= y
        if error is not None:
            raise Failure(error, result, node)
        return result

    return ordering


def _logic(node: Binary, left: Compiled, right: Compiled) -> Compiled:
    op, lpos, rpos = node.op, node.left.pos, node.right.pos

    def logic(attrs: Attributes) -> Value:
        x = left(attrs)
        error = None
        if type(x) is not bool:
            x, error = to_bool(x, lpos)
        if (op == "AND" and x is False) or (op == "OR" and x is True):
            if error is not None:
                raise Failure(error, x, node)
            return x
        y = right(attrs)
        if type(y) is not bool:
            y, error_y = to_bool(y, rpos)
            error = error or error_y
        result = (x is not y) if op == "XOR" else y
        if error is not None:
            raise Failure(error, result, node)
        return result

    return logic


def _binary(node: Binary) -> Compiled:
    left, right = compile_node(node.left), compile_node(node.right)
    if node.op in ("AND", "OR", "XOR"):
        return _logic(node, left, right)
    if node.op in ("=", "!=", "<>"):
        return _equality(node, left, right)
    if node.op in ("<", "<=", ">", ">="):
        return _ordering(node, left, right)
    return _arithmetic(node, left, right)


def _like(node: Like) -> Compiled:
    operand, matcher = compile_node(node.operand), like_matcher(node.pattern)

    def like(attrs: Attributes) -> Value:
        value = operand(attrs)
        if type(value) is not str:
            value = to_str(value)
        return matcher(value)

    return like


def _in(node: In) -> Compiled:
    """The set's elements in order, each cast to the left operand's type: the first equal
    one answers TRUE (later ones are not evaluated), the first that does not cast is a
    ``cast`` error (as the CloudEvents Go SDK evaluates ``IN``)."""
    operand = compile_node(node.operand)
    items = tuple((compile_node(item), item.pos) for item in node.items)

    def member(attrs: Attributes) -> Value:
        x = operand(attrs)
        target = type(x)
        for item, pos in items:
            y = item(attrs)
            if type(y) is not target:
                y, error = _cast_to(target, y, pos)
                if error is not None:
                    raise Failure(error, False, node)
            if y == x:
                return True
        return False

    return member


def _call(node: Call) -> Compiled:
    overload = lookup(node.name, len(node.args))
    if overload is None:
        missing = CesqlError(
            "missingFunction",
            f"at {node.pos}: no function {node.name} taking {len(node.args)} argument(s)",
        )

        def no_function(attrs: Attributes) -> Value:
            raise Failure(missing, False, node)

        return no_function
    body, pos = overload.body, node.pos
    params = tuple(
        (compile_node(arg), overload.param(i), arg.pos) for i, arg in enumerate(node.args)
    )

    def call(attrs: Attributes) -> Value:
        values: list[Value] = []
        error = None
        for arg, param, arg_pos in params:
            value = arg(attrs)
            if param == "Integer" and type(value) is not int:
                value, error_arg = to_int(value, arg_pos)
                error = error or error_arg
            elif param == "Boolean" and type(value) is not bool:
                value, error_arg = to_bool(value, arg_pos)
                error = error or error_arg
            elif param == "String" and type(value) is not str:
                value = to_str(value)
            values.append(value)
        try:
            result: Value = body(*values)
        except FunctionFailure as failed:
            raised = CesqlError(failed.kind, f"at {pos}: {failed.detail}")
            raise Failure(error or raised, failed.value, node) from None
        if error is not None:
            raise Failure(error, result, node)
        return result

    return call
