"""Who a portal token speaks for, and what it may do (DESIGN section 11, "Portal sessions").

:class:`PortalAuth` is the reusable piece: "a portal session for consumer X of tenant T, with
these capabilities". The API's portal middleware puts one on every request that carries a
portal token (read it with ``engine.api.context.portal_of(request)``), after checking the
route against :data:`PORTAL_SCOPE`; any route missing from that table is refused with 403
``portal_scope``. A route is opened to portal tokens by adding one line there: ``tenant_of``
then answers the session's tenant and ``actor`` ``portal:<sessionId>``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from hookproof.errors import HookproofError, Unauthorized

__all__ = [
    "CAPABILITIES",
    "PORTAL_SCOPE",
    "PORTAL_TOKEN_PREFIX",
    "PUBLIC_ROUTES",
    "PortalAuth",
    "PortalScope",
    "PortalSessionExpired",
    "Scope",
]

#: what a session may be given (default: all three)
CAPABILITIES = ("read", "manage", "replay")
#: portal tokens are ``hpp_<24 hex>_<secret>`` (tenant tokens are ``hp_...``)
PORTAL_TOKEN_PREFIX = "hpp_"


class PortalScope(HookproofError):
    code = "portal_scope"
    status = 403
    title = "Outside the portal session's scope"


class PortalSessionExpired(Unauthorized):
    code = "portal_session_expired"


@dataclass(frozen=True)
class PortalAuth:
    session_id: str
    tenant_id: str
    consumer_id: str
    capabilities: frozenset[str]
    expires_at: datetime

    @property
    def actor(self) -> str:
        return f"portal:{self.session_id}"

    def require(self, capability: str) -> None:
        if capability not in self.capabilities:
            raise PortalScope(f"this portal session has no {capability!r} capability")


@dataclass(frozen=True)
class Scope:
    """A route open to portal tokens: the capability it needs and what its ``{id}`` names
    (``subscription`` or ``delivery``: checked to be the session's consumer's, else 404)."""

    capability: str
    owns: str | None = None


#: (method, route) -> scope. Everything else is 403 ``portal_scope`` for a portal token.
PORTAL_SCOPE: dict[tuple[str, str], Scope] = {
    ("GET", "/v1/whoami"): Scope("read"),
    ("GET", "/v1/subscriptions"): Scope("read"),  # the handler lists the consumer's only
    ("GET", "/v1/subscriptions/{id}"): Scope("read", "subscription"),
    ("GET", "/v1/subscriptions/{id}/history"): Scope("read", "subscription"),
    ("GET", "/v1/subscriptions/{id}/timeline"): Scope("read", "subscription"),
    ("GET", "/v1/subscriptions/{id}/attempt-stats"): Scope("read", "subscription"),
    ("GET", "/v1/attempt-stats"): Scope("read"),  # the handler checks each id is the consumer's
    ("GET", "/v1/deliveries"): Scope("read"),  # the handler lists the consumer's only
    ("GET", "/v1/deliveries/{id}"): Scope("read", "delivery"),
    ("GET", "/v1/deliveries/{id}/timeline"): Scope("read", "delivery"),
    ("GET", "/v1/dead-letters"): Scope("read"),  # the handler lists the consumer's only
    ("GET", "/v1/event-types"): Scope("read"),
    ("GET", "/v1/event-types/{topic}"): Scope("read"),
    ("GET", "/v1/event-types/openapi.json"): Scope("read"),
    ("GET", "/v1/portal/branding"): Scope("read"),  # the session's tenant's
    ("POST", "/v1/subscriptions"): Scope("manage"),  # the handler sets the consumer
    ("PATCH", "/v1/subscriptions/{id}"): Scope("manage", "subscription"),
    ("POST", "/v1/subscriptions/{id}/revoke"): Scope("manage", "subscription"),
    ("POST", "/v1/subscriptions/{id}/challenge"): Scope("manage", "subscription"),
    ("POST", "/v1/subscriptions/{id}/secret/rotate"): Scope("manage", "subscription"),
    ("POST", "/v1/subscriptions/{id}/test-events"): Scope("manage", "subscription"),
    ("POST", "/v1/deliveries/{id}/replay"): Scope("replay", "delivery"),
    ("POST", "/v1/deliveries/{id}/skip"): Scope("replay", "delivery"),
    ("POST", "/v1/subscriptions/{id}/recover"): Scope("replay", "subscription"),
    ("GET", "/v1/relay/{id}"): Scope("manage", "subscription"),  # hookproof listen
    # search and bulk replay (engine/api/search.py confines them to the consumer's)
    ("POST", "/v1/deliveries/search"): Scope("read"),
    ("POST", "/v1/events/search"): Scope("read"),
    ("POST", "/v1/replays"): Scope("replay"),
    ("GET", "/v1/replays/{id}"): Scope("replay"),  # the handler: only the consumer's replays
    ("POST", "/v1/replays/{id}/cancel"): Scope("replay"),
}

#: routes that take no token at all: a portal token sent along changes nothing there
PUBLIC_ROUTES = frozenset(
    {
        "/healthz",
        "/readyz",
        "/openapi.json",
        "/console",
        "/console/console.js",
        "/console/portal.js",
        "/console/views.js",
        "/console/console.css",
        "/console/verify",
        "/portal/{tenantId}",
        "/.well-known/hookproof/jwks.json",
        "/v1/receipts",
    }
)
