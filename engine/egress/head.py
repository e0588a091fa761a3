"""The request head, written by the connection's user before the body (:mod:`.connection`): the
request line and ``Host`` of one URL (:class:`Target`, computed once) and the fields as
aiohttp would write them (:func:`request_head`)."""

from __future__ import annotations

import re
from typing import Final

import yarl

from ..common.memo import BoundedMemo

__all__ = ["Target", "request_head"]


class Target:
    """One endpoint URL as the pool and the request line need it, computed once: the host
    and port (the vetting resolver's question, SNI and the certificate's name: the URL host)
    and ``head``, the request line and ``Host`` field (as aiohttp wrote them)."""

    __slots__ = ("head", "host", "port", "url")

    def __init__(self, url: str) -> None:
        self.url = yarl.URL(url, encoded=True)
        host, port = self.url.raw_host, self.url.port
        if not host or port is None or self.url.scheme != "https":
            raise ValueError("an absolute https URL is needed")
        self.host: str = host
        self.port: int = port
        host_field = self.url.host_port_subcomponent
        target = self.url.raw_path_qs
        # the request line and Host are written as given: no space or control character may
        # split them (normalise_endpoint refuses such URLs already; this holds on its own)
        if _UNSAFE_IN_HEAD.search(target) or _UNSAFE_IN_HEAD.search(host_field or ""):
            raise ValueError("the URL holds a space or a control character")
        self.head = f"POST {target} HTTP/1.1\r\nHost: {host_field}\r\n".encode("ascii")


#: A space, control character or DEL in the request target or Host would split the head.
_UNSAFE_IN_HEAD: Final = re.compile(r"[\x00-\x20\x7f]")

#: A field name must be a token; a CR, LF or NUL in a name or value would let one field smuggle
#: another (aiohttp refuses them the same way). Valid names seen, with their lower case.
_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_NAMES: Final[BoundedMemo[str, str]] = BoundedMemo(1024)


def _field_name(name: str) -> str:
    low = _NAMES.get(name)
    if low is None:
        if not _TOKEN.fullmatch(name):
            raise ValueError(f"header name {name!r} is not a token")
        low = name.lower()
        _NAMES.put(name, low)
    return low


def request_head(
    target: Target, headers: list[tuple[str, str]], body_len: int, *, close: bool
) -> bytes:
    """The request head aiohttp would write for ``POST`` of a ``body_len``-byte body:
    ``Host``, the given fields in order, ``Accept: */*`` unless given, ``Content-Length``,
    ``Content-Type: application/octet-stream`` unless given, ``Connection: close`` when the
    connection is not kept (the transport always gives ``User-Agent`` and
    ``Accept-Encoding``). Raises ValueError for a field name that is not a token or a value
    holding CR, LF or NUL."""
    accept = ctype = True
    lines = []
    for name, value in headers:
        low = _field_name(name)
        if low == "accept":
            accept = False
        elif low == "content-type":
            ctype = False
        lines.append(f"{name}: {value}\r\n")
    text = "".join(lines)
    n = len(lines)
    if text.count("\n") != n or text.count("\r") != n or "\x00" in text:
        raise ValueError("a header value holds CR, LF or NUL")
    tail = [text]
    if accept:
        tail.append("Accept: */*\r\n")
    tail.append(f"Content-Length: {body_len}\r\n")
    if ctype:
        tail.append("Content-Type: application/octet-stream\r\n")
    if close:
        tail.append("Connection: close\r\n")
    tail.append("\r\n")
    return target.head + "".join(tail).encode("utf-8")


#: The old name (tests and benches import it).
_Target = Target
