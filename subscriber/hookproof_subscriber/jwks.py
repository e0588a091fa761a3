"""A JWKS key resolver: cached, refreshed on expiry and (rate-limited) on an unknown key id."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from .extras import MissingExtraError, has_aiohttp, require_aiohttp
from .keys import VerificationKey, jwk_to_verification_key

__all__ = ["JWKS_PATH", "Fetch", "JwksKeyResolver", "aiohttp_fetch", "parse_jwks"]

JWKS_PATH = "/.well-known/hookproof/jwks.json"
Fetch = Callable[[str], Awaitable[bytes | str | Mapping[str, Any]]]
_MAX_JWKS_BYTES = 1 << 20


def parse_jwks(document: bytes | str | Mapping[str, Any]) -> dict[str, VerificationKey]:
    """Parse a JWK Set; entries that are not valid OKP Ed25519 public keys are skipped."""
    if isinstance(document, bytes | str):
        document = json.loads(document)
    if not isinstance(document, Mapping) or not isinstance(document.get("keys"), list):
        raise ValueError("not a JWK Set")
    out: dict[str, VerificationKey] = {}
    for entry in document["keys"]:
        if not isinstance(entry, Mapping):
            continue
        try:
            key = jwk_to_verification_key(entry)
        except (ValueError, TypeError):
            continue
        out[key.key_id] = key
    return out


async def aiohttp_fetch(url: str, *, request_timeout: float = 10.0) -> bytes:
    """Fetch *url* with aiohttp (no redirects, bounded size, no proxy from the environment).
    Without aiohttp installed: :class:`~.extras.MissingExtraError`."""
    aiohttp = require_aiohttp("downloading the engine's keys (JwksKeyResolver)")

    client_timeout = aiohttp.ClientTimeout(total=request_timeout)
    async with aiohttp.ClientSession(timeout=client_timeout, trust_env=False) as session:
        async with session.get(url, allow_redirects=False) as resp:
            if resp.status != 200:
                raise OSError(f"JWKS fetch failed with HTTP {resp.status}")
            body: bytes = await resp.content.read(_MAX_JWKS_BYTES + 1)
            if len(body) > _MAX_JWKS_BYTES:
                raise OSError("JWKS document too large")
            return body


class JwksKeyResolver:
    """Ed25519 keys from the engine's JWKS.

    ``resolve`` answers from the cache (sync, as ``KeyResolver``); ``aresolve`` first
    refreshes when the cache is older than *ttl* or the key id is unknown, at most once
    per *min_refresh_interval* seconds. A failed fetch keeps the last good set, and
    ``unavailable`` says why until a fetch succeeds (verification then answers
    ``keys_unavailable``, a transient refusal, instead of ``unknown_key``). Without *fetch*
    it downloads with aiohttp: constructing it without aiohttp installed raises
    :class:`~.extras.MissingExtraError` (install ``hookproof-subscriber[aiohttp]`` or pass
    *fetch*).
    """

    def __init__(
        self,
        url: str,
        *,
        fetch: Fetch | None = None,
        ttl: float = 300.0,
        min_refresh_interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if fetch is None and not has_aiohttp():
            raise MissingExtraError(
                "JwksKeyResolver (downloading the engine's keys)",
                "aiohttp",
                'pip install "hookproof-subscriber[aiohttp]", or pass fetch=',
            )
        self.url = url
        self._fetch: Fetch = fetch or aiohttp_fetch
        self.ttl = ttl
        self.min_refresh_interval = min_refresh_interval
        self._clock = clock
        self._keys: dict[str, VerificationKey] = {}
        self._fetched_at: float | None = None
        self._attempted_at: float | None = None
        self._lock = asyncio.Lock()
        self.fetches = 0
        self.last_error: str | None = None

    @classmethod
    def for_engine(cls, engine_base_url: str, **kwargs: Any) -> JwksKeyResolver:
        """Resolver for ``<engine>/.well-known/hookproof/jwks.json``."""
        return cls(engine_base_url.rstrip("/") + JWKS_PATH, **kwargs)

    def resolve(self, key_id: str) -> VerificationKey | None:
        return self._keys.get(key_id)

    @property
    def key_ids(self) -> list[str]:
        return sorted(self._keys)

    @property
    def unavailable(self) -> str | None:
        """Why the keys could not be downloaded (the last fetch's error), or None after a
        successful fetch or before any attempt."""
        return f"JWKS fetch failed: {self.last_error}" if self.last_error else None

    def _stale(self) -> bool:
        return self._fetched_at is None or self._clock() - self._fetched_at > self.ttl

    def _may_refresh(self) -> bool:
        return (
            self._attempted_at is None
            or self._clock() - self._attempted_at >= self.min_refresh_interval
        )

    async def refresh(self) -> bool:
        """Fetch the set now; True on success."""
        async with self._lock:
            return await self._refresh_locked()

    async def _refresh_locked(self) -> bool:
        self._attempted_at = self._clock()
        self.fetches += 1
        try:
            keys = parse_jwks(await self._fetch(self.url))
        except Exception as exc:
            self.last_error = type(exc).__name__
            return False
        self._keys = keys
        self._fetched_at = self._clock()
        self.last_error = None
        return True

    def _pending(self, key: VerificationKey | None) -> bool:
        """A key we hold as NOT_BEFORE that is now used: it has probably just been promoted."""
        return (
            key is not None
            and str(key.state) == "NOT_BEFORE"
            and (self._attempted_at is None or self._clock() - self._attempted_at >= 0.05)
        )

    async def aresolve(self, key_id: str) -> VerificationKey | None:
        key = self._keys.get(key_id)
        if key is not None and not self._stale() and not self._pending(key):
            return key
        async with self._lock:
            key = self._keys.get(key_id)
            if ((key is None or self._stale()) and self._may_refresh()) or self._pending(key):
                await self._refresh_locked()
            return self._keys.get(key_id)
