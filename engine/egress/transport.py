"""The pinned, SSRF-safe egress transport (DESIGN.md section 5).

Every byte hookproof sends to a subscriber goes through :meth:`EgressTransport.post`:

1. the URL is normalised (https only, ports from the allow-list, canonical IP literals only);
2. the host is resolved through aiodns against the configured name servers (answers cached
   at most min(TTL, 30 s), :mod:`.dns`), and the pure address policy (:mod:`.policy`)
   refuses the host if ANY answer is a denied address (IP literals are vetted the same way);
   the drift against the challenge's pin is computed from the same verdicts; both happen on
   every request, before a byte is written;
3. the adapter (:mod:`.adapter`, public interfaces only) connects only to the vetted addresses
   (its resolver hands out nothing else, its socket factory refuses anything else) and reuses
   a pooled connection only under the pinned pool's rule (:mod:`.pool`) and only if no byte
   arrived on it since its last answer ended (:mod:`.connection`);
4. TLS verifies the certificate against the original host name (SNI too), with an optional
   extra CA bundle added to the default trust store;
5. no redirects (a 3xx is a failure, its ``Location`` recorded, never fetched), no proxy from
   the environment, no automatic decompression, bounded connect and total time, bounded body.

Exact ``(address, port)`` allowances from configuration exempt that pair alone from the deny
list and the port allow-list. They are logged when configured (``egress_allowances_configured``)
and for every connection opened through one (``egress_allowance_used``, a warning); every
result says whether its connection went through one (``allowance_used``).

Nothing here raises for a network outcome: :meth:`EgressTransport.post` returns an
:class:`EgressResult` whose ``code`` is a :class:`FailureCode` and whose ``outcome`` (one rule,
:func:`.failures.outcome_of`) tells the ledger whether the request may have reached the
endpoint.
"""

from __future__ import annotations

import asyncio
import hashlib
import ssl
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

import structlog

from hookproof.config import Settings
from hookproof.errors import ValidationError

from ..common.memo import BoundedMemo
from .adapter import Attempt, WireAdapter
from .addresses import IPAddress, format_ip
from .dns import DnsFailure, HostResolver
from .endpoint import DEFAULT_ALLOWED_PORTS, Endpoint, normalise_endpoint
from .failures import FAILURE_CODES, FailureCode, Outcome, outcome_of
from .identity import ClientIdentity, load_client_chain
from .policy import AddressDrift, AddressPolicy, Vetting
from .pool import PoolLimits
from .proxy import EgressProxy, parse_proxy
from .result import EgressResult, EgressTimings, PeerCertificate

__all__ = [
    "FAILURE_CODES",
    "AddressDrift",
    "EgressPolicy",
    "EgressResult",
    "EgressTimings",
    "EgressTransport",
    "FailureCode",
    "Outcome",
    "PeerCertificate",
]

log = structlog.get_logger("hookproof.egress")

_URL_CODE_MAP: Final = {
    "endpoint_scheme_not_https": FailureCode.REFUSED_SCHEME,
    "endpoint_port_not_allowed": FailureCode.REFUSED_PORT,
    "endpoint_ip_forbidden": FailureCode.REFUSED_ADDRESS,
    "endpoint_numeric_host": FailureCode.REFUSED_ADDRESS,
}

#: Framing headers belong to the transport; a caller's value for them is dropped.
_TRANSPORT_HEADERS: Final = frozenset(
    {"host", "content-length", "transfer-encoding", "connection", "expect", "upgrade", "te"}
)
_ENDPOINT_MEMO: Final = 10_000
#: client identities (one TLS context each, ~ a few KiB) kept per transport
_IDENTITY_MEMO: Final = 1_024
#: The transport's own fields, sent unless the caller gives them (in this order).
_DEFAULT_NAMES: Final = ("user-agent", "accept-encoding")


@dataclass(frozen=True, slots=True)
class EgressPolicy:
    """Egress limits. ``allow_pairs`` are exact ``(address, port)`` exemptions.

    ``pool_*``: the pinned pool's bounds (``pool_enabled=False``: a new connection per
    request); ``dns_cache_s``: the longest a DNS answer is kept (never beyond its TTL).
    """

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
    pool_enabled: bool = True
    pool_idle_s: float = 15.0
    pool_max_age_s: float = 60.0
    pool_max_requests: int = 1000
    pool_max_idle: int = 512
    pool_keep_recent_s: float = 5.0
    dns_cache_s: float = 30.0
    #: the operator's forward proxy (``HOOKPROOF_EGRESS_PROXY``), None: direct
    proxy: EgressProxy | None = None

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
            pool_idle_s=settings.pool_idle_s,
            pool_max_age_s=settings.pool_max_age_s,
            pool_max_requests=settings.pool_max_requests,
            pool_max_idle=settings.pool_max_idle,
            dns_cache_s=settings.dns_cache_s,
            proxy=parse_proxy(settings.egress_proxy) if settings.egress_proxy else None,
        )
        return replace(base, **overrides) if overrides else base

    @property
    def pool_limits(self) -> PoolLimits:
        return PoolLimits(
            idle_s=self.pool_idle_s,
            max_age_s=self.pool_max_age_s,
            max_requests=self.pool_max_requests,
            enabled=self.pool_enabled,
            max_idle=self.pool_max_idle,
            keep_recent_s=self.pool_keep_recent_s,
        )


class EgressTransport:
    """The one transport for challenges and deliveries. Use as an async context manager.

    Composes the three pieces: the address policy (is this address allowed), the pinned pool
    (which connection serves this request, applied inside the adapter) and the wire
    adapter (how bytes move). Vetting is per request; one adapter and one DNS channel are
    shared by all requests.
    """

    def __init__(self, policy: EgressPolicy | None = None) -> None:
        self.policy = policy or EgressPolicy()
        self.addresses = AddressPolicy.build(self.policy.allowed_ports, self.policy.allow_pairs)
        self._pairs: frozenset[tuple[IPAddress, int]] = self.addresses.allow_pairs
        self._ssl = self._make_ssl_context()
        self.adapter = WireAdapter(
            self._ssl,
            limits=self.policy.pool_limits,
            max_connections=self.policy.max_connections,
            connect_timeout_s=self.policy.connect_timeout_s,
            max_response_bytes=self.policy.max_response_bytes,
            allow_pairs=self._pairs,
            proxy=self.policy.proxy,
        )
        self._dns: HostResolver | None = None
        self._default_headers = (
            ("User-Agent", self.policy.user_agent),
            ("Accept-Encoding", "identity"),
        )
        self._endpoints: BoundedMemo[str, Endpoint] = BoundedMemo(_ENDPOINT_MEMO)
        self._identities: BoundedMemo[bytes, ClientIdentity] = BoundedMemo(_IDENTITY_MEMO)
        self._closed = False
        if self.policy.proxy is not None:
            log.warning("egress_proxy_configured", proxy=self.policy.proxy.text)
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
        """Close the connector (and every pooled connection) and the DNS channel. Idempotent."""
        self._closed = True
        dns, self._dns = self._dns, None
        await self.adapter.close()
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

    def client_identity(self, certificate_pem: str, private_key_pem: str) -> ClientIdentity:
        """A context like this transport's (same trust, same TLS floor) that also presents
        the certificate (memoised per certificate and key, in memory only)."""
        key = hashlib.sha256(
            certificate_pem.encode("utf-8") + b"\x00" + private_key_pem.encode("utf-8")
        ).digest()
        identity = self._identities.get(key)
        if identity is None:
            identity = load_client_chain(self._make_ssl_context, certificate_pem, private_key_pem)
            self._identities.put(key, identity)
        return identity

    def _ensure_started(self) -> None:
        if self._closed:
            raise RuntimeError("EgressTransport is closed")
        if self._dns is None:
            self._dns = HostResolver(
                self.policy.dns_servers,
                timeout_s=self.policy.dns_timeout_s,
                tries=self.policy.dns_tries,
                max_cache_s=self.policy.dns_cache_s,
            )
        self.adapter.start()

    def _endpoint(self, url: str) -> Endpoint:
        """``normalise_endpoint`` under this policy (pure, so memoised per URL)."""
        endpoint = self._endpoints.get(url)
        if endpoint is None:
            endpoint = normalise_endpoint(
                url, allowed_ports=self.policy.allowed_ports, allow_pairs=self.policy.allow_pairs
            )
            self._endpoints.put(url, endpoint)
        return endpoint

    async def post(
        self,
        url: str,
        body: bytes,
        headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
        *,
        pin: Iterable[str] | None = None,
        enforce_pin: bool = False,
        identity: ClientIdentity | None = None,
    ) -> EgressResult:
        """POST ``body`` to ``url`` under the egress policy; never raises for network outcomes.

        ``pin`` is the address set expected for the host (recorded when the challenge passed);
        the result's ``drift`` compares it with this resolution. With ``enforce_pin`` a
        changed set is refused (``egress_pin_mismatch``) before any connect. ``identity``: the
        client certificate presented in the handshake (:meth:`client_identity`).
        """
        self._ensure_started()
        loop = asyncio.get_running_loop()
        t0 = loop.time()
        try:
            endpoint = self._endpoint(url)
        except ValidationError as exc:
            code = _URL_CODE_MAP.get(exc.code, FailureCode.INVALID_URL)
            log.info("egress_refused", code=code.value, reason=exc.code)
            return EgressResult(
                outcome=Outcome.REFUSED,
                code=code,
                url=url,
                host="",
                port=0,
                detail=exc.detail,
                timings=EgressTimings(total=loop.time() - t0),
            )

        attempt = Attempt(
            endpoint=endpoint,
            body_len=len(body),
            t0=t0,
            deadline=t0 + self.policy.total_timeout_s,
            identity=identity,
        )
        vetting = await self._vet(attempt)
        drift = self._drift(attempt, vetting, pin)
        if isinstance(vetting, Vetting) and vetting.refusal is None:
            if enforce_pin and drift is not None and drift.changed:
                attempt.code = FailureCode.PIN_MISMATCH
                attempt.detail = "resolved addresses differ from the pin"
                return self._result(attempt, vetting, drift)
            headers_out = self._headers(headers)
            await self.adapter.send(attempt, body, headers_out)
            return self._result(attempt, vetting, drift)
        if isinstance(vetting, Vetting):
            assert vetting.refusal is not None
            attempt.code, attempt.detail = vetting.refusal, vetting.detail
        else:
            attempt.code, attempt.detail = FailureCode.DNS_FAILURE, vetting
        return self._result(attempt, vetting if isinstance(vetting, Vetting) else None, drift)

    # -- vetting -----------------------------------------------------------------------

    async def _vet(self, attempt: Attempt) -> Vetting | str:
        """The policy's verdict on this request's answers, or why DNS gave none (a detail)."""
        endpoint = attempt.endpoint
        if endpoint.ip is not None:
            answers: list[IPAddress] = [endpoint.ip]
        else:
            assert self._dns is not None
            cached = self._dns.cached(endpoint.host)
            if cached is not None:
                answers = cached  # vetted below exactly like a fresh answer
            else:
                try:
                    async with asyncio.timeout_at(
                        min(attempt.t0 + self.policy.connect_timeout_s, attempt.deadline)
                    ):
                        answers = await self._dns.resolve(endpoint.host)
                except TimeoutError:
                    return "DNS resolution timed out"
                except DnsFailure as failure:
                    return failure.detail
            attempt.resolved_at = attempt.now()
        attempt.resolved = answers
        vetting = self.addresses.vet(answers, endpoint.port)
        if vetting.refusal is not None:
            # an operator who means to reach such an address admits the exact pair
            allow = [
                f"[{a}]:{endpoint.port}" if ":" in a else f"{a}:{endpoint.port}"
                for a, _ in vetting.denied
            ]
            log.warning(
                "egress_refused",
                code=vetting.refusal.value,
                host=endpoint.host,
                detail=vetting.detail,
                **({"allow_with": "HOOKPROOF_EGRESS_ALLOW=" + ",".join(allow)} if allow else {}),
            )
            return vetting
        attempt.vetted = vetting.vetted
        return vetting

    def _drift(
        self, attempt: Attempt, vetting: Vetting | str, pin: Iterable[str] | None
    ) -> AddressDrift | None:
        if pin is None or not isinstance(vetting, Vetting) or not vetting.addresses:
            return None
        drift = self.addresses.drift(pin, vetting)
        if drift.changed:
            log.warning(
                "egress_address_drift",
                host=attempt.endpoint.host,
                added=sorted(drift.added),
                removed=sorted(drift.removed),
                denied=sorted(drift.denied),
            )
        return drift

    # -- sending -----------------------------------------------------------------------

    def _headers(
        self, headers: Mapping[str, str] | Iterable[tuple[str, str]] | None
    ) -> list[tuple[str, str]]:
        defaults = self._default_headers
        if headers is None:
            return list(defaults)
        items = headers.items() if isinstance(headers, Mapping) else headers
        given: list[tuple[str, str]] = []
        names: set[str] = set()
        for k, v in items:
            low = k.lower()
            if low not in _TRANSPORT_HEADERS:
                given.append((k, v))
                names.add(low)
        return [
            kv for kv, low in zip(defaults, _DEFAULT_NAMES, strict=True) if low not in names
        ] + given

    def _result(
        self,
        attempt: Attempt,
        vetting: Vetting | None,
        drift: AddressDrift | None,
    ) -> EgressResult:
        started = attempt.headers_sent
        outcome = outcome_of(status=attempt.status, code=attempt.code, started=started)
        endpoint = attempt.endpoint
        facts = attempt.facts
        used_allowance = (facts is not None and facts.peer in self._pairs) or (
            attempt.socket_opened > 0 and any(p in self._pairs for p in attempt.vetted)
        )
        result = EgressResult(
            outcome=outcome,
            code=attempt.code,
            url=endpoint.url,
            host=endpoint.host,
            port=endpoint.port,
            status=attempt.status,
            headers=attempt.headers,
            body=b"".join(attempt.chunks),
            location=attempt.location,
            resolved=tuple(format_ip(a) for a in attempt.resolved),
            peer_address=attempt.peer[0] if attempt.peer else None,
            peer_port=attempt.peer[1] if attempt.peer else None,
            proxy=attempt.proxy,
            certificate=attempt.certificate,
            request_started=started,
            request_written=attempt.request_written,
            allowance_used=used_allowance,
            denied=vetting.denied if vetting is not None else (),
            drift=drift,
            timings=EgressTimings(
                resolved=attempt.resolved_at,
                connected=attempt.connected_at,
                request_written=attempt.written_at,
                response_headers=attempt.head_at,
                total=attempt.now(),
            ),
            detail=attempt.detail,
            body_truncated=attempt.truncated,
            response_bytes=attempt.received,
        )
        # a complete response is the common case and the attempt's own events record it
        (log.debug if attempt.code is None else log.info)(
            "egress_result",
            host=endpoint.host,
            port=endpoint.port,
            outcome=outcome.value,
            code=attempt.code.value if attempt.code is not None else None,
            status=attempt.status,
            peer=result.peer_address,
            written=result.request_written,
            reused=attempt.reused,
        )
        return result
