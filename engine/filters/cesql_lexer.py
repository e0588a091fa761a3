"""The CESQL lexer (``cesql/CESQLLexer.g4``), hand-written: keywords case-insensitive,
strings in ``'...'`` or ``"..."`` where a backslash escapes the closing quote (any other
backslash pair, and a doubled quote, are kept as written, as the CloudEvents Go SDK reads
them; ``LIKE`` needs its escapes intact), integers as unsigned digit runs (the parser folds
a sign that touches them)."""

from __future__ import annotations

from dataclasses import dataclass

from hookproof.engine.filters.errors import FILTER_PARSE_ERROR, FilterError

__all__ = ["KEYWORDS", "Token", "parse_error", "tokenize"]

KEYWORDS = frozenset({"AND", "OR", "XOR", "NOT", "LIKE", "EXISTS", "IN", "TRUE", "FALSE"})
_TWO_CHAR = frozenset({"!=", "<>", ">=", "<="})
_ONE_CHAR = frozenset("()*/%+-=<>,")
_WORD = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_SPACE = frozenset(" \t\r\n")


@dataclass(frozen=True, slots=True)
class Token:
    """``kind`` is the operator or punctuation itself, a keyword in upper case, or one of
    ``INT`` (``value`` the digits), ``STRING`` (``value`` the unescaped text), ``WORD`` (an
    identifier or a function name) and ``EOF``."""

    kind: str
    value: str
    pos: int


def parse_error(detail: str, pos: int) -> FilterError:
    return FilterError(
        f"CESQL parse error at {pos}: {detail}",
        code=FILTER_PARSE_ERROR,
        dialect="sql",
        position=pos,
    )


def _string(text: str, start: int) -> tuple[str, int]:
    quote = text[start]
    out: list[str] = []
    i = start + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\" and i + 1 < n:
            nxt = text[i + 1]
            out.append(nxt if nxt == quote else c + nxt)
            i += 2
        elif c == quote:
            if i + 1 < n and text[i + 1] == quote:  # CESQLLexer.g4 takes a doubled quote
                out.append(quote + quote)  # as part of the literal, and keeps it as written
                i += 2
                continue
            return "".join(out), i + 1
        else:
            out.append(c)
            i += 1
    raise parse_error("unterminated string literal", start)


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with ``EOF``; a character no token starts with is a
    parse error at its offset."""
    tokens: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in _SPACE:
            i += 1
        elif c in "'\"":
            value, end = _string(text, i)
            tokens.append(Token("STRING", value, i))
            i = end
        elif c in _WORD:
            j = i
            while j < n and text[j] in _WORD:
                j += 1
            word = text[i:j]
            upper = word.upper()
            if word.isdigit() and word.isascii():
                tokens.append(Token("INT", word, i))
            elif upper in KEYWORDS:
                tokens.append(Token(upper, word, i))
            else:
                tokens.append(Token("WORD", word, i))
            i = j
        elif text[i : i + 2] in _TWO_CHAR:
            tokens.append(Token(text[i : i + 2], text[i : i + 2], i))
            i += 2
        elif c in _ONE_CHAR:
            tokens.append(Token(c, c, i))
            i += 1
        else:
            raise parse_error(f"unexpected character {c!r}", i)
    tokens.append(Token("EOF", "", n))
    return tokens
