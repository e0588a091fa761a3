"""Portal sessions: a consumer manages its own endpoints in the console, with no account."""

from .auth import CAPABILITIES, PORTAL_SCOPE, PortalAuth, PortalScope, PortalSessionExpired, Scope

__all__ = [
    "CAPABILITIES",
    "PORTAL_SCOPE",
    "PortalAuth",
    "PortalScope",
    "PortalSessionExpired",
    "Scope",
]
