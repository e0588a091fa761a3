"""Resolve a host name through aiodns (A and AAAA together), with a TTL-bounded answer cache.

A failed query for either family (timeout, SERVFAIL) fails the resolution rather than letting
a partial answer set be vetted as the whole. Answers are cached for at most
``min(TTL of the answer records, max_cache_s)`` (DESIGN.md section 5: at most 30 s); a cached
answer is vetted on every request exactly like a fresh one. c-ares keeps its own cache under
ours: it is switched off (``qcache_max_ttl = 0``), so a cached answer never outlives the
bound above, negative answers included (a NODATA for AAAA is asked again with the A query).
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any, Final

import aiodns
import aiodns.error
import pycares

from .addresses import IPAddress
from .failures import FailureCode

__all__ = ["DnsFailure", "HostResolver"]

#: aiodns error numbers meaning "no record of this type / no such name", not a failure.
_DNS_EMPTY: Final = frozenset({aiodns.error.ARES_ENODATA, aiodns.error.ARES_ENOTFOUND})
_MAX_ENTRIES: Final = 10_000
#: c-ares ``ARES_OPT_QUERY_CACHE`` (ares.h; pycares does not name it): with
#: ``qcache_max_ttl = 0`` the library keeps no answers of its own.
_ARES_OPT_QUERY_CACHE: Final = 1 << 21


class _NoQueryCache:
    """Stands in for pycares' C library while one channel is created: same calls, plus the
    option that turns c-ares' own answer cache off."""

    def __init__(self, lib: Any) -> None:
        self._lib = lib

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lib, name)

    def ares_init_options(self, channel: Any, options: Any, optmask: int) -> Any:
        options.qcache_max_ttl = 0
        return self._lib.ares_init_options(channel, options, optmask | _ARES_OPT_QUERY_CACHE)


def _resolver_without_query_cache(**kwargs: Any) -> aiodns.DNSResolver:
    real = pycares._lib  # type: ignore[attr-defined]
    pycares._lib = _NoQueryCache(real)  # type: ignore[attr-defined]
    try:  # synchronous: nothing else runs while the shim is in place
        return aiodns.DNSResolver(**kwargs)
    finally:
        pycares._lib = real  # type: ignore[attr-defined]


class DnsFailure(Exception):
    """The answer set is unknown (no address, a timeout, SERVFAIL)."""

    code = FailureCode.DNS_FAILURE

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


def _nameserver_text(address: str, port: int) -> str:
    return f"[{address}]:{port}" if ":" in address else f"{address}:{port}"


class HostResolver:
    """One aiodns channel and the answer cache (host -> addresses, expiry)."""

    def __init__(
        self,
        servers: tuple[tuple[str, int], ...] = (),
        *,
        timeout_s: float = 2.0,
        tries: int = 2,
        max_cache_s: float = 30.0,
    ) -> None:
        kwargs: dict[str, Any] = {"timeout": timeout_s, "tries": tries}
        names = [_nameserver_text(a, p) for a, p in servers]
        self._dns = _resolver_without_query_cache(nameservers=names or None, **kwargs)
        self.max_cache_s = max_cache_s
        self._cache: dict[str, tuple[float, list[IPAddress]]] = {}

    async def close(self) -> None:
        await self._dns.close()

    def cached(self, host: str) -> list[IPAddress] | None:
        """The cached answer for ``host`` while it is fresh, else ``None`` (no I/O)."""
        hit = self._cache.get(host)
        if hit is not None and hit[0] > asyncio.get_running_loop().time():
            return hit[1]
        return None

    async def resolve(self, host: str) -> list[IPAddress]:
        """Every address of ``host`` (cached at most min(TTL, max_cache_s)); DnsFailure if none."""
        now = asyncio.get_running_loop().time()
        hit = self._cache.get(host)
        if hit is not None:
            if hit[0] > now:
                return hit[1]
            del self._cache[host]
        answers, ttl = await self._query(host)
        keep = min(ttl, self.max_cache_s)
        if keep > 0:
            if len(self._cache) >= _MAX_ENTRIES:
                self._cache.clear()
            self._cache[host] = (now + keep, answers)
        return answers

    async def _query(self, host: str) -> tuple[list[IPAddress], float]:
        dns = self._dns
        results = await asyncio.gather(
            dns.query_dns(host, "A"), dns.query_dns(host, "AAAA"), return_exceptions=True
        )
        answers: list[IPAddress] = []
        errors: list[str] = []
        ttl: float = float("inf")
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
                    raise DnsFailure(f"DNS query failed: {message}")
                errors.append(message)
                continue
            for record in res.answer:
                ttl = min(ttl, float(getattr(record, "ttl", 0) or 0))
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
            raise DnsFailure("no address: " + ("; ".join(errors) or "empty answer"))
        return answers, (0.0 if ttl == float("inf") else ttl)
