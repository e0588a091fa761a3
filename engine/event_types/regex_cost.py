"""What one regex costs per byte it reads, from its structure: counted repetitions multiply.

jsonschema-rs runs ``pattern`` and ``patternProperties`` on Rust's ``regex``: a lazy DFA when
it can, and when the DFA's cache thrashes (a counted repetition after something that can
overlap it, e.g. ``[ab]*a[ab]{600}c``: 2^600 DFA states) the Pike VM, whose work per input
byte grows with the NFA states alive at once, i.e. with the regex's *positions*: each
literal, class or ``.`` is one position, ``x{n,m}`` is ``x`` written out ``m`` times (so
counted repetitions multiply, nested ones too), ``x*``/``x+``/``x?`` keep ``x``'s count.
Measured (bench/bench_hostile_inputs.py): 10-35 ns of CPU per position per byte at worst,
so ``POSITION_WEIGHT`` work units (~30 ns each) per position per byte bound it with room,
plus ``BASE_WEIGHT`` for the VM's own work per byte.

A regex anchored at its start (``^``/``\\A`` leading every branch, not multi-line) with a
finite longest match stops reading a string after that many bytes: it costs per string, not
per byte (``span``). Pure: no regex engine here, only the pattern's text; a pattern it
cannot read (``RegexCost.parsed`` false) is priced by its length as if every character were
a repetition of the whole, and refused at definition time.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BASE_WEIGHT", "MAX_POSITIONS", "POSITION_WEIGHT", "RegexCost", "regex_cost"]

#: work units per byte any regex costs (the VM's fixed work per byte)
BASE_WEIGHT = 5
#: work units per position per byte read
POSITION_WEIGHT = 2
#: positions one regex may have when a type is defined (``[a-z]{1,255}`` is 255; the
#: hostile ``[ab]*a[ab]{600}c`` is 603): past it 400 ``pattern_too_complex``
MAX_POSITIONS = 512
#: a repetition count past this is counted as this (the compiler refuses far less already)
_COUNT_CAP = 1_000_000
#: bytes of UTF-8 one character may take (the span of a bounded match, in bytes)
_CHAR_BYTES = 4


@dataclass(frozen=True, slots=True)
class RegexCost:
    """``positions``: NFA positions with repetitions written out; ``span``: the most bytes
    one search reads from a string (None: all of it); ``weight``: work units per byte read."""

    positions: int
    span: int | None
    parsed: bool = True

    @property
    def weight(self) -> int:
        return BASE_WEIGHT + POSITION_WEIGHT * self.positions

    def work(self, text_bytes: int, strings: int) -> int:
        """Work units of running this regex over ``strings`` strings of ``text_bytes`` in all."""
        if self.span is None:
            return self.weight * text_bytes
        return self.weight * min(text_bytes, strings * (self.span + 1))


@dataclass(frozen=True, slots=True)
class _Node:
    positions: int
    max_chars: int | None  # None: unbounded
    anchored: bool  # begins with a start anchor (every branch)


_EMPTY = _Node(0, 0, False)


class _Unreadable(Exception):
    pass


class _Parser:
    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0
        self.multi_line = False
        self.verbose = False

    # -- helpers ------------------------------------------------------------------------

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.s[j] if j < len(self.s) else ""

    def take(self) -> str:
        if self.i >= len(self.s):
            raise _Unreadable("unexpected end")
        c = self.s[self.i]
        self.i += 1
        return c

    def skip_verbose(self) -> None:
        while self.verbose and self.i < len(self.s):
            c = self.s[self.i]
            if c.isspace():
                self.i += 1
            elif c == "#":
                end = self.s.find("\n", self.i)
                self.i = len(self.s) if end < 0 else end + 1
            else:
                return

    # -- grammar ------------------------------------------------------------------------

    def alternation(self) -> _Node:
        saved = (self.multi_line, self.verbose)  # inline flags last to the group's end
        branches = [self.sequence()]
        while self.peek() == "|":
            self.i += 1
            branches.append(self.sequence())
        self.multi_line, self.verbose = saved
        positions = sum(b.positions for b in branches)
        bounded = [b.max_chars for b in branches]
        max_chars = None if None in bounded else max(c for c in bounded if c is not None)
        return _Node(positions, max_chars, all(b.anchored for b in branches))

    def sequence(self) -> _Node:
        positions = 0
        max_chars: int | None = 0
        anchored: bool | None = None  # what the first atom says
        while True:
            self.skip_verbose()
            if self.peek() in ("", "|", ")"):
                break
            atom = self.quantified(self.atom())
            if atom is None:  # a flag group
                continue
            if anchored is None:
                anchored = atom.anchored
            positions += atom.positions
            if max_chars is not None:
                max_chars = None if atom.max_chars is None else max_chars + atom.max_chars
        return _Node(positions, max_chars, bool(anchored))

    def atom(self) -> _Node | None:
        """One atom (None: a flag group, which is no atom)."""
        c = self.take()
        if c == "(":
            return self.group()
        if c == "[":
            self.klass()
            return _Node(1, 1, False)
        if c == "\\":
            return self.escape()
        if c == "^":
            return _Node(0, 0, not self.multi_line)
        if c == "$":
            return _EMPTY
        if c in "*+?":
            raise _Unreadable("repetition of nothing")
        return _Node(1, 1, False)  # a literal or "."

    def group(self) -> _Node | None:
        if self.peek() == "?":
            self.i += 1
            if self.peek() in ("P", "<") and (self.peek() == "<" or self.peek(1) == "<"):
                end = self.s.find(">", self.i)
                if end < 0:
                    raise _Unreadable("unclosed group name")
                self.i = end + 1
            else:  # flags: (?flags) for the rest of the group, or (?flags:...)
                on = True
                while True:
                    c = self.take()
                    if c == "-":
                        on = False
                    elif c == "m":
                        self.multi_line = on
                    elif c == "x":
                        self.verbose = on
                    elif c in "isUuR":
                        pass
                    elif c == ")":
                        return None
                    elif c == ":":
                        break
                    else:
                        raise _Unreadable(f"unknown flag {c!r}")
        saved = (self.multi_line, self.verbose)
        inner = self.alternation()
        self.multi_line, self.verbose = saved
        if self.take() != ")":
            raise _Unreadable("unclosed group")
        return inner

    def escape(self) -> _Node:
        c = self.take()
        if c in "AbBz<>":
            if c == "b" and self.peek() == "{":  # \b{start}, \b{end}, ...
                end = self.s.find("}", self.i)
                if end < 0:
                    raise _Unreadable("unclosed \\b{")
                self.i = end + 1
            return _Node(0, 0, c == "A")
        if c in "pP":
            if self.peek() == "{":
                end = self.s.find("}", self.i)
                if end < 0:
                    raise _Unreadable("unclosed \\p{")
                self.i = end + 1
            else:
                self.take()
            return _Node(1, 1, False)
        if c in "xuU":
            if self.peek() == "{":
                end = self.s.find("}", self.i)
                if end < 0:
                    raise _Unreadable("unclosed hex escape")
                self.i = end + 1
            else:
                digits = {"x": 2, "u": 4, "U": 8}[c]
                while digits and self.peek() and self.peek() in "0123456789abcdefABCDEF":
                    self.i += 1
                    digits -= 1
            return _Node(1, 1, False)
        return _Node(1, 1, False)  # \d \w \s, \n \t ..., an escaped meta character

    def klass(self) -> None:
        """Skip a bracketed class (nested classes, escapes, ``[:name:]``): one position."""
        depth = 1
        if self.peek() == "^":
            self.i += 1
        if self.peek() == "]":  # a leading ']' is a literal
            self.i += 1
        while depth:
            c = self.take()
            if c == "\\":
                self.take()
            elif c == "[":
                if self.peek() == ":":
                    end = self.s.find(":]", self.i + 1)
                    if end < 0:
                        raise _Unreadable("unclosed [:class:]")
                    self.i = end + 2
                    continue
                depth += 1
                if self.peek() == "^":
                    self.i += 1
                if self.peek() == "]":
                    self.i += 1
            elif c == "]":
                depth -= 1

    def quantified(self, node: _Node | None) -> _Node | None:
        while True:
            self.skip_verbose()
            c = self.peek()
            if c in ("*", "+", "?"):
                if node is None:
                    raise _Unreadable("repetition of a flag group")
                self.i += 1
                lo, hi = {"*": (0, None), "+": (1, None), "?": (0, 1)}[c]
            elif c == "{" and self._counted():
                if node is None:
                    raise _Unreadable("repetition of a flag group")
                lo, hi = self._bounds()
            else:
                return node
            if self.peek() == "?":  # lazy
                self.i += 1
            node = _repeat(node, lo, hi)

    def _counted(self) -> bool:
        end = self.s.find("}", self.i)
        if end < 0:
            return False
        body = self.s[self.i + 1 : end].replace(" ", "")
        lo, _, hi = body.partition(",")
        return (lo.isdigit() or (lo == "" and "," in body)) and (hi == "" or hi.isdigit())

    def _bounds(self) -> tuple[int, int | None]:
        end = self.s.find("}", self.i)
        body = self.s[self.i + 1 : end].replace(" ", "")
        self.i = end + 1
        lo_text, comma, hi_text = body.partition(",")
        lo = min(int(lo_text or "0"), _COUNT_CAP)
        if not comma:
            return lo, lo
        return lo, (min(int(hi_text), _COUNT_CAP) if hi_text else None)


def _repeat(node: _Node, lo: int, hi: int | None) -> _Node:
    copies = max(lo, hi if hi is not None else lo, 1)  # x{n,} is x n times and a loop
    positions = min(node.positions * copies, _COUNT_CAP)
    if hi is None:
        max_chars = None if node.max_chars != 0 else 0
    else:
        max_chars = None if node.max_chars is None else node.max_chars * hi
    return _Node(positions, max_chars, node.anchored and lo > 0)


def regex_cost(pattern: str) -> RegexCost:
    """The cost of searching with ``pattern`` (never raises)."""
    parser = _Parser(pattern)
    try:
        node = parser.alternation()
        if parser.i != len(pattern):
            raise _Unreadable("unbalanced ')'")
    except (_Unreadable, ValueError, KeyError):
        # unreadable here: as if each character were the whole pattern repeated
        n = max(len(pattern), 1)
        return RegexCost(min(n * n, _COUNT_CAP), None, parsed=False)
    span = None
    if node.anchored and node.max_chars is not None:
        span = node.max_chars * _CHAR_BYTES
    return RegexCost(node.positions, span)
