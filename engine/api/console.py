"""``GET /console``: one small page served by the daemon (static HTML, JS and CSS shipped as
package data of ``hookproof.engine.console``; no build step, nothing fetched from elsewhere).
It reads the public API only."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

from aiohttp import web

__all__ = ["CONTENT_SECURITY_POLICY", "page_response", "routes"]

#: Everything comes from the daemon itself; no inline script or style, no framing, no forms
#: posted anywhere, no fetch to another origin.
CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

_FILES = {
    "/console": ("index.html", "text/html"),
    "/console/console.js": ("console.js", "text/javascript"),
    "/console/portal.js": ("portal.js", "text/javascript"),
    "/console/views.js": ("views.js", "text/javascript"),
    "/console/console.css": ("console.css", "text/css"),
    "/console/verify": ("verify.html", "text/html"),
}


@cache
def _read(name: str) -> bytes:
    return (files("hookproof.engine.console") / "static" / name).read_bytes()


def page_response(
    name: str, content_type: str, policy: str = CONTENT_SECURITY_POLICY
) -> web.Response:
    """A static file under ``policy`` (``X-Frame-Options: DENY`` unless the policy lets some
    origins frame it: then ``frame-ancestors`` alone decides)."""
    headers = {
        "Content-Security-Policy": policy,
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }
    if "frame-ancestors 'none'" in policy:
        headers["X-Frame-Options"] = "DENY"
    return web.Response(
        body=_read(name), content_type=content_type, charset="utf-8", headers=headers
    )


async def _serve(request: web.Request) -> web.Response:
    name, content_type = _FILES[request.path]
    return page_response(name, content_type)


def routes() -> list[web.RouteDef]:
    return [web.get(path, _serve, allow_head=False) for path in _FILES]
