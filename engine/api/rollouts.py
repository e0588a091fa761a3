"""``/v1/rollouts``: create, read, advance, pause, resume, rollback (operator token)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from hookproof.errors import ValidationError
from hookproof.schemas.api import RolloutAdvance, RolloutCreate

from ..rollouts.machine import KEY_TARGET, PROFILE_TARGET, RolloutView
from ..rollouts.service import RolloutService
from .auth import operator_route
from .pages import cursor_time, decode_cursor, encode_cursor, page_params
from .problems import decode_body, json_response

__all__ = ["operator_only", "rollout_json", "routes"]

ACTOR = "operator:api"


async def operator_only(request: web.Request) -> None:
    """The operator token ``HOOKPROOF_ADMIN_TOKEN`` (a tenant token is never enough)."""
    await operator_route(request, "rollouts over the API")


def rollout_json(view: RolloutView, figures: dict[str, Any] | None = None) -> dict[str, Any]:
    target = (
        {"signatureProfile": view.target}
        if view.target_kind == PROFILE_TARGET
        else {"signingKey": view.target}
    )
    doc: dict[str, Any] = {
        "id": view.rollout_id,
        "target": target,
        "stage": view.stage,
        "percent": view.percent,
        "state": view.state,
        "pauseReason": view.pause_reason,
        "sourceKeyId": view.source_key_id,
        "subscriptions": list(view.subscriptions) if view.subscriptions is not None else "all",
        "internalSubscriptions": sorted(view.internal),
        "dualWindowS": view.dual_window_s,
        "switches": [{"percent": p, "at": at} for p, at in view.switches],
        "version": view.version,
        "createdAt": view.created_at,
        "updatedAt": view.updated_at,
    }
    if figures is not None:
        doc.update(figures)
    return doc


def routes(service: RolloutService) -> list[web.RouteDef]:
    async def answer(view: RolloutView, status: int = 200) -> web.Response:
        figures = await service.figures(view.rollout_id)
        return json_response(rollout_json(view, figures), status=status)

    async def create(request: web.Request) -> web.Response:
        await operator_only(request)
        body: RolloutCreate = await decode_body(request, RolloutCreate)
        t = body.target
        if (t.signature_profile is None) == (t.signing_key is None):
            raise ValidationError(
                "target names exactly one of signatureProfile or signingKey", field="target"
            )
        kind, value = (
            (PROFILE_TARGET, t.signature_profile)
            if t.signature_profile is not None
            else (KEY_TARGET, t.signing_key)
        )
        assert value is not None
        subs = None if body.subscriptions == "all" else list(body.subscriptions)
        view = await service.create(
            target_kind=kind,
            target=value,
            subscriptions=subs,
            internal=list(body.internal),
            dual_window_s=body.dual_window_s,
            actor=ACTOR,
        )
        return await answer(view, 201)

    async def get(request: web.Request) -> web.Response:
        await operator_only(request)
        return await answer(await service.get(request.match_info["id"]))

    async def list_(request: web.Request) -> web.Response:
        await operator_only(request)
        limit, cursor = page_params(request)
        after = None
        if cursor is not None:
            at, last = decode_cursor(cursor, 2)
            if not isinstance(last, str) or not 0 < len(last) <= 200:
                raise ValidationError(
                    "cursor is not a nextCursor we gave", field="cursor", code="invalid_cursor"
                )
            after = (cursor_time(at), last)
        views, nxt = await service.page(after, limit)
        return json_response(
            {
                "items": [rollout_json(v) for v in views],
                "nextCursor": encode_cursor(nxt[0].isoformat(), nxt[1]) if nxt else None,
            }
        )

    async def advance(request: web.Request) -> web.Response:
        await operator_only(request)
        body: RolloutAdvance = await decode_body(request, RolloutAdvance)
        view = await service.advance(
            request.match_info["id"], body.stage, body.percent, actor=ACTOR
        )
        return await answer(view)

    def simple(
        action: Callable[[str], Awaitable[RolloutView]],
    ) -> Callable[[web.Request], Awaitable[web.Response]]:
        async def handler(request: web.Request) -> web.Response:
            await operator_only(request)
            return await answer(await action(request.match_info["id"]))

        return handler

    return [
        web.post("/v1/rollouts", create),
        web.get("/v1/rollouts", list_, allow_head=False),
        web.get("/v1/rollouts/{id}", get, allow_head=False),
        web.post("/v1/rollouts/{id}/advance", advance),
        web.post("/v1/rollouts/{id}/pause", simple(lambda rid: service.pause(rid, actor=ACTOR))),
        web.post("/v1/rollouts/{id}/resume", simple(lambda rid: service.resume(rid, actor=ACTOR))),
        web.post(
            "/v1/rollouts/{id}/rollback", simple(lambda rid: service.rollback(rid, actor=ACTOR))
        ),
    ]
