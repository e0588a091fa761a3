"""Endpoint normalisation: one function, one canonical text, one digest (DESIGN.md 3-5, 11).

``normalise_endpoint`` accepts an https URL and returns its canonical form:

- scheme and host lowercased; internationalised names mapped (UTS 46, non-transitional) and
  encoded to IDNA A-labels; one trailing dot dropped;
- the default port 443 removed; other ports from the allow-list only (a port of an exact
  allowed ``(address, port)`` pair is permitted for that address, and, for host names, for
  the addresses the name will resolve to: the egress transport checks the pair exactly);
- an empty path becomes ``/``; dot segments removed; percent-escapes uppercased, escapes of
  unreserved characters decoded, characters outside RFC 3986 escaped; the query is kept;
- no userinfo, no fragment, https only;
- IP literals must be canonical (dotted-quad IPv4, bracketed IPv6 without zone id) and not in
  a denied range unless exactly allowed; any other numeric host form is refused because
  resolvers disagree about it.

The digest is the lowercase hex sha-256 of the canonical URL's UTF-8 bytes.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

import idna

from hookproof.errors import ValidationError

from .addresses import IPAddress, classify, format_ip

__all__ = [
    "DEFAULT_ALLOWED_PORTS",
    "ENDPOINT_CODES",
    "MAX_URL_LENGTH",
    "Endpoint",
    "format_ip",
    "normalise_endpoint",
    "normalise_host",
]

DEFAULT_ALLOWED_PORTS: Final = frozenset({443, 8443})
MAX_URL_LENGTH: Final = 2048
_FIELD: Final = "endpoint"

ENDPOINT_CODES: Final = frozenset(
    {
        "endpoint_scheme_not_https",
        "endpoint_userinfo",
        "endpoint_fragment",
        "endpoint_port_not_allowed",
        "endpoint_ip_forbidden",
        "endpoint_numeric_host",
        "endpoint_host_too_long",
        "endpoint_invalid",
    }
)

_SCHEME_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_LABEL_RE: Final = re.compile(r"[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?")
_HEX_LABEL_RE: Final = re.compile(r"0x[0-9a-f]*")
_UNRESERVED: Final = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# pchar = unreserved / pct-encoded / sub-delims / ":" / "@"; query adds "/" and "?".
_PATH_SAFE: Final = _UNRESERVED | frozenset("!$&'()*+,;=:@/")
_QUERY_SAFE: Final = _PATH_SAFE | frozenset("?")
_HEX: Final = frozenset("0123456789abcdefABCDEF")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A normalised https endpoint.

    ``host`` is the A-label host name or the canonical IP text (IPv6 without brackets),
    ``port`` the effective port (443 when the URL omits it), ``path`` the normalised path,
    ``query`` the normalised query without ``?`` (``None`` when absent).
    """

    url: str
    host: str
    port: int
    path: str
    query: str | None
    digest: str
    ip: IPAddress | None = None

    @property
    def is_ip_literal(self) -> bool:
        return self.ip is not None


def _reject(code: str, detail: str) -> ValidationError:
    return ValidationError(detail, field=_FIELD, code=code)


def normalise_endpoint(
    url: str,
    *,
    allowed_ports: Iterable[int] = DEFAULT_ALLOWED_PORTS,
    allow_pairs: Iterable[tuple[str, int]] = frozenset(),
) -> Endpoint:
    """Normalise ``url`` or raise :class:`ValidationError` (``field="endpoint"``, a code)."""
    if not isinstance(url, str):
        raise _reject("endpoint_invalid", "endpoint must be a string")
    if len(url) > MAX_URL_LENGTH:
        raise _reject("endpoint_invalid", f"endpoint longer than {MAX_URL_LENGTH} characters")
    if any(ch <= " " or ch == "\x7f" or ch == "\\" for ch in url):
        raise _reject("endpoint_invalid", "endpoint contains whitespace, control or backslash")

    scheme, sep, rest = url.partition(":")
    if not sep or not _SCHEME_RE.fullmatch(scheme):
        raise _reject("endpoint_invalid", "endpoint is not an absolute URL")
    if scheme.lower() != "https":
        raise _reject("endpoint_scheme_not_https", "endpoint must use https")
    if not rest.startswith("//"):
        raise _reject("endpoint_invalid", "endpoint has no authority")
    rest = rest[2:]
    if "#" in rest:
        raise _reject("endpoint_fragment", "endpoint must not have a fragment")

    cut = min((i for i in (rest.find("/"), rest.find("?")) if i >= 0), default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    if "@" in authority:
        raise _reject("endpoint_userinfo", "endpoint must not carry userinfo")

    raw_host, port = _split_authority(authority)
    pairs = {_pair(a, p) for a, p in allow_pairs}
    ports = frozenset(allowed_ports)
    host, ip = _normalise_host(raw_host)

    if ip is not None:
        exact = (ip, port) in pairs
        reason = classify(ip)
        shown = f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}"
        if reason is not None and not exact:
            raise _reject(
                "endpoint_ip_forbidden",
                f"address not permitted ({reason}); the engine's HOOKPROOF_EGRESS_ALLOW"
                f"={shown} permits exactly this address and port (a development receiver)",
            )
        if port not in ports and not exact:
            raise _reject("endpoint_port_not_allowed", _port_refusal(port, ports, shown))
    elif port not in ports and port not in {p for _, p in pairs}:
        raise _reject("endpoint_port_not_allowed", _port_refusal(port, ports, None))

    path, query = _normalise_tail(tail)
    host_text = f"[{host}]" if ":" in host else host
    port_text = "" if port == 443 else f":{port}"
    canonical = f"https://{host_text}{port_text}{path}"
    if query is not None:
        canonical += f"?{query}"
    digest = hashlib.sha256(canonical.encode("utf-8")).hexdigest()
    return Endpoint(canonical, host, port, path, query, digest, ip)


def _port_refusal(port: int, ports: frozenset[int], shown: str | None) -> str:
    allowed = ",".join(str(p) for p in sorted(ports)) or "none"
    exact = shown or "<address>:" + str(port)
    return (
        f"port {port} not allowed (the engine's HOOKPROOF_EGRESS_PORTS: {allowed});"
        f" HOOKPROOF_EGRESS_ALLOW={exact} permits one exact address and port"
    )


def _pair(address: str, port: int) -> tuple[IPAddress, int]:
    return ipaddress.ip_address(address), int(port)


def _split_authority(authority: str) -> tuple[str, int]:
    if authority.startswith("["):
        end = authority.find("]")
        if end < 0:
            raise _reject("endpoint_invalid", "unterminated IPv6 literal")
        host, after = authority[: end + 1], authority[end + 1 :]
        if after and not after.startswith(":"):
            raise _reject("endpoint_invalid", "garbage after IPv6 literal")
        port_text = after[1:] if after else None
    else:
        if authority.count(":") > 1:
            raise _reject("endpoint_invalid", "unbracketed IPv6 literal or bad port")
        host, sep, port_text_ = authority.partition(":")
        port_text = port_text_ if sep else None
    if not host:
        raise _reject("endpoint_invalid", "endpoint has no host")
    if port_text is None:
        return host, 443
    if not port_text or not port_text.isascii() or not port_text.isdigit():
        raise _reject("endpoint_invalid", "port must be decimal digits")
    if len(port_text) > 5 or not 0 < int(port_text) < 65536:
        raise _reject("endpoint_invalid", "port out of range")
    return host, int(port_text)


def normalise_host(raw: str) -> tuple[str, IPAddress | None]:
    """The host of an authority as an endpoint's: A-label name (lower case, one trailing dot
    dropped) or canonical IP text (IPv6 bracketed in *raw*), with the address for a literal.
    Raises :class:`ValidationError` (``field="endpoint"``) with an ``endpoint_*`` code; the
    broker destinations (:mod:`..destinations.spec`) use it too."""
    return _normalise_host(raw)


def _normalise_host(raw: str) -> tuple[str, IPAddress | None]:
    if raw.startswith("["):
        inner = raw[1:-1]
        if "%" in inner or not inner or inner.startswith("v") or inner.startswith("V"):
            raise _reject("endpoint_invalid", "IPv6 literal with zone id or IPvFuture")
        try:
            addr6 = ipaddress.IPv6Address(inner)
        except ValueError as exc:
            raise _reject("endpoint_invalid", "malformed IPv6 literal") from exc
        return format_ip(addr6), addr6
    if "%" in raw:
        raise _reject("endpoint_invalid", "percent-encoded host")
    if not raw.isascii():
        raw = _to_ascii(raw)
    host = raw.lower()
    trailing_dot = host.endswith(".")
    name = host[:-1] if trailing_dot else host
    if len(name) > 253:
        raise _reject("endpoint_host_too_long", "host name longer than 253 characters")
    if not name:
        raise _reject("endpoint_invalid", "empty host")

    labels = name.split(".")
    if labels[-1].isdigit() or _HEX_LABEL_RE.fullmatch(labels[-1]):
        # The host "ends in a number": WHATWG parsers treat it as IPv4. Only the canonical
        # dotted-quad is accepted; 127.1, 0177.0.0.1, 0x7f000001, 2130706433, trailing dots...
        if not trailing_dot and _is_canonical_ipv4(name):
            addr4 = ipaddress.IPv4Address(name)
            return str(addr4), addr4
        raise _reject("endpoint_numeric_host", "non-canonical numeric host")

    if labels[-1] == "localhost":
        raise _reject(
            "endpoint_ip_forbidden",
            "localhost names always mean loopback: register https://127.0.0.1:<port>/... and"
            " set HOOKPROOF_EGRESS_ALLOW=127.0.0.1:<port> where the engine runs"
            " (hookproof dev-endpoint prints the settings)",
        )
    for label in labels:
        if len(label) > 63:
            raise _reject("endpoint_host_too_long", "host label longer than 63 characters")
        if not _LABEL_RE.fullmatch(label):
            raise _reject("endpoint_invalid", "host label not letters, digits and hyphens")
        if label.startswith("xn--"):
            try:
                idna.decode(label)
            except (idna.IDNAError, UnicodeError) as exc:
                raise _reject("endpoint_invalid", "invalid IDNA A-label") from exc
    return name, None


def _to_ascii(raw: str) -> str:
    """UTS 46 mapping then IDNA 2008 A-labels, label by label."""
    if len(raw) > 1024:
        raise _reject("endpoint_host_too_long", "host name too long")
    try:
        mapped = idna.uts46_remap(raw, std3_rules=True, transitional=False)
    except (idna.IDNAError, UnicodeError) as exc:
        raise _reject("endpoint_invalid", "host is not a valid internationalised name") from exc
    out: list[str] = []
    for label in mapped.split("."):
        if label.isascii():
            out.append(label)
            continue
        try:
            out.append(idna.alabel(label).decode("ascii"))
        except (idna.IDNAError, UnicodeError) as exc:
            if "too long" in str(exc).lower():
                raise _reject("endpoint_host_too_long", "host label too long") from exc
            raise _reject("endpoint_invalid", "host is not a valid IDNA name") from exc
    return ".".join(out)


def _is_canonical_ipv4(host: str) -> bool:
    parts = host.split(".")
    if len(parts) != 4:
        return False
    for part in parts:
        if not part.isascii() or not part.isdigit() or len(part) > 3:
            return False
        if (len(part) > 1 and part[0] == "0") or int(part) > 255:
            return False
    return True


def _normalise_tail(tail: str) -> tuple[str, str | None]:
    raw_path, qsep, raw_query = tail.partition("?")
    path = _remove_dot_segments(_escape(raw_path, _PATH_SAFE)) or "/"
    query = _escape(raw_query, _QUERY_SAFE) if qsep else None
    return path, query


def _escape(text: str, safe: frozenset[str]) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "%":
            hexpair = text[i + 1 : i + 3]
            if len(hexpair) != 2 or not set(hexpair) <= _HEX:
                raise _reject("endpoint_invalid", "malformed percent-escape")
            decoded = chr(int(hexpair, 16))
            out.append(decoded if decoded in _UNRESERVED else f"%{hexpair.upper()}")
            i += 3
            continue
        if ch in safe:
            out.append(ch)
        else:
            try:
                encoded = ch.encode("utf-8")
            except UnicodeEncodeError as exc:
                raise _reject("endpoint_invalid", "unpaired surrogate in URL") from exc
            out.extend(f"%{b:02X}" for b in encoded)
        i += 1
    return "".join(out)


def _remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4 on an already escaped path (``%2E`` was decoded to ``.``)."""
    if "." not in path:
        return path
    segments = path.split("/")
    out: list[str] = []
    for seg in segments[1:]:
        if seg == ".":
            continue
        if seg == "..":
            if out:
                out.pop()
            continue
        out.append(seg)
    if segments[-1] in (".", ".."):
        out.append("")
    return "/" + "/".join(out)
