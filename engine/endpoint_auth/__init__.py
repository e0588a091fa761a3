"""Authentication to the endpoint (DESIGN.md section 14): :mod:`.spec` (the ``auth`` object
checked, the keyed digest; pure), :mod:`.materials` (sealed at rest under the master key),
:mod:`.sender` (applied to every challenge and delivery; OAuth2 tokens cached)."""

from __future__ import annotations

from .materials import AuthMaterials, AuthMaterialUnavailable
from .sender import EndpointAuth, TokenCache
from .spec import AUTH_CODES, AuthSecret, auth_digest, auth_digest_key, parse_auth

__all__ = [
    "AUTH_CODES",
    "AuthMaterialUnavailable",
    "AuthMaterials",
    "AuthSecret",
    "EndpointAuth",
    "TokenCache",
    "auth_digest",
    "auth_digest_key",
    "parse_auth",
]
