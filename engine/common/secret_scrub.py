"""Every form a peer can echo a credential in, found and redacted (pure; issue 46, item 3).

An attempt sends credentials (a static auth header's value, an OAuth2 bearer token, basic
credentials in an ``Authorization`` header); an endpoint that echoes its request would have
them stored in the attempt's event (append-only) and shown by ``GET /v1/deliveries/{id}``.
:func:`scrubber` builds one pattern for the credentials of an attempt that finds each of them

- whole (``Bearer abc123``) and without its scheme (``abc123``), and for ``Basic`` the
  decoded ``user:password`` and the password;
- in any letter case (ASCII), each character as itself, percent-encoded (``%41``/``%4a``, a
  space also ``+``) or JSON-escaped (``\\u0041``, ``\\"``, ``\\\\``, ``\\/``), mixed freely;
- in base64 (standard and URL-safe, at each of the three byte alignments it can sit at inside
  a longer encoded text: the characters that depend only on the secret's bytes).

Over-redaction is the safe side: a short credential also hides its other occurrences.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Final

__all__ = ["ENCODED_MAX_PER_CHAR", "REDACTED", "Scrubber", "scrubber", "secret_texts"]

#: what replaces a secret in a kept text
REDACTED: Final = "[redacted]"
#: base64 runs shorter than this are not searched for (too likely to occur by chance)
_B64_MIN: Final = 6
#: the longest a character can become in an echo (4 UTF-8 bytes, each ``%XX``)
ENCODED_MAX_PER_CHAR: Final = 12
_JSON_SHORT: Final = {'"': b'\\\\"', "\\": b"\\\\\\\\", "/": b"\\\\/"}


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


def _char(c: str) -> bytes:
    """A regex for one character in any of its echoed spellings."""
    raw = c.encode("utf-8")
    forms = [re.escape(raw)]
    if not c.isascii():  # IGNORECASE folds ASCII bytes only: the other cases spelled out
        forms += [re.escape(v.encode("utf-8")) for v in {c.lower(), c.upper()} - {c}]
    forms.append(b"".join(b"%%%02x" % b for b in raw))  # IGNORECASE: %4a and %4A
    if c == " ":
        forms.append(rb"\+")
    if ord(c) <= 0xFFFF:
        forms.append(rb"\\u%04x" % ord(c))
    if c in _JSON_SHORT:
        forms.append(_JSON_SHORT[c])
    return b"(?:" + b"|".join(forms) + b")"


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


class Scrubber:
    """Replaces every echo of a set of secrets with a marker (bytes or text)."""

    __slots__ = ("longest", "pattern")

    def __init__(self, texts: list[str]) -> None:
        alternatives = [b"(?-i:" + re.escape(run) + b")" for t in texts for run in _base64_runs(t)]
        alternatives += [b"".join(_char(c) for c in t) for t in texts]
        self.pattern = re.compile(b"|".join(alternatives), re.IGNORECASE) if texts else None
        #: the longest echo one secret can have (how far past a cut to look)
        self.longest = max((len(t) for t in texts), default=0) * ENCODED_MAX_PER_CHAR

    def bytes(self, data: bytes, marker: bytes) -> bytes:
        return data if self.pattern is None else self.pattern.sub(marker, data)

    def text(self, value: str, marker: str) -> str:
        if self.pattern is None:
            return value
        raw = value.encode("utf-8", errors="surrogatepass")
        out = self.pattern.sub(marker.encode(), raw)
        return value if out == raw else out.decode("utf-8", errors="replace")


@lru_cache(maxsize=256)
def _cached(texts: tuple[str, ...]) -> Scrubber:
    return Scrubber(list(texts))


def scrubber(values: Iterable[str]) -> Scrubber:
    """The scrubber of an attempt's credential values (built once per set: a subscription's
    credentials repeat from attempt to attempt)."""
    return _cached(tuple(secret_texts(values)))
