"""Liveness, readiness and the OpenAPI document."""

from __future__ import annotations

from aiohttp import web

from hookproof.schemas.api_out import Health, Readiness

from ..db.schema_repository import SchemaRepository
from .context import ApiContext
from .openapi import openapi_document
from .problems import json_response

__all__ = ["routes"]


async def healthz(request: web.Request) -> web.Response:
    return json_response(Health(status="ok"))


async def readyz(request: web.Request) -> web.Response:
    ctx = ApiContext.of(request)
    try:
        pending = await SchemaRepository.of(ctx.store).pending(wait_s=2)
    except Exception as exc:
        return json_response({"status": "unavailable", "reason": type(exc).__name__}, status=503)
    if pending:
        return json_response({"status": "unavailable", "reason": "pending_migrations"}, status=503)
    try:  # keys that cannot be opened: nothing can be signed or sent
        problem = await ctx.keys_problem() if ctx.keys_problem is not None else None
    except Exception as exc:
        return json_response({"status": "unavailable", "reason": type(exc).__name__}, status=503)
    if problem is not None:
        return json_response({"status": "unavailable", "reason": problem}, status=503)
    return json_response(Readiness(status="ready"))


async def openapi(request: web.Request) -> web.Response:
    return json_response(openapi_document(request.app))


def routes() -> list[web.RouteDef]:
    return [
        web.get("/healthz", healthz, allow_head=False),
        web.get("/readyz", readyz, allow_head=False),
        web.get("/openapi.json", openapi, allow_head=False),
    ]
