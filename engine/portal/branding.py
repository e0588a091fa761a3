"""A tenant's portal branding, checked (pure; stored by :mod:`.branding_repository`), and the
portal page's Content-Security-Policy made from it (the tenant's ``frame-ancestors``, its
logo's origin as the one image source besides the daemon)."""

from __future__ import annotations

import re
from typing import Any, Final
from urllib.parse import urlsplit

from hookproof.errors import ValidationError
from hookproof.schemas.api import PortalBrandingIn

__all__ = [
    "FRAME_ANCESTORS_MAX",
    "check_branding",
    "contrast_on_white_text",
    "portal_csp",
]

FRAME_ANCESTORS_MAX: Final = 10
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")
_HOST = re.compile(
    r"^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$"
)
#: WCAG AA for normal text: the accent is a background under white text (buttons, header)
MIN_CONTRAST: Final = 4.5


def _luminance(hex_colour: str) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (int(hex_colour[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast_on_white_text(hex_colour: str) -> float:
    """The WCAG contrast ratio of white text on ``hex_colour``."""
    return 1.05 / (_luminance(hex_colour) + 0.05)


def _origin(raw: str, field: str, code: str, *, path_ok: bool) -> str:
    """An ``https://host[:port]`` origin (with ``path_ok``, a whole URL), else ``code``."""
    bad = ValidationError(
        f"{field} must be an https:// URL" + ("" if path_ok else " origin (no path)"),
        field=field,
        code=code,
    )
    if len(raw) > 500 or not raw.isprintable() or any(c in raw for c in " \"'<>\\;,"):
        raise bad
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError:
        raise bad from None
    host = parts.hostname or ""
    if parts.scheme != "https" or parts.username is not None or parts.password is not None:
        raise bad
    if not _HOST.match(host) or (port is not None and not 0 < port < 65536):
        raise bad
    if not path_ok and (parts.path not in ("", "/") or parts.query or parts.fragment):
        raise bad
    return f"https://{host}" + (f":{port}" if port is not None else "")


def check_branding(body: PortalBrandingIn) -> dict[str, Any]:
    """The stored form of ``body`` (each refusal a 400 with its code)."""
    name = body.display_name
    if name is not None and not (1 <= len(name) <= 80 and name.isprintable()):
        raise ValidationError(
            "displayName must be 1..80 printable characters",
            field="displayName",
            code="invalid_display_name",
        )
    logo = body.logo_url
    if logo is not None:
        _origin(logo, "logoUrl", "invalid_logo_url", path_ok=True)
    colour = body.accent_colour
    if colour is not None:
        if not _COLOUR.match(colour):
            raise ValidationError(
                "accentColour must be #rrggbb", field="accentColour", code="invalid_accent_colour"
            )
        if contrast_on_white_text(colour) < MIN_CONTRAST:
            raise ValidationError(
                f"accentColour is too light for white text on it (contrast under {MIN_CONTRAST}:1)",
                field="accentColour",
                code="low_contrast_accent",
            )
        colour = colour.lower()
    if len(body.frame_ancestors) > FRAME_ANCESTORS_MAX:
        raise ValidationError(
            f"frameAncestors: at most {FRAME_ANCESTORS_MAX} origins",
            field="frameAncestors",
            code="invalid_frame_ancestor",
        )
    origins = [
        _origin(o, "frameAncestors", "invalid_frame_ancestor", path_ok=False)
        for o in body.frame_ancestors
    ]
    return {
        "displayName": name,
        "logoUrl": logo,
        "accentColour": colour,
        "frameAncestors": list(dict.fromkeys(origins)),
    }


def portal_csp(base: str, branding: dict[str, Any] | None) -> str:
    """The portal page's policy: ``base`` (the console's) with the tenant's frame-ancestors
    (``'none'`` unless it set some) and its logo's origin as an image source."""
    ancestors = (branding or {}).get("frameAncestors") or []
    logo = (branding or {}).get("logoUrl")
    policy = base.replace(
        "frame-ancestors 'none'", "frame-ancestors " + (" ".join(ancestors) or "'none'")
    )
    if logo:
        origin = _origin(logo, "logoUrl", "invalid_logo_url", path_ok=True)
        policy = policy.replace("img-src 'self'", f"img-src 'self' {origin}")
    return policy
