"""Resolve a host name through aiodns (A and AAAA together), with a TTL-bounded answer cache.

A failed query for either family (timeout, SERVFAIL) fails the resolution rather than letting
a partial answer set be vetted as the whole. Answers are cached for at most
``min(TTL of the answer records, max_cache_s)`` (DESIGN.md section 5: at most 30 s); a cached
answer is vetted on every request exactly like a fresh one. c-ares keeps its own cache under
ours (negative answers included, even with a zero TTL) that no public option of aiodns or
pycares turns off. So a channel asks for a name at most once: a name asked again gets a new
channel (the old one is closed once its queries are answered), and no answer ever comes from
c-ares' cache. One channel serves every name once (a fan-out to many sites uses one channel; a
site resolved again after its answer expired takes the next one).
"""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Any, Final

import aiodns
import aiodns.error

from .addresses import IPAddress
from .failures import FailureCode

__all__ = ["DnsFailure", "HostResolver"]

#: aiodns error numbers meaning "no record of this type / no such name", not a failure.
_DNS_EMPTY: Final = frozenset({aiodns.error.ARES_ENODATA, aiodns.error.ARES_ENOTFOUND})
_MAX_ENTRIES: Final = 10_000


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
        self._kwargs: dict[str, Any] = {"timeout": timeout_s, "tries": tries}
        self._names = [_nameserver_text(a, p) for a, p in servers] or None
        self.max_cache_s = max_cache_s
        self._cache: dict[str, tuple[float, list[IPAddress]]] = {}
        self._dns: aiodns.DNSResolver | None = None
        self._asked: set[str] = set()  # the names the current channel was asked for
        self._in_flight: dict[aiodns.DNSResolver, int] = {}
        self._retired: set[aiodns.DNSResolver] = set()
        self._closing: set[asyncio.Task[None]] = set()
        try:  # the first channel now, not inside the first request's DNS time
            asyncio.get_running_loop()
            self._dns = self._new_channel()
        except RuntimeError:
            pass  # no running loop: created by the first resolution

    async def close(self) -> None:
        channels = {*self._retired, *([self._dns] if self._dns is not None else [])}
        self._dns = None
        self._retired.clear()
        for channel in channels:
            await channel.close()
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)

    def _new_channel(self) -> aiodns.DNSResolver:
        self._asked = set()
        return aiodns.DNSResolver(nameservers=self._names, **self._kwargs)

    def _channel(self, host: str) -> aiodns.DNSResolver:
        """A channel that was never asked for ``host`` (so c-ares' cache cannot answer)."""
        dns = self._dns
        if dns is None or host in self._asked or len(self._asked) >= _MAX_ENTRIES:
            if dns is not None:
                self._retire(dns)
            dns = self._dns = self._new_channel()
        self._asked.add(host)
        return dns

    def _retire(self, dns: aiodns.DNSResolver) -> None:
        if self._in_flight.get(dns, 0):
            self._retired.add(dns)  # closed when its last query is answered
        else:
            self._close_later(dns)

    def _close_later(self, dns: aiodns.DNSResolver) -> None:
        task = asyncio.get_running_loop().create_task(dns.close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

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
        dns = self._channel(host)
        self._in_flight[dns] = self._in_flight.get(dns, 0) + 1
        try:
            answers, ttl = await self._query(dns, host)
        finally:
            left = self._in_flight[dns] - 1
            if left:
                self._in_flight[dns] = left
            else:
                del self._in_flight[dns]
                if dns in self._retired:
                    self._retired.discard(dns)
                    self._close_later(dns)
        keep = min(ttl, self.max_cache_s)
        if keep > 0:
            if len(self._cache) >= _MAX_ENTRIES:
                self._cache.clear()
            self._cache[host] = (now + keep, answers)
        return answers

    async def _query(self, dns: aiodns.DNSResolver, host: str) -> tuple[list[IPAddress], float]:
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
