"""``POST /v1/receipts``: no bearer token (the receipt signature is the credential)."""

from __future__ import annotations

import json

from aiohttp import web

from ..receipts.service import MAX_RECEIPT_BYTES, ReceiptService
from .problems import BodyTooLarge, read_body

__all__ = ["receipts_url_of", "routes"]


def receipts_url_of(request: web.Request) -> str:
    """The URL the subscriber addressed, from this request (scheme, Host, path; no query).

    Used only when no receipts URL is configured; behind a TLS-terminating proxy configure
    ``HOOKPROOF_RECEIPTS_URL`` (or ``HOOKPROOF_PUBLIC_URL``) instead.
    """
    return f"{request.scheme}://{request.host}{request.path}"


def routes(service: ReceiptService) -> list[web.RouteDef]:
    async def post_receipt(request: web.Request) -> web.Response:
        try:
            body = await read_body(request, MAX_RECEIPT_BYTES)
        except BodyTooLarge:
            outcome = await service.refuse_too_large()
        else:
            outcome = await service.submit(
                request.method, receipts_url_of(request), list(request.headers.items()), body
            )
        return web.Response(
            body=json.dumps(outcome.body, separators=(",", ":")).encode(),
            status=outcome.status,
            content_type="application/problem+json" if outcome.problem else "application/json",
        )

    return [web.post("/v1/receipts", post_receipt)]
