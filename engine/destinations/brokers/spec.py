"""A subscription's broker ``destination``, normalised and checked (pure, no I/O).

:func:`parse_destination` turns the API's ``destination`` object (``schemas.destinations``) into
a :class:`Destination` (the bound fields, the canonical URL and the destination URI that
``hookproof.sig.v1`` signs as ``"@destination"``) and the write-only
:class:`BrokerCredentials`, or raises :class:`ValidationError` with a ``destination_*`` code
(``schemas.destinations.DESTINATION_CODES``) and ``field`` naming the member.

Rules (DESIGN.md section 13 and section 5):

- AMQP: ``amqps://host[:port][/<vhost>]`` (vhost percent-encoded, ``%2F`` for ``/``, absent
  meaning ``/``); NATS: ``tls://host[:port]``. No userinfo (credentials are a field of their
  own), no query (client libraries read TLS options such as ``no_verify_ssl`` from it), no
  fragment.
- The host is normalised as an endpoint's (IDNA A-labels, canonical IP literals only; a
  denied address literal refused unless an exact allowance pair); ports from the egress
  allow-list plus 5671 and 4222.
- Plain ``amqp://`` and ``nats://`` only towards exact ``HOOKPROOF_EGRESS_ALLOW`` pairs: an IP
  literal must be one; a host name must have a pair on its port here, and every address it
  resolves to must be a pair when a connection is opened (:mod:`.net`).
- Names: AMQP exchange names as AMQP 0-9-1 allows them (``[A-Za-z0-9-_.:]``, at most 255
  bytes; ``""`` is the default exchange), routing keys at most 255 UTF-8 bytes of printable
  text; NATS subjects literal (no ``*`` or ``>`` token, no ``$`` system subjects), stream names
  as JetStream allows them.

:func:`credentials_digest` is keyed (HMAC-SHA256 under a key derived from the master key by
:func:`digest_key`), so a digest in an event or a log line cannot be turned back into a weak
password by guessing.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import unquote

import msgspec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from hookproof.errors import ValidationError
from hookproof.schemas.destinations import (
    AMQP_DEFAULT_PORTS,
    BROKER_PORTS,
    NATS_DEFAULT_PORTS,
    AmqpDestinationIn,
    BrokerDestinationIn,
    CredentialsIn,
    DestinationOut,
    NatsDestinationIn,
)
from hookproof_subscriber import amqp_destination_uri, destination_digest, nats_destination_uri

from ...egress.addresses import IPAddress, classify
from ...egress.endpoint import DEFAULT_ALLOWED_PORTS, normalise_host

__all__ = [
    "TLS_SCHEMES",
    "BrokerCredentials",
    "Destination",
    "credentials_digest",
    "decode_destination",
    "destination_out",
    "digest_key",
    "parse_destination",
]

TLS_SCHEMES: Final = frozenset({"amqps", "tls"})
_FIELD: Final = "destination"
_SCHEME_RE: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*")
_EXCHANGE_RE: Final = re.compile(r"[A-Za-z0-9\-_.:]*")
_STREAM_BAD: Final = re.compile(r"[\s.*>/\\\x00-\x1f\x7f]")
_SUBJECT_TOKEN: Final = re.compile(r"[\x21-\x7e]+")
_HOST_CODES: Final = {
    "endpoint_ip_forbidden": "destination_ip_forbidden",
    "endpoint_numeric_host": "destination_numeric_host",
    "endpoint_host_too_long": "destination_host_too_long",
}
_DIGEST_INFO: Final = b"hookproof destination credentials digest v1"


def _reject(code: str, detail: str, member: str = "url") -> ValidationError:
    return ValidationError(detail, field=f"{_FIELD}.{member}", code=code)


@dataclass(frozen=True, slots=True)
class BrokerCredentials:
    """Write-only credentials. Never printed: ``repr`` is redacted."""

    username: str | None = None
    password: str | None = None
    token: str | None = None
    creds: str | None = None

    def __repr__(self) -> str:
        return "BrokerCredentials(<redacted>)"

    __str__ = __repr__

    @property
    def kind(self) -> str:
        """``password``, ``token`` or ``creds``."""
        if self.token is not None:
            return "token"
        if self.creds is not None:
            return "creds"
        return "password"

    def secrets(self) -> tuple[str, ...]:
        """Every secret text (what a log scrubber must never let through)."""
        found = (self.password, self.token, self.creds)
        out = [s for s in found if s]
        if self.creds:  # the seed and JWT lines of a creds file, each on its own
            out.extend(line.strip() for line in self.creds.splitlines() if len(line.strip()) > 16)
        return tuple(out)


@dataclass(frozen=True, slots=True)
class Destination:
    """A normalised broker destination (no credentials).

    ``url`` is the canonical connection URL (``amqps://host:5671/%2F``, ``tls://host:4222``);
    ``uri`` the destination URI signed as ``"@destination"`` and shown to the subscriber
    (``amqps://host:5671/%2F/<exchange>/<routingKey>``, ``tls://host:4222/<subject>``);
    ``digest`` its SHA-256 (a broker challenge's ``endpointDigest``). ``host`` is the A-label
    name or the canonical IP text, ``ip`` the address of a literal.
    """

    type: str
    scheme: str
    host: str
    port: int
    url: str
    uri: str
    digest: str
    ip: IPAddress | None = None
    vhost: str | None = None
    exchange: str | None = None
    routing_key: str | None = None
    subject: str | None = None
    stream: str | None = None

    @property
    def tls(self) -> bool:
        return self.scheme in TLS_SCHEMES

    def bound_fields(self, credentials_digest: str | None) -> dict[str, Any]:
        """The fields whose change is a new generation (section 13)."""
        out: dict[str, Any] = {
            "type": self.type,
            "scheme": self.scheme,
            "host": self.host,
            "port": self.port,
        }
        if self.type == "amqp":
            out.update(vhost=self.vhost, exchange=self.exchange, routingKey=self.routing_key)
        else:
            out.update(subject=self.subject, stream=self.stream)
        out["credentialsDigest"] = credentials_digest
        return out


def decode_destination(value: Any) -> BrokerDestinationIn:
    """The API's ``destination`` object (already JSON-decoded) as a typed struct; raises
    :class:`ValidationError` ``destination_invalid`` naming the offending member."""
    if isinstance(value, AmqpDestinationIn | NatsDestinationIn):
        return value
    try:
        out: BrokerDestinationIn = msgspec.convert(value, BrokerDestinationIn)
    except msgspec.ValidationError as exc:
        # msgspec names the member ("... - at `$.routingKey`"); never echoes a value
        raise ValidationError(
            f"destination: {exc}", field=_FIELD, code="destination_invalid"
        ) from exc
    return out


def parse_destination(
    value: Any,
    *,
    allowed_ports: Iterable[int] = DEFAULT_ALLOWED_PORTS,
    allow_pairs: Iterable[tuple[str, int]] = frozenset(),
) -> tuple[Destination, BrokerCredentials | None]:
    """Normalise and check a destination; see the module's rules. ``allowed_ports`` is the
    egress port allow-list (5671 and 4222 join it), ``allow_pairs`` the exact allowances."""
    raw = decode_destination(value)
    pairs = frozenset((ipaddress.ip_address(a), int(p)) for a, p in allow_pairs)
    ports = frozenset(int(p) for p in allowed_ports) | BROKER_PORTS
    if isinstance(raw, AmqpDestinationIn):
        scheme, host, ip, port, path = _split_url(raw.url, AMQP_DEFAULT_PORTS, pairs, ports)
        vhost = _vhost(path)
        exchange = _exchange(raw.exchange)
        routing_key = _routing_key(raw.routing_key)
        url = f"{scheme}://{_authority(host, port)}/{_vhost_segment(vhost)}"
        uri = amqp_destination_uri(scheme, host, port, vhost, exchange, routing_key)
        dest = Destination(
            "amqp",
            scheme,
            host,
            port,
            url,
            uri,
            destination_digest(uri),
            ip,
            vhost=vhost,
            exchange=exchange,
            routing_key=routing_key,
        )
    else:
        scheme, host, ip, port, path = _split_url(raw.url, NATS_DEFAULT_PORTS, pairs, ports)
        if path not in ("", "/"):
            raise _reject("destination_url_invalid", "a NATS URL has no path")
        subject = _subject(raw.subject)
        stream = _stream(raw.stream)
        url = f"{scheme}://{_authority(host, port)}"
        uri = nats_destination_uri(scheme, host, port, subject)
        dest = Destination(
            "nats",
            scheme,
            host,
            port,
            url,
            uri,
            destination_digest(uri),
            ip,
            subject=subject,
            stream=stream,
        )
    return dest, _credentials(dest.type, raw.credentials)


def destination_out(dest: Destination, credentials_digest: str | None = None) -> DestinationOut:
    """How the API shows a destination (never the credentials)."""
    return DestinationOut(
        type="amqp" if dest.type == "amqp" else "nats",
        url=dest.url,
        uri=dest.uri,
        destination_digest=dest.digest,
        exchange=dest.exchange,
        routing_key=dest.routing_key,
        subject=dest.subject,
        stream=dest.stream,
        credentials_digest=credentials_digest,
    )


def digest_key(master_key: bytes) -> bytes:
    """The key of :func:`credentials_digest`, derived from the master key (HKDF-SHA256)."""
    if len(master_key) < 16:
        raise ValueError("the master key is too short")
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_DIGEST_INFO).derive(
        master_key
    )


def credentials_digest(credentials: BrokerCredentials | None, key: bytes) -> str | None:
    """``hmac-sha256:<hex>`` over the credentials' canonical JSON (None without any): a
    bound field, the pool's key, and what events and logs may carry instead of a secret."""
    if credentials is None:
        return None
    doc = {
        k: v
        for k, v in (
            ("creds", credentials.creds),
            ("password", credentials.password),
            ("token", credentials.token),
            ("username", credentials.username),
        )
        if v is not None
    }
    mac = hmac.new(key, msgspec.json.encode(doc, order="sorted"), hashlib.sha256)
    return "hmac-sha256:" + mac.hexdigest()


# -- the pieces ------------------------------------------------------------------------------


def _authority(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _split_url(
    url: str,
    default_ports: Mapping[str, int],
    pairs: frozenset[tuple[IPAddress, int]],
    ports: frozenset[int],
) -> tuple[str, str, IPAddress | None, int, str]:
    """``(scheme, host, ip, port, path)`` of a broker URL, with the address rules applied."""
    if any(ch <= " " or ch == "\x7f" or ch == "\\" for ch in url):
        raise _reject("destination_url_invalid", "URL contains whitespace, control or backslash")
    scheme, sep, rest = url.partition(":")
    if not sep or not _SCHEME_RE.fullmatch(scheme) or not rest.startswith("//"):
        raise _reject("destination_url_invalid", "not an absolute URL with an authority")
    scheme = scheme.lower()
    if scheme not in default_ports:
        allowed = " or ".join(f"{s}://" for s in default_ports)
        raise _reject("destination_scheme_not_allowed", f"the URL must start with {allowed}")
    rest = rest[2:]
    if "#" in rest:
        raise _reject("destination_fragment", "the URL must not have a fragment")
    if "?" in rest:
        raise _reject("destination_query", "the URL must not have a query")
    cut = rest.find("/")
    authority, path = (rest, "") if cut < 0 else (rest[:cut], rest[cut:])
    if "@" in authority:
        raise _reject("destination_userinfo", "credentials go in `credentials`, not the URL")
    raw_host, port = _host_port(authority, default_ports[scheme])
    try:
        host, ip = normalise_host(raw_host)
    except ValidationError as exc:
        code = _HOST_CODES.get(exc.code, "destination_url_invalid")
        raise _reject(code, exc.detail) from exc
    tls = scheme in TLS_SCHEMES
    if ip is not None:
        exact = (ip, port) in pairs
        shown = f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}"
        allow = f"; the engine's HOOKPROOF_EGRESS_ALLOW={shown} permits exactly this address"
        if not tls and not exact:
            raise _reject(
                "destination_plain_not_allowed", f"{scheme}:// needs TLS or an allowance{allow}"
            )
        reason = classify(ip)
        if reason is not None and not exact:
            raise _reject("destination_ip_forbidden", f"address not permitted ({reason}){allow}")
        if port not in ports and not exact:
            raise _reject("destination_port_not_allowed", f"port {port} not allowed{allow}")
    else:
        pair_ports = {p for _, p in pairs}
        allow = "; the engine's HOOKPROOF_EGRESS_ALLOW=<address>:<port> permits one exact pair"
        if not tls and port not in pair_ports:
            raise _reject(
                "destination_plain_not_allowed", f"{scheme}:// needs TLS or an allowance{allow}"
            )
        if port not in ports and port not in pair_ports:
            raise _reject("destination_port_not_allowed", f"port {port} not allowed{allow}")
    return scheme, host, ip, port, path


def _host_port(authority: str, default_port: int) -> tuple[str, int]:
    if authority.startswith("["):
        end = authority.find("]")
        if end < 0:
            raise _reject("destination_url_invalid", "unterminated IPv6 literal")
        host, after = authority[: end + 1], authority[end + 1 :]
        if after and not after.startswith(":"):
            raise _reject("destination_url_invalid", "garbage after the IPv6 literal")
        port_text: str | None = after[1:] if after else None
    else:
        if authority.count(":") > 1:
            raise _reject("destination_url_invalid", "unbracketed IPv6 literal or bad port")
        host, sep, text = authority.partition(":")
        port_text = text if sep else None
    if not host:
        raise _reject("destination_url_invalid", "the URL has no host")
    if port_text is None:
        return host, default_port
    if not port_text.isascii() or not port_text.isdigit() or len(port_text) > 5:
        raise _reject("destination_url_invalid", "port must be decimal digits")
    port = int(port_text)
    if not 0 < port < 65536:
        raise _reject("destination_url_invalid", "port out of range")
    return host, port


def _printable(text: str) -> bool:
    return text.isprintable() and not any(ch in "\r\n\t" for ch in text)


def _vhost(path: str) -> str:
    if path == "":
        return "/"
    segment = path[1:]
    if "/" in segment:
        raise _reject("destination_url_invalid", "the path is one vhost segment (%2F for /)")
    if not segment or re.search(r"%(?![0-9A-Fa-f]{2})", segment):
        raise _reject("destination_vhost_invalid", "the vhost segment is empty or mis-escaped")
    try:
        vhost = unquote(segment, encoding="utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise _reject("destination_vhost_invalid", "the vhost is not UTF-8") from exc
    if not _printable(vhost) or len(vhost.encode()) > 255:
        raise _reject("destination_vhost_invalid", "the vhost must be printable, <= 255 bytes")
    return vhost


def _vhost_segment(vhost: str) -> str:
    segment: str = amqp_destination_uri("amqp", "h", 1, vhost, "", "").split("/")[3]
    return segment


def _exchange(name: str) -> str:
    if not _EXCHANGE_RE.fullmatch(name) or len(name) > 255:
        raise _reject(
            "destination_exchange_invalid",
            "an exchange name is letters, digits, '-', '_', '.', ':' (at most 255)",
            "exchange",
        )
    return name


def _routing_key(key: str) -> str:
    if not _printable(key) or len(key.encode()) > 255:
        raise _reject(
            "destination_routing_key_invalid",
            "a routing key is printable text of at most 255 bytes",
            "routingKey",
        )
    return key


def _subject(subject: str) -> str:
    tokens = subject.split(".")
    if (
        not subject
        or len(subject) > 255
        or subject.startswith("$")
        or any(not _SUBJECT_TOKEN.fullmatch(t) or t in ("*", ">") for t in tokens)
    ):
        raise _reject(
            "destination_subject_invalid",
            "a subject is literal dot-separated tokens of printable ASCII (no *, >, $)",
            "subject",
        )
    return subject


def _stream(stream: str) -> str:
    if not stream or len(stream) > 255 or not stream.isascii() or _STREAM_BAD.search(stream):
        raise _reject(
            "destination_stream_invalid",
            "a stream name has no whitespace, '.', '*', '>', '/' or '\\'",
            "stream",
        )
    return stream


def _credentials(kind: str, raw: CredentialsIn | None) -> BrokerCredentials | None:
    if raw is None:
        return None
    values = {
        "username": raw.username,
        "password": raw.password,
        "token": raw.token,
        "creds": raw.creds,
    }
    for name, value in values.items():
        bad = "\x00" in value if value is not None else False
        if name != "creds" and value is not None:
            bad = bad or "\r" in value or "\n" in value
        if value is not None and (not value or bad):
            raise _reject(
                "destination_credentials_invalid", f"{name} must be non-empty text", "credentials"
            )
    given = {k for k, v in values.items() if v is not None}
    if given == {"username", "password"}:
        return BrokerCredentials(username=raw.username, password=raw.password)
    if kind == "nats" and given == {"token"}:
        return BrokerCredentials(token=raw.token)
    if kind == "nats" and given == {"creds"}:
        if "-----BEGIN NATS USER JWT-----" not in (raw.creds or ""):
            raise _reject(
                "destination_credentials_invalid", "creds is a NATS .creds file", "credentials"
            )
        return BrokerCredentials(creds=raw.creds)
    forms = "username and password" + (", or token, or creds" if kind == "nats" else "")
    raise _reject("destination_credentials_invalid", f"credentials are {forms}", "credentials")
