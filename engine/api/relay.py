"""``GET /v1/relay/{subscriptionId}``: the WebSocket ``hookproof listen`` holds open.

Authenticated like every route (a tenant token, or a portal token of the subscription's
consumer: the portal middleware checks that); a subscription that is not the caller's is 404
``subscription_not_found``, as everywhere. The subscription must have ``destination: {"type":
"relay"}`` (else 409 ``not_a_relay``) and be open (else 409 ``subscription_closed``).

One relay per subscription: a second attach replaces the first, which is sent ``{"type":
"replaced"}`` and closed with code 4409 (a CLI that lost its network and reconnects must not
be locked out by its own half-open session). Attaching to a PENDING_CHALLENGE subscription
runs its challenge through the new session. Frames: :mod:`hookproof.engine.relay.protocol`.
A report with numbers out of range closes the session with 1008 and its code (the client sees
the close; nothing is written); reports over the tenant's budget are dropped and counted.
"""

from __future__ import annotations

import contextlib
from typing import Final

import structlog
from aiohttp import WSMsgType, web

from hookproof.errors import ConflictError, ValidationError

from ..relay import protocol
from ..relay.hub import LocalSession, RelayHub, new_session_id
from ..subscriptions.machine import TERMINAL
from .context import ApiContext, tenant_of

__all__ = ["CLOSE_REFUSED", "CLOSE_REPLACED", "routes"]

log = structlog.get_logger("hookproof.relay")

#: the WebSocket close code of a session another attach replaced
CLOSE_REPLACED: Final = 4409
#: the close code of a session whose relay sent a report no exchange can have (numbers out of
#: range: RFC 6455 policy violation); the reason is the report's code
CLOSE_REFUSED: Final = 1008
#: a relay's frames are reports (a challenge answer's body at most 64 KiB, base64)
MAX_FRAME: Final = 256 * 1024
HEARTBEAT_S: Final = 20.0


def routes(hub: RelayHub) -> list[web.RouteDef]:
    async def relay_socket(request: web.Request) -> web.StreamResponse:
        ctx = ApiContext.of(request)
        tenant = await tenant_of(request)
        state = await ctx.subscriptions.get(tenant, request.match_info["id"])
        if state.config.destination is None or not state.config.destination.is_relay:
            raise ConflictError(
                "this subscription delivers over HTTPS, not through a relay", code="not_a_relay"
            )
        if state.state in TERMINAL:
            raise ConflictError(f"the subscription is {state.state}", code="subscription_closed")
        ws = web.WebSocketResponse(heartbeat=HEARTBEAT_S, max_msg_size=MAX_FRAME)
        await ws.prepare(request)
        session_id = new_session_id()

        async def send(text: str) -> None:
            await ws.send_str(text)

        async def close(reason: str) -> None:
            with contextlib.suppress(Exception):
                if reason == "replaced":
                    await ws.send_str(protocol.encode(protocol.RelayReplaced()))
            code = CLOSE_REPLACED if reason == "replaced" else 1001
            await ws.close(code=code, message=reason.encode())

        sid = state.subscription_id
        await hub.attach(sid, tenant, LocalSession(session_id, sid, send, close))
        try:
            attached = protocol.RelayAttached(
                subscription_id=sid, session_id=session_id, endpoint=state.config.endpoint
            )
            await ws.send_str(protocol.encode(attached))
            if state.state == "PENDING_CHALLENGE" and ctx.on_registered is not None:
                await ctx.on_registered(state)  # through this session, in the background
            async for msg in ws:
                if msg.type in (WSMsgType.TEXT, WSMsgType.BINARY):
                    try:
                        await hub.report(session_id, msg.data)
                    except ValidationError as exc:  # numbers no exchange can have
                        await ws.close(code=CLOSE_REFUSED, message=exc.code.encode())
                        break
        finally:
            await hub.detach(session_id)
            if not ws.closed:  # any other end (a failure included): the client is told too
                with contextlib.suppress(Exception):
                    await ws.close(code=1011, message=b"session_ended")
        return ws

    return [web.get("/v1/relay/{id}", relay_socket, allow_head=False)]
