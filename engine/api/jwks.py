"""``GET /.well-known/hookproof/jwks.json``: the key ring's JWKS with Cache-Control and a
strong ETag (what is published: ``engine/keys/jwks.py``)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Awaitable, Callable
from typing import Protocol

from aiohttp import web

from ..keys.jwks import CACHE_CONTROL

__all__ = ["jwks_handler"]


class _HasJwks(Protocol):
    async def jwks(self) -> dict[str, object]: ...


def jwks_handler(ring: _HasJwks) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """An aiohttp handler serving the ring's JWKS with Cache-Control and a strong ETag."""

    async def handler(request: web.Request) -> web.StreamResponse:
        body = json.dumps(await ring.jwks(), separators=(",", ":"), sort_keys=True).encode()
        etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
        headers = {"Cache-Control": CACHE_CONTROL, "ETag": etag}
        if etag in [t.strip() for t in request.headers.get("If-None-Match", "").split(",")]:
            return web.Response(status=304, headers=headers)
        return web.Response(body=body, content_type="application/jwk-set+json", headers=headers)

    return handler
