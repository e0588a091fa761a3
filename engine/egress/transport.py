"""The pinned, SSRF-safe egress transport (DESIGN.md section 5, issue 4).

Every byte hookproof sends to a subscriber goes through :class:`EgressTransport.post`:

1. the URL is normalised (https only, ports from the allow-list, canonical IP literals only);
2. the host is resolved once, through aiodns against the configured name servers, and the
   host is refused if ANY answer is a denied address (IP literals are vetted the same way);
3. aiohttp connects through a shared :class:`aiohttp.TCPConnector` whose resolver only hands
   out the addresses vetted for the current request (a context variable carries the
   per-request state, so concurrent requests never see each other's vetting), and whose
   ``socket_factory`` refuses any sockaddr not vetted for this request: the last guard;
4. TLS verifies the certificate against the original host name (SNI too), with an optional
   extra CA bundle added to the default trust store;
5. no redirects (a 3xx is a failure, its ``Location`` recorded, never fetched), no proxy from
   the environment, no automatic decompression, bounded connect and total time, bounded body.

Exact ``(address, port)`` allowances from configuration exempt that pair alone from the deny
list and the port allow-list, and every use is logged (``egress_allowance_used``).

DNS answers come from c-ares, which caches answers for their TTL (negative answers too): a
change is seen once the cached answer expires; whatever the cache returns is vetted the same
way on every request. A failed query for either address family (timeout, SERVFAIL) fails the
resolution rather than vetting a partial answer set.

Nothing here raises for a network outcome: :meth:`EgressTransport.post` returns an
:class:`EgressResult` whose ``code`` is a stable reason code and whose ``outcome`` tells the
delivery ledger whether the request may have reached the endpoint.
"""

from __future__ import annotations

import asyncio
import contextvars
import enum
import errno
import hashlib
import ipaddress
import socket
import ssl
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import SimpleNamespace
from typing import Any, Final

import aiodns
import aiodns.error
import aiohttp
import structlog
import yarl
from aiohappyeyeballs import AddrInfoType
from aiohttp.abc import AbstractResolver, ResolveResult
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from hookproof.config import Settings
from hookproof.errors import EgressRefused, ValidationError

from ..endpoint import DEFAULT_ALLOWED_PORTS, Endpoint, format_ip, normalise_endpoint
from .addresses import IPAddress, classify

__all__ = [
    "FAILURE_CODES",
    "AddressDrift",
    "EgressPolicy",
    "EgressResult",
    "EgressTimings",
    "EgressTransport",
    "Outcome",
    "PeerCertificate",
]

log = structlog.get_logger("hookproof.egress")

#: Every ``EgressResult.code`` this module can produce.
FAILURE_CODES: Final = frozenset(
    {
        "egress_refused_address",
        "egress_refused_port",
        "egress_refused_scheme",
        "egress_invalid_url",
        "egress_pin_mismatch",
        "dns_failure",
        "connect_timeout",
        "connect_failed",
        "tls_error",
        "response_timeout",
        "connection_reset",
        "protocol_error",
        "response_too_large",
        "redirect",
    }
)

_URL_CODE_MAP: Final = {
    "endpoint_scheme_not_https": "egress_refused_scheme",
    "endpoint_port_not_allowed": "egress_refused_port",
    "endpoint_ip_forbidden": "egress_refused_address",
    "endpoint_numeric_host": "egress_refused_address",
}

_READ_CHUNK: Final = 16 * 1024
#: aiodns error numbers meaning "no record of this type / no such name", not a failure.
_DNS_EMPTY: Final = frozenset({aiodns.error.ARES_ENODATA, aiodns.error.ARES_ENOTFOUND})
#: Framing headers belong to the transport; a caller's value for them is dropped.
_TRANSPORT_HEADERS: Final = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "expect", "upgrade", "te"}
)


class Outcome(enum.StrEnum):
    """What the ledger may conclude from a result.

    ``RESPONSE``: a final non-3xx response arrived (``status`` is set; ``code`` may still be
    ``response_too_large``). ``REDIRECT``: a 3xx arrived (a failure; never followed).
    ``REFUSED``: policy refused before any socket was opened. ``NOT_SENT``: the attempt
    failed before any request byte was handed to a connection (RETRYABLE). ``UNKNOWN``:
    request bytes may have reached the endpoint and no complete response came back
    (UNKNOWN_TRANSPORT).
    """

    RESPONSE = "response"
    REDIRECT = "redirect"
    REFUSED = "refused"
    NOT_SENT = "not_sent"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class EgressPolicy:
    """Egress limits. ``allow_pairs`` are exact ``(address, port)`` exemptions."""

    allowed_ports: frozenset[int] = DEFAULT_ALLOWED_PORTS
    allow_pairs: frozenset[tuple[str, int]] = frozenset()
    dns_servers: tuple[tuple[str, int], ...] = ()
    ca_file: str | None = None
    connect_timeout_s: float = 5.0
    total_timeout_s: float = 10.0
    max_response_bytes: int = 64 * 1024
    dns_timeout_s: float = 2.0
    dns_tries: int = 2
    max_connections: int = 100
    user_agent: str = "hookproof-egress/1"

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> EgressPolicy:
        base = cls(
            allowed_ports=frozenset(settings.egress_ports),
            allow_pairs=frozenset(settings.egress_allow),
            dns_servers=tuple(settings.dns_servers),
            ca_file=settings.egress_ca_file,
            connect_timeout_s=settings.connect_timeout_s,
            total_timeout_s=settings.request_timeout_s,
            max_response_bytes=settings.max_response_bytes,
        )
        return replace(base, **overrides) if overrides else base


@dataclass(frozen=True, slots=True)
class AddressDrift:
    """The resolved address set compared with a pinned one (from the passed challenge)."""

    expected: frozenset[str]
    observed: frozenset[str]
    denied: Mapping[str, str] = field(default_factory=dict)

    @property
    def added(self) -> frozenset[str]:
        return self.observed - self.expected

    @property
    def removed(self) -> frozenset[str]:
        return self.expected - self.observed

    @property
    def changed(self) -> bool:
        return self.observed != self.expected or bool(self.denied)


@dataclass(frozen=True, slots=True)
class PeerCertificate:
    """What the engine records about the verified peer certificate."""

    spki_sha256: str
    subject: str
    issuer: str
    authority_key_id: str | None
    not_after: str


@dataclass(frozen=True, slots=True)
class EgressTimings:
    """Seconds from the start of ``post`` (``None`` when the step did not happen)."""

    resolved: float | None = None
    connected: float | None = None
    request_written: float | None = None
    response_headers: float | None = None
    total: float = 0.0


@dataclass(frozen=True, slots=True)
class EgressResult:
    """The outcome of one POST. ``code`` is ``None`` only for a complete non-3xx response.

    ``resolved`` is every address the host resolved to (IP literal: itself), ``denied`` the
    ``(address, reason)`` pairs that made vetting refuse, ``peer_address``/``peer_port`` the
    socket actually used, ``certificate`` the verified peer certificate (SPKI sha-256, issuer,
    authority key id). ``request_started``/``request_written``: the headers / the whole
    request were handed to the connection; both err on the side of "maybe sent" (they are
    set just before the bytes are written), so ``NOT_SENT`` is only reported when no request
    byte can have left.
    """

    outcome: Outcome
    code: str | None
    url: str
    host: str
    port: int
    status: int | None = None
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    location: str | None = None
    resolved: tuple[str, ...] = ()
    peer_address: str | None = None
    peer_port: int | None = None
    certificate: PeerCertificate | None = None
    request_started: bool = False
    request_written: bool = False
    allowance_used: bool = False
    denied: tuple[tuple[str, str], ...] = ()
    drift: AddressDrift | None = None
    timings: EgressTimings = field(default_factory=EgressTimings)
    detail: str = ""

    @property
    def ok(self) -> bool:
        """A complete 2xx response within the bounds."""
        return self.code is None and self.status is not None and 200 <= self.status < 300

    @property
    def spki_sha256(self) -> str | None:
        return self.certificate.spki_sha256 if self.certificate else None

    def header(self, name: str) -> str | None:
        """First response header value for ``name`` (case-insensitive)."""
        lname = name.lower()
        return next((v for k, v in self.headers if k.lower() == lname), None)

    def raise_for_refusal(self) -> None:
        """Raise :class:`EgressRefused` (with this ``code``) if policy refused the target."""
        if self.outcome is Outcome.REFUSED:
            raise EgressRefused(self.detail or "egress refused", code=self.code, url=self.url)

    def evidence(self) -> dict[str, Any]:
        """A JSON-safe summary for events and logs: no body, no headers but Retry-After."""
        cert = self.certificate
        return {
            "outcome": self.outcome.value,
            "code": self.code,
            "url": self.url,
            "status": self.status,
            "location": self.location,
            "retryAfter": self.header("Retry-After"),
            "resolved": list(self.resolved),
            "denied": [list(d) for d in self.denied],
            "peerAddress": self.peer_address,
            "peerPort": self.peer_port,
            "spkiSha256": cert.spki_sha256 if cert else None,
            "certIssuer": cert.issuer if cert else None,
            "certAuthorityKeyId": cert.authority_key_id if cert else None,
            "requestStarted": self.request_started,
            "requestWritten": self.request_written,
            "allowanceUsed": self.allowance_used,
            "addressDrift": None
            if self.drift is None
            else {
                "expected": sorted(self.drift.expected),
                "observed": sorted(self.drift.observed),
                "denied": dict(sorted(self.drift.denied.items())),
            },
            "bodyBytes": len(self.body),
            "timings": {
                "resolved": self.timings.resolved,
                "connected": self.timings.connected,
                "requestWritten": self.timings.request_written,
                "responseHeaders": self.timings.response_headers,
                "total": self.timings.total,
            },
            "detail": self.detail,
        }


class _Refusal(OSError):
    """Raised inside aiohttp by our resolver or socket guard; carries a reason code."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(errno.EACCES, detail)
        self.code = code
        self.detail = detail


@dataclass(slots=True)
class _Attempt:
    """Per-request state, reachable from the connector through a context variable."""

    endpoint: Endpoint
    body_len: int
    t0: float
    deadline: float
    vetted: dict[tuple[IPAddress, int], int] = field(default_factory=dict)
    resolved: list[IPAddress] = field(default_factory=list)
    denied: list[tuple[str, str]] = field(default_factory=list)
    refusal: _Refusal | None = None
    guard_refusals: int = 0
    socket_opened: int = 0
    peer: tuple[str, int] | None = None
    certificate: PeerCertificate | None = None
    connected_at: float | None = None
    resolved_at: float | None = None
    headers_sent: bool = False
    body_sent: int = 0
    written_at: float | None = None

    def now(self) -> float:
        return asyncio.get_running_loop().time() - self.t0

    @property
    def request_written(self) -> bool:
        return self.headers_sent and self.body_sent >= self.body_len


_CURRENT: contextvars.ContextVar[_Attempt | None] = contextvars.ContextVar(
    "hookproof_egress_attempt", default=None
)


class _VettedResolver(AbstractResolver):
    """Hands aiohttp only the addresses vetted for the current request; never resolves."""

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        attempt = _CURRENT.get()
        if attempt is None or attempt.endpoint.host != host or attempt.endpoint.port != port:
            raise _Refusal("egress_refused_address", "no vetted resolution for this request")
        out: list[ResolveResult] = []
        for addr, vport in attempt.vetted:
            fam = socket.AF_INET6 if addr.version == 6 else socket.AF_INET
            if family and fam != family:
                continue
            out.append(
                {
                    "hostname": host,
                    "host": str(addr),
                    "port": vport,
                    "family": fam,
                    "proto": 0,
                    "flags": socket.AI_NUMERICHOST,
                }
            )
        if not out:
            raise _Refusal("egress_refused_address", "no vetted address for this request")
        return out

    async def close(self) -> None:
        return None


def _guarded_socket(addr_info: AddrInfoType) -> socket.socket:
    """``socket_factory`` for aiohappyeyeballs: the last line before a connect."""
    family, type_, proto, _, sockaddr = addr_info
    attempt = _CURRENT.get()
    try:
        addr = ipaddress.ip_address(sockaddr[0])
    except ValueError:
        addr = None
    if attempt is None or addr is None or (addr, int(sockaddr[1])) not in attempt.vetted:
        refusal = _Refusal("egress_refused_address", "socket guard: sockaddr not vetted")
        if attempt is not None:
            attempt.guard_refusals += 1
            attempt.refusal = attempt.refusal or refusal
        log.error("egress_socket_guard_refused", sockaddr=str(sockaddr[0]), port=sockaddr[1])
        raise refusal
    attempt.socket_opened += 1
    sock = socket.socket(family=family, type=type_, proto=proto)
    sock.setblocking(False)
    return sock


class _EgressConnector(aiohttp.TCPConnector):
    """Records the peer address and certificate of every connection handed to a request."""

    async def connect(
        self,
        req: aiohttp.ClientRequest,
        traces: list[Any],
        timeout: aiohttp.ClientTimeout,  # noqa: ASYNC109 - aiohttp's signature
    ) -> Any:
        conn = await super().connect(req, traces, timeout)
        attempt = _CURRENT.get()
        transport = conn.transport
        peer = transport.get_extra_info("peername") if transport is not None else None
        try:
            peer_pair = (ipaddress.ip_address(str(peer[0])), int(peer[1])) if peer else None
        except ValueError:
            peer_pair = None
        if attempt is None or peer_pair is None or peer_pair not in attempt.vetted:
            # unreachable while the socket guard works; kept as an independent check
            conn.close()
            refusal = _Refusal("egress_refused_address", "connected peer was not vetted")
            if attempt is not None:
                attempt.refusal = attempt.refusal or refusal
            log.error("egress_unvetted_peer", peer=str(peer))
            raise refusal
        assert transport is not None and peer is not None
        attempt.connected_at = attempt.now()
        attempt.peer = (format_ip(peer_pair[0]), peer_pair[1])
        sslobj = transport.get_extra_info("ssl_object")
        der = sslobj.getpeercert(binary_form=True) if sslobj is not None else None
        if der:
            attempt.certificate = _describe_certificate(der)
        return conn


def _describe_certificate(der: bytes) -> PeerCertificate:
    cert = x509.load_der_x509_certificate(der)
    spki = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    try:
        aki = cert.extensions.get_extension_for_class(x509.AuthorityKeyIdentifier).value
        aki_hex = aki.key_identifier.hex() if aki.key_identifier else None
    except x509.ExtensionNotFound:
        aki_hex = None
    return PeerCertificate(
        spki_sha256=hashlib.sha256(spki).hexdigest(),
        subject=cert.subject.rfc4514_string(),
        issuer=cert.issuer.rfc4514_string(),
        authority_key_id=aki_hex,
        not_after=cert.not_valid_after_utc.isoformat(),
    )


async def _on_headers_sent(
    _session: aiohttp.ClientSession, ctx: SimpleNamespace, _params: Any
) -> None:
    attempt: _Attempt | None = ctx.trace_request_ctx
    if attempt is not None:
        attempt.headers_sent = True
        if attempt.body_len == 0:
            attempt.written_at = attempt.now()


async def _on_chunk_sent(
    _session: aiohttp.ClientSession, ctx: SimpleNamespace, params: Any
) -> None:
    attempt: _Attempt | None = ctx.trace_request_ctx
    if attempt is not None:
        attempt.body_sent += len(params.chunk)
        if attempt.written_at is None and attempt.request_written:
            attempt.written_at = attempt.now()


def _nameserver_text(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


class EgressTransport:
    """The one transport for challenges and deliveries. Use as an async context manager.

    One connector and one DNS channel are shared by all requests; vetting is per request.
    Connections are not kept alive: every request resolves, vets and connects afresh, so a
    rebinding is seen on the next request, never hidden behind a pooled connection.
    """

    def __init__(self, policy: EgressPolicy | None = None) -> None:
        self.policy = policy or EgressPolicy()
        self._pairs: frozenset[tuple[IPAddress, int]] = frozenset(
            (ipaddress.ip_address(a), int(p)) for a, p in self.policy.allow_pairs
        )
        self._ssl = self._make_ssl_context()
        self._session: aiohttp.ClientSession | None = None
        self._dns: aiodns.DNSResolver | None = None
        self._closed = False
        if self._pairs:
            log.warning(
                "egress_allowances_configured",
                pairs=sorted(f"{a}:{p}" for a, p in self._pairs),
            )

    @classmethod
    def from_settings(cls, settings: Settings, **overrides: Any) -> EgressTransport:
        return cls(EgressPolicy.from_settings(settings, **overrides))

    async def __aenter__(self) -> EgressTransport:
        self._ensure_started()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the connector and the DNS channel. Idempotent."""
        self._closed = True
        session, self._session = self._session, None
        dns, self._dns = self._dns, None
        if session is not None:
            await session.close()
        if dns is not None:
            await dns.close()

    def _make_ssl_context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
        if self.policy.ca_file:
            ctx.load_verify_locations(cafile=self.policy.ca_file)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.check_hostname = True
        ctx.verify_mode = ssl.CERT_REQUIRED
        return ctx

    def _ensure_started(self) -> aiohttp.ClientSession:
        if self._closed:
            raise RuntimeError("EgressTransport is closed")
        if self._dns is None:
            kwargs: dict[str, Any] = {
                "timeout": self.policy.dns_timeout_s,
                "tries": self.policy.dns_tries,
            }
            servers = [_nameserver_text(a, p) for a, p in self.policy.dns_servers]
            self._dns = aiodns.DNSResolver(nameservers=servers or None, **kwargs)
        if self._session is None:
            trace = aiohttp.TraceConfig()
            trace.on_request_headers_sent.append(_on_headers_sent)
            trace.on_request_chunk_sent.append(_on_chunk_sent)
            connector = _EgressConnector(
                resolver=_VettedResolver(),
                use_dns_cache=False,
                force_close=True,
                limit=self.policy.max_connections,
                ssl=self._ssl,
                socket_factory=_guarded_socket,
            )
            self._session = aiohttp.ClientSession(
                connector=connector,
                trust_env=False,
                auto_decompress=False,
                trace_configs=[trace],
                cookie_jar=aiohttp.DummyCookieJar(),
                skip_auto_headers=("User-Agent", "Accept-Encoding"),
            )
        return self._session

    async def post(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        *,
        pin: Iterable[str] | None = None,
        enforce_pin: bool = False,
    ) -> EgressResult:
        """POST ``body`` to ``url`` under the egress policy; never raises for network outcomes.

        ``pin`` is the address set expected for the host (recorded when the challenge passed);
        the result's ``drift`` compares it with this resolution. With ``enforce_pin`` a
        changed set is refused (``egress_pin_mismatch``) before any connect.
        """
        session = self._ensure_started()
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        try:
            endpoint = normalise_endpoint(
                url, allowed_ports=self.policy.allowed_ports, allow_pairs=self.policy.allow_pairs
            )
        except ValidationError as exc:
            code = _URL_CODE_MAP.get(exc.code, "egress_invalid_url")
            log.info("egress_refused", code=code, reason=exc.code)
            return EgressResult(
                outcome=Outcome.REFUSED,
                code=code,
                url=url,
                host="",
                port=0,
                detail=exc.detail,
                timings=EgressTimings(total=loop.time() - t0),
            )

        attempt = _Attempt(
            endpoint=endpoint, body_len=len(body), t0=t0, deadline=t0 + self.policy.total_timeout_s
        )
        pinned = frozenset(pin) if pin is not None else None
        early = await self._vet(attempt)
        drift = self._drift(attempt, pinned)
        if early is None and enforce_pin and drift is not None and drift.changed:
            early = _Refusal("egress_pin_mismatch", "resolved addresses differ from the pin")
        if early is not None:
            return self._result(attempt, early.code, detail=early.detail, drift=drift)

        token = _CURRENT.set(attempt)
        try:
            return await self._send(session, attempt, body, headers, drift)
        finally:
            _CURRENT.reset(token)

    # -- vetting -----------------------------------------------------------------------

    async def _vet(self, attempt: _Attempt) -> _Refusal | None:
        endpoint = attempt.endpoint
        if endpoint.ip is not None:
            answers: list[IPAddress] = [endpoint.ip]
        else:
            try:
                async with asyncio.timeout_at(
                    min(attempt.t0 + self.policy.connect_timeout_s, attempt.deadline)
                ):
                    answers = await self._resolve(endpoint.host)
            except TimeoutError:
                return _Refusal("dns_failure", "DNS resolution timed out")
            except _Refusal as dns_refusal:
                return dns_refusal
            attempt.resolved_at = attempt.now()
        attempt.resolved = answers
        denied: list[str] = []
        bad_port: list[str] = []
        for addr in answers:
            pair = (addr, endpoint.port)
            if pair in self._pairs:
                continue
            reason = classify(addr)
            if reason is not None:
                denied.append(f"{format_ip(addr)} ({reason})")
                attempt.denied.append((format_ip(addr), reason))
            elif endpoint.port not in self.policy.allowed_ports:
                bad_port.append(format_ip(addr))
        refusal: _Refusal | None
        if denied:
            refusal = _Refusal("egress_refused_address", "denied address: " + ", ".join(denied))
        elif bad_port:
            refusal = _Refusal("egress_refused_port", f"port {endpoint.port} not allowed")
        else:
            refusal = None
        if refusal is not None:
            log.warning(
                "egress_refused", code=refusal.code, host=endpoint.host, detail=refusal.detail
            )
            return refusal
        for addr in answers:
            if (addr, endpoint.port) in self._pairs:
                log.warning(
                    "egress_allowance_used",
                    address=format_ip(addr),
                    port=endpoint.port,
                    host=endpoint.host,
                )
            attempt.vetted[(addr, endpoint.port)] = 1
        return None

    async def _resolve(self, host: str) -> list[IPAddress]:
        dns = self._dns
        assert dns is not None
        results = await asyncio.gather(
            dns.query_dns(host, "A"), dns.query_dns(host, "AAAA"), return_exceptions=True
        )
        answers: list[IPAddress] = []
        errors: list[str] = []
        for res in results:
            if isinstance(res, BaseException):
                if isinstance(res, asyncio.CancelledError):
                    raise res
                if not isinstance(res, aiodns.error.DNSError):
                    raise res
                message = str(res.args[1] if len(res.args) > 1 else res)
                if not res.args or res.args[0] not in _DNS_EMPTY:
                    # a timeout or SERVFAIL on either family: the answer set is unknown, and a
                    # partial set must not be vetted as if it were the whole
                    raise _Refusal("dns_failure", f"DNS query failed: {message}")
                errors.append(message)
                continue
            for record in res.answer:
                addr_text = getattr(record.data, "addr", None)
                if addr_text is None:
                    continue  # CNAME and friends: the chain's addresses follow
                try:
                    addr = ipaddress.ip_address(addr_text)
                except ValueError:
                    continue
                if addr not in answers:
                    answers.append(addr)
        if not answers:
            raise _Refusal("dns_failure", "no address: " + ("; ".join(errors) or "empty answer"))
        return answers

    def _drift(self, attempt: _Attempt, pinned: frozenset[str] | None) -> AddressDrift | None:
        if pinned is None or not attempt.resolved:
            return None
        expected = frozenset(format_ip(ipaddress.ip_address(a)) for a in pinned)
        observed = frozenset(format_ip(a) for a in attempt.resolved)
        denied = {
            format_ip(a): reason
            for a in attempt.resolved
            if (a, attempt.endpoint.port) not in self._pairs and (reason := classify(a)) is not None
        }
        drift = AddressDrift(expected=expected, observed=observed, denied=denied)
        if drift.changed:
            log.warning(
                "egress_address_drift",
                host=attempt.endpoint.host,
                added=sorted(drift.added),
                removed=sorted(drift.removed),
                denied=sorted(denied),
            )
        return drift

    # -- sending -----------------------------------------------------------------------

    async def _send(
        self,
        session: aiohttp.ClientSession,
        attempt: _Attempt,
        body: bytes,
        headers: Mapping[str, str] | Iterable[tuple[str, str]] | None,
        drift: AddressDrift | None,
    ) -> EgressResult:
        policy = self.policy
        req_headers: list[tuple[str, str]] = [
            ("User-Agent", policy.user_agent),
            ("Accept-Encoding", "identity"),
        ]
        if headers is not None:
            items = headers.items() if isinstance(headers, Mapping) else headers
            given = [(k, v) for k, v in items if k.lower() not in _TRANSPORT_HEADERS]
            names = {k.lower() for k, _ in given}
            req_headers = [(k, v) for k, v in req_headers if k.lower() not in names] + given
        timeout = aiohttp.ClientTimeout(
            total=None,
            connect=policy.connect_timeout_s,
            sock_connect=policy.connect_timeout_s,
        )
        status: int | None = None
        resp_headers: tuple[tuple[str, str], ...] = ()
        location: str | None = None
        head_at: float | None = None
        chunks: list[bytes] = []
        try:
            async with asyncio.timeout_at(attempt.deadline):
                async with session.post(
                    yarl.URL(attempt.endpoint.url, encoded=True),
                    data=body,
                    headers=req_headers,
                    allow_redirects=False,
                    timeout=timeout,
                    trace_request_ctx=attempt,
                ) as resp:
                    head_at = attempt.now()
                    status = resp.status
                    resp_headers = tuple(resp.headers.items())
                    if 300 <= status < 400:
                        location = resp.headers.get("Location", "")
                    declared = resp.content_length
                    if declared is not None and declared > policy.max_response_bytes:
                        return self._result(
                            attempt,
                            "response_too_large",
                            detail=f"Content-Length {declared} over bound",
                            status=status,
                            headers=resp_headers,
                            location=location,
                            head_at=head_at,
                            drift=drift,
                        )
                    size = 0
                    while True:
                        chunk = await resp.content.read(_READ_CHUNK)
                        if not chunk:
                            break
                        size += len(chunk)
                        if size > policy.max_response_bytes:
                            kept = policy.max_response_bytes - (size - len(chunk))
                            chunks.append(chunk[: max(kept, 0)])
                            return self._result(
                                attempt,
                                "response_too_large",
                                detail=f"body over {policy.max_response_bytes} bytes",
                                status=status,
                                headers=resp_headers,
                                body=b"".join(chunks),
                                location=location,
                                head_at=head_at,
                                drift=drift,
                            )
                        chunks.append(chunk)
        except Exception as exc:  # classified into a stable code below
            code, detail = self._classify_exception(attempt, exc, head_at is not None)
            return self._result(
                attempt,
                code,
                detail=detail,
                status=status,
                headers=resp_headers,
                body=b"".join(chunks),
                location=location,
                head_at=head_at,
                drift=drift,
            )
        final_code = "redirect" if location is not None else None
        return self._result(
            attempt,
            final_code,
            detail=f"redirect to {location!r}" if final_code else "",
            status=status,
            headers=resp_headers,
            body=b"".join(chunks),
            location=location,
            head_at=head_at,
            drift=drift,
        )

    def _classify_exception(
        self, attempt: _Attempt, exc: Exception, got_head: bool
    ) -> tuple[str, str]:
        connected = attempt.connected_at is not None
        if not connected:
            refusal = attempt.refusal or _find_refusal(exc)
            if refusal is not None:
                return refusal.code, refusal.detail
        text = f"{type(exc).__name__}: {exc}"
        if isinstance(exc, aiohttp.ClientConnectorDNSError):
            return "dns_failure", text
        if isinstance(exc, aiohttp.ClientSSLError | ssl.SSLError):
            return "tls_error", text
        if isinstance(exc, TimeoutError):
            if not connected:
                return "connect_timeout", text
            return "response_timeout", text
        if isinstance(exc, aiohttp.ClientConnectorError):
            return "connect_failed", text
        if not connected:
            return "connect_failed", text
        if isinstance(exc, aiohttp.ClientResponseError) and not got_head:
            return "protocol_error", text
        if isinstance(exc, aiohttp.ClientPayloadError) and not isinstance(
            exc.__cause__, ConnectionError
        ):
            return "protocol_error", text
        return "connection_reset", text

    def _result(
        self,
        attempt: _Attempt,
        code: str | None,
        *,
        detail: str = "",
        status: int | None = None,
        headers: tuple[tuple[str, str], ...] = (),
        body: bytes = b"",
        location: str | None = None,
        head_at: float | None = None,
        drift: AddressDrift | None = None,
    ) -> EgressResult:
        started = attempt.headers_sent
        if status is not None and 300 <= status < 400:
            outcome = Outcome.REDIRECT
        elif status is not None:
            outcome = Outcome.RESPONSE
        elif started:
            outcome = Outcome.UNKNOWN
        elif code is not None and code.startswith("egress_"):
            outcome = Outcome.REFUSED
        else:
            outcome = Outcome.NOT_SENT
        endpoint = attempt.endpoint
        used_allowance = (
            any((a, p) in self._pairs for (a, p) in attempt.vetted) and attempt.socket_opened > 0
        )
        result = EgressResult(
            outcome=outcome,
            code=code,
            url=endpoint.url,
            host=endpoint.host,
            port=endpoint.port,
            status=status,
            headers=headers,
            body=body,
            location=location,
            resolved=tuple(format_ip(a) for a in attempt.resolved),
            peer_address=attempt.peer[0] if attempt.peer else None,
            peer_port=attempt.peer[1] if attempt.peer else None,
            certificate=attempt.certificate,
            request_started=started,
            request_written=attempt.request_written,
            allowance_used=used_allowance,
            denied=tuple(attempt.denied),
            drift=drift,
            timings=EgressTimings(
                resolved=attempt.resolved_at,
                connected=attempt.connected_at,
                request_written=attempt.written_at,
                response_headers=head_at,
                total=attempt.now(),
            ),
            detail=detail,
        )
        log.info(
            "egress_result",
            host=endpoint.host,
            port=endpoint.port,
            outcome=outcome.value,
            code=code,
            status=status,
            peer=result.peer_address,
            written=result.request_written,
        )
        return result


def _find_refusal(exc: BaseException) -> _Refusal | None:
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, _Refusal):
            return cur
        os_error = getattr(cur, "os_error", None)
        if isinstance(os_error, _Refusal):
            return os_error
        cur = cur.__cause__ or cur.__context__
    return None
