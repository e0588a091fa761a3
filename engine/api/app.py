"""The aiohttp application: middleware, routes, context."""

from __future__ import annotations

from collections.abc import Iterable

from aiohttp import web

from . import audit, console, consumers, filters, health, portal, subscriptions
from .body import BODY_TIMEOUT_KEY
from .context import CONTEXT_KEY, ApiContext
from .edges import PARSER_LIMITS
from .problems import MAX_BODY, error_middleware
from .reads import write_position_middleware

__all__ = ["create_app"]


def create_app(ctx: ApiContext, extra_routes: Iterable[web.RouteDef] = ()) -> web.Application:
    # bodies are inflated by read_body, a bounded piece at a time (engine/api/inflate.py);
    # what a route leaves unread is discarded within a bound by the error middleware, not by
    # aiohttp's lingering read (unbounded in bytes for 10 s): engine/api/body.py
    app = web.Application(
        middlewares=[error_middleware, portal.portal_middleware, write_position_middleware],
        client_max_size=MAX_BODY,
        # the documented request-line and header limits are ours (engine/api/edges.py: 414/431
        # problem+json); aiohttp's parser, whose refusal is a plain 400, stops further out
        handler_args={"auto_decompress": False, "lingering_time": 0, **PARSER_LIMITS},
    )
    app[CONTEXT_KEY] = ctx
    app[BODY_TIMEOUT_KEY] = ctx.settings.body_timeout_s
    app.add_routes(health.routes())
    app.add_routes(subscriptions.routes())
    app.add_routes(audit.routes())
    app.add_routes(console.routes())
    app.add_routes(consumers.routes())
    app.add_routes(filters.routes())
    app.add_routes(portal.routes())
    app.add_routes(list(extra_routes))
    return app
