"""Every form a peer can echo a credential in, found and redacted (pure; issue 46, item 3).

An attempt sends credentials (a static auth header's value, an OAuth2 bearer token, basic
credentials in an ``Authorization`` header); an endpoint that echoes its request would have
them stored in the attempt's event (append-only) and shown by ``GET /v1/deliveries/{id}``.
:func:`scrubber` builds, for the credentials of an attempt, a :class:`Scrubber` that finds
each of them (in pieces of :data:`CHUNK` bytes, so its cost stays linear in the text)

- whole (``Bearer abc123``) and without its scheme (``abc123``), and for ``Basic`` the
  decoded ``user:password`` and the password;
- in any letter case (ASCII), each character as itself, percent-encoded (``%41``/``%4a``, a
  space also ``+``) or JSON-escaped (``\\u0041``, ``\\"``, ``\\\\``, ``\\/``), mixed freely;
- in base64 (standard and URL-safe, at each of the three byte alignments it can sit at inside
  a longer encoded text: the characters that depend only on the secret's bytes).

Over-redaction is the safe side: a short credential also hides its other occurrences, and a
piece of a long one hides wherever it appears. A partial echo shorter than a piece is not
found (a peer that sends back part of a secret chose to).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Final
from urllib.parse import unquote_to_bytes

__all__ = ["CHUNK", "ENCODED_MAX_PER_CHAR", "REDACTED", "Scrubber", "scrubber", "secret_texts"]

#: what replaces a secret in a kept text
REDACTED: Final = "[redacted]"
#: a secret is searched for in pieces of this many bytes (its whole echo holds each)
CHUNK: Final = 64
#: how many leading bytes of a piece the cheap look searches for
_ANCHOR: Final = 8
#: base64 runs shorter than this are not searched for (too likely to occur by chance)
_B64_MIN: Final = 6
#: the longest a character can become in an echo (4 UTF-8 bytes, each ``%XX``)
ENCODED_MAX_PER_CHAR: Final = 12


def secret_texts(values: Iterable[str]) -> list[str]:
    """The texts to hide for these sent credential values: each value, its part after a
    scheme (``Bearer x`` -> ``x``), and a ``Basic`` value's decoded ``user:password`` and
    password. Longest first (a longer match wins)."""
    out: set[str] = set()
    for value in values:
        value = value.strip()
        if not value:
            continue
        out.add(value)
        scheme, _, rest = value.partition(" ")
        rest = rest.strip()
        if rest:
            out.add(rest)
            if scheme.lower() == "basic":
                out.update(_basic_parts(rest))
    return sorted(out, key=lambda t: (-len(t), t))


def _basic_parts(token: str) -> list[str]:
    try:
        decoded = base64.b64decode(token, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return []
    _, _, password = decoded.partition(":")
    return [t for t in (decoded, password) if t]


def _base64_runs(text: str) -> list[bytes]:
    """The parts of ``text``'s base64 that are the same wherever it sits in a longer text."""
    data = text.encode("utf-8")
    runs: list[bytes] = [base64.b64encode(data), base64.urlsafe_b64encode(data)]
    for pad in range(3):
        for enc in (base64.b64encode, base64.urlsafe_b64encode):
            full = enc(b"\0" * pad + data).rstrip(b"=")
            head = (0, 2, 3)[pad]  # characters that mix in the bytes before it
            tail = {0: 0, 1: 1, 2: 1}[(pad + len(data)) % 3]  # ... and the bytes after it
            run = full[head : len(full) - tail]
            if len(run) >= _B64_MIN:
                runs.append(run)
    return sorted(set(runs), key=len, reverse=True)


def _chunks(data: bytes) -> list[bytes]:
    return [data[i : i + CHUNK] for i in range(0, len(data), CHUNK)]


class Scrubber:
    """Replaces every echo of a set of secrets with a marker (bytes or text).

    Each secret is searched in pieces of :data:`CHUNK` bytes (a whole echo holds every piece;
    the cost stays linear whatever a tenant makes its secret and its endpoint answer): in a
    canonical view of the text (``%XX`` and JSON escapes decoded, ASCII lower case, each byte
    mapped back to the span it came from), and its base64 runs in the text as it is. The view
    is built only when a cheap look (each piece's first bytes, ``bytes.find`` in the text
    lower-cased, JSON-unescaped and percent-decoded) found one (bench/bench_secret_scrub.py)."""

    __slots__ = ("anchors", "longest", "needles", "run_anchors", "runs")

    def __init__(self, texts: list[str]) -> None:
        needles: set[bytes] = set()
        for t in texts:
            spellings = {t} if t.isascii() else {t, t.lower(), t.upper(), t.casefold()}
            for spelling in spellings:
                for piece in _chunks(spelling.encode("utf-8").lower()):
                    needles.add(piece)
                    if b" " in piece:  # form encoding: a space as +
                        needles.add(piece.replace(b" ", b"+"))
                    if b"\\" in piece:  # JSON: a backslash escaped (kept as two in the view)
                        needles.add(piece.replace(b"\\", b"\\\\"))
        runs = {p for t in texts for run in _base64_runs(t) for p in _chunks(run)}
        self.needles = sorted(needles, key=len, reverse=True)
        self.runs = sorted((r for r in runs if len(r) >= _B64_MIN), key=len, reverse=True)
        self.anchors = sorted({n[:_ANCHOR] for n in self.needles})
        self.run_anchors = sorted({r[:_ANCHOR] for r in self.runs})
        #: the longest echo one piece can have (how far past a cut to look)
        self.longest = CHUNK * ENCODED_MAX_PER_CHAR if texts else 0

    def found(self, data: bytes) -> bool:
        """Whether ``data`` may hold a secret in some spelling (never False when it does: a
        whole echo holds each piece's first bytes in one of the views)."""
        if any(a in data for a in self.run_anchors):
            return True
        views = [data.lower()]
        if b"\\" in data:
            views.append(_JSON_ESCAPE.sub(_unescape, data).lower())
        if b"%" in data:
            views += [unquote_to_bytes(view).lower() for view in views]
        return any(a in view for view in views for a in self.anchors)

    def spans(self, data: bytes) -> list[tuple[int, int]]:
        """Where in ``data`` an echo of a piece lies (start, end), unmerged."""
        out: list[tuple[int, int]] = []
        for run in self.runs:  # base64 is case-sensitive: the text as it is
            i = data.find(run)
            while i >= 0:
                out.append((i, i + len(run)))
                i = data.find(run, i + 1)
        raw = data.lower()  # as it is too: a stray % or backslash before an echo decodes it
        view, starts, ends = _canonical(data)
        for needle in self.needles:
            for i in _all(raw, needle):
                out.append((i, i + len(needle)))
            for i in _all(view, needle):
                out.append((starts[i], ends[i + len(needle) - 1]))
        return out

    def bytes(self, data: bytes, marker: bytes, limit: int | None = None) -> bytes:
        """``data`` with every echo replaced by ``marker``; with ``limit``, only what lies
        before it (an echo that starts before it is replaced whole): an excerpt cut after
        the redaction keeps no byte the search did not see in full."""
        end = len(data) if limit is None else min(limit, len(data))
        if not self.needles or not self.found(data):
            return data[:end]
        kept, at = [], 0
        for start, stop in _merged(self.spans(data)):
            if start >= end:
                break
            kept += [data[at:start], marker]
            at = stop
        if at < end:
            kept.append(data[at:end])
        return b"".join(kept)

    def text(self, value: str, marker: str) -> str:
        if not self.needles:
            return value
        raw = value.encode("utf-8", errors="surrogatepass")
        out = self.bytes(raw, marker.encode())
        return value if out == raw else out.decode("utf-8", errors="replace")


#: one token of a text as a peer may have encoded it: a run of plain bytes, ``%XX``, a JSON
#: ``\\uXXXX`` (a surrogate pair as one), ``\\"`` or ``\\/``, or a lone ``%`` or backslash
#: (an escaped backslash stays two: a backslash before an escape may be the text's own)
_TOKEN: Final = re.compile(
    rb"([^%\\]+)|%([0-9a-fA-F]{2})|((?:\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    rb"|\\u[0-9a-fA-F]{4})|\\([\"/])|([\s\S])"
)


def _canonical(data: bytes) -> tuple[bytes, list[int], list[int]]:
    """``data`` decoded (``%XX``, JSON escapes) and lower-cased (ASCII), with the span in
    ``data`` each of its bytes came from."""
    view = bytearray()
    starts: list[int] = []
    ends: list[int] = []
    for m in _TOKEN.finditer(data):
        s, e = m.span()
        if m.group(1) is not None or m.group(5) is not None:
            view += m.group(0)
            starts.extend(range(s, e))
            ends.extend(range(s + 1, e + 1))
            continue
        if m.group(2) is not None:
            piece = bytes([int(m.group(2), 16)])
        elif m.group(3) is not None:
            piece = _from_json(m.group(3))
        else:
            piece = m.group(4)
        view += piece
        starts.extend([s] * len(piece))
        ends.extend([e] * len(piece))
    return bytes(view).lower(), starts, ends


def _from_json(escape: bytes) -> bytes:
    """The UTF-8 of one ``\\uXXXX`` escape, or of a surrogate pair of them."""
    units = [int(escape[i + 2 : i + 6], 16) for i in range(0, len(escape), 6)]
    if len(units) == 2:
        return chr(0x10000 + ((units[0] - 0xD800) << 10) + (units[1] - 0xDC00)).encode("utf-8")
    return chr(units[0]).encode("utf-8", errors="surrogatepass")


def _all(text: bytes, needle: bytes) -> list[int]:
    out, i = [], text.find(needle)
    while i >= 0:
        out.append(i)
        i = text.find(needle, i + 1)
    return out


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


_JSON_ESCAPE: Final = re.compile(
    rb"((?:\\u[dD][89abAB][0-9a-fA-F]{2}\\u[dD][c-fC-F][0-9a-fA-F]{2})|\\u[0-9a-fA-F]{4})"
    rb"|\\([\"/])"
)


def _unescape(m: re.Match[bytes]) -> bytes:
    return m.group(2) if m.group(2) is not None else _from_json(m.group(1))


@lru_cache(maxsize=256)
def _cached(texts: tuple[str, ...]) -> Scrubber:
    return Scrubber(list(texts))


def scrubber(values: Iterable[str]) -> Scrubber:
    """The scrubber of an attempt's credential values (built once per set: a subscription's
    credentials repeat from attempt to attempt)."""
    return _cached(tuple(secret_texts(values)))
