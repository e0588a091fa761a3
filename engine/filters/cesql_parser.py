"""The CESQL 1.0 parser: precedence climbing over the tokens, as ``cesql/CESQLParser.g4``
orders its alternatives (tightest first): ``LIKE``/``IN``, ``* / %``, ``+ -``, the
comparisons, then ``AND OR XOR`` (one level, right-associative). ``NOT`` and ``-`` are a
separate rule in the grammar, so they take the whole expression to their right
(``NOT a AND b`` is ``NOT (a AND b)``); a sign touching digits is part of the integer
literal (``-4 + 1`` is ``(-4) + 1``), which must fit 32 bits signed."""

from __future__ import annotations

import re

from hookproof.engine.filters.cesql_ast import (
    Attribute,
    Binary,
    BinaryOp,
    Call,
    Exists,
    In,
    Like,
    Literal,
    Node,
    Unary,
)
from hookproof.engine.filters.cesql_lexer import Token, parse_error, tokenize

__all__ = ["INT_MAX", "INT_MIN", "MAX_DEPTH", "parse"]

INT_MAX = 2**31 - 1
INT_MIN = -(2**31)
#: how deeply expressions may nest (parentheses, operands, arguments): a bound on the
#: parser's and the evaluator's recursion
MAX_DEPTH = 128

_IDENTIFIER = re.compile(r"[A-Za-z0-9]+")
_FUNCTION = re.compile(r"[A-Za-z][A-Za-z_]*")
#: binding power of each binary operator (higher binds tighter) and whether it is
#: right-associative
_BINARY: dict[str, tuple[int, bool]] = {
    "*": (40, False),
    "/": (40, False),
    "%": (40, False),
    "+": (30, False),
    "-": (30, False),
    "=": (20, False),
    "!=": (20, False),
    "<>": (20, False),
    "<": (20, False),
    "<=": (20, False),
    ">": (20, False),
    ">=": (20, False),
    "AND": (10, True),
    "OR": (10, True),
    "XOR": (10, True),
}
_POSTFIX = 50  # LIKE and IN


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.i = 0
        self.depth = 0

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def take(self) -> Token:
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def expect(self, kind: str, what: str) -> Token:
        tok = self.peek()
        if tok.kind != kind:
            raise parse_error(f"expected {what}, found {_describe(tok)}", tok.pos)
        return self.take()

    def expression(self, min_bp: int = 0) -> Node:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise parse_error(f"nested deeper than {MAX_DEPTH}", self.peek().pos)
        try:
            return self.climb(min_bp)
        finally:
            self.depth -= 1

    def climb(self, min_bp: int) -> Node:
        left = self.prefix()
        while True:
            tok = self.peek()
            negated = tok.kind == "NOT" and self.peek(1).kind in ("LIKE", "IN")
            if tok.kind in ("LIKE", "IN") or negated:
                if _POSTFIX < min_bp:
                    break
                if negated:
                    self.take()
                left = self.postfix(left, negated)
                continue
            power = _BINARY.get(tok.kind)
            if power is None or power[0] < min_bp:
                break
            self.take()
            right = self.expression(power[0] if power[1] else power[0] + 1)
            op: BinaryOp = tok.kind  # type: ignore[assignment]
            left = Binary(op, left, right, tok.pos)
        return left

    def postfix(self, left: Node, negated: bool) -> Node:
        """``x LIKE 'p'`` or ``x IN (a, ...)``; ``NOT LIKE`` and ``NOT IN`` are ``NOT`` over
        them, as in the grammar's reading by the CloudEvents SDKs."""
        tok = self.take()
        node: Node
        if tok.kind == "LIKE":
            pattern = self.expect("STRING", "a string literal after LIKE")
            node = Like(left, pattern.value, tok.pos)
        else:
            self.expect("(", "'(' after IN")
            items = [self.expression()]
            while self.peek().kind == ",":
                self.take()
                items.append(self.expression())
            self.expect(")", "')' closing the IN set")
            node = In(left, tuple(items), tok.pos)
        return Unary("NOT", node, tok.pos) if negated else node

    def prefix(self) -> Node:
        tok = self.take()
        kind = tok.kind
        if kind == "INT":
            return _integer(tok.value, tok.pos, tok.pos)
        if kind in ("-", "+"):
            nxt = self.peek()
            if nxt.kind == "INT" and nxt.pos == tok.pos + 1:
                self.take()
                return _integer(tok.value + nxt.value, nxt.pos, tok.pos)
            if kind == "+":
                raise parse_error("'+' is not a unary operator", tok.pos)
            return Unary("-", self.expression(), tok.pos)
        if kind == "NOT":
            return Unary("NOT", self.expression(), tok.pos)
        if kind in ("TRUE", "FALSE"):
            return Literal(kind == "TRUE", tok.pos)
        if kind == "STRING":
            return Literal(tok.value, tok.pos)
        if kind == "EXISTS":
            name = self.expect("WORD", "an attribute name after EXISTS")
            return Exists(_identifier(name), tok.pos)
        if kind == "(":
            inner = self.expression()
            self.expect(")", "')'")
            return inner
        if kind == "WORD":
            if self.peek().kind == "(":
                return self.call(tok)
            return Attribute(_identifier(tok), tok.pos)
        raise parse_error(f"expected an operand, found {_describe(tok)}", tok.pos)

    def call(self, name: Token) -> Node:
        if not _FUNCTION.fullmatch(name.value):
            raise parse_error(f"{name.value!r} is not a function name", name.pos)
        self.take()  # (
        args: list[Node] = []
        if self.peek().kind != ")":
            args.append(self.expression())
            while self.peek().kind == ",":
                self.take()
                args.append(self.expression())
        self.expect(")", "')' closing the argument list")
        return Call(name.value.upper(), tuple(args), name.pos)


def _identifier(tok: Token) -> str:
    """An attribute name, lower-cased: CloudEvents names are lower case, and CESQL reads
    ``ID`` as ``id`` (as the CloudEvents Go SDK does)."""
    if not _IDENTIFIER.fullmatch(tok.value):
        raise parse_error(f"{tok.value!r} is not an attribute name", tok.pos)
    return tok.value.lower()


def _integer(digits: str, digits_pos: int, pos: int) -> Literal:
    value = int(digits)
    if not INT_MIN <= value <= INT_MAX:
        raise parse_error("integer literal out of the 32-bit signed range", digits_pos)
    return Literal(value, pos)


def _describe(tok: Token) -> str:
    if tok.kind == "EOF":
        return "the end of the expression"
    if tok.kind == "STRING":
        return "a string literal"
    return repr(tok.value)


def parse(text: str) -> Node:
    """The syntax tree of ``text``; a :class:`FilterError` (``filter_parse_error``, dialect
    ``sql``, ``position``) when it is not a CESQL 1.0 expression."""
    parser = _Parser(text)
    node = parser.expression()
    parser.expect("EOF", "the end of the expression")
    return node
