"""HTTP handlers of key rotation: the engine key (operator) and a subscription's secret."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from aiohttp import web

from hookproof.schemas.api_out import EngineKeyRotated, SecretRotated

from .auth import operator_route
from .context import actor, tenant_of
from .problems import json_response

if TYPE_CHECKING:
    from ..rotation.service import Rotation

__all__ = ["routes"]


def routes(rotation: Rotation) -> list[web.RouteDef]:
    async def rotate_engine_key(request: web.Request) -> web.Response:
        await operator_route(request, "engine key rotation over the API")
        report = await rotation.rotate_engine_key(actor="operator:api")
        return json_response(msgspec.convert(report, EngineKeyRotated))

    async def rotate_secret(request: web.Request) -> web.Response:
        tenant = await tenant_of(request)
        out = await rotation.rotate_secret(
            tenant, request.match_info["id"], actor=actor(request, tenant)
        )
        return json_response(msgspec.convert(out, SecretRotated), status=201)

    return [
        web.post("/v1/keys/rotate", rotate_engine_key),
        web.post("/v1/subscriptions/{id}/secret/rotate", rotate_secret),
    ]
