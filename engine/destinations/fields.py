"""A subscription's ``destination`` object for a kind that declares its members
(:attr:`.kind.KindSpec.fields`): checked against that declaration (pure: no I/O).

Every member but ``type`` must be declared, of its declared JSON type, and present when
required; the checked value splits into the public members (bound into the subscription's
config and shown) and the write-only ``secret`` ones (sealed, shown only as a keyed digest).
The deliveries' URI is the kind's :attr:`~.kind.KindSpec.endpoint` of the public members: an
absolute URL of one of the kind's schemes, with a host and no userinfo (a secret belongs in a
secret member, never in a URI that is signed, stored and shown).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

from hookproof.errors import ValidationError

from .kind import FieldSpec, KindSpec

__all__ = ["MAX_FIELD_TEXT", "KindDestination", "check_destination"]

#: the longest text member a declared field may hold
MAX_FIELD_TEXT: Final = 2048
_JSON_TYPES: Final = {"string": (str,), "integer": (int,), "boolean": (bool,), "object": (dict,)}


@dataclass(frozen=True, slots=True)
class KindDestination:
    """A checked ``destination`` of a declared kind: ``public`` members, write-only
    ``secrets`` (never in a repr), the deliveries' ``uri`` and its parts."""

    kind: str
    public: dict[str, Any]
    uri: str
    scheme: str
    host: str
    port: int | None
    secrets: dict[str, Any] = field(default_factory=dict, repr=False)


def _invalid(detail: str, where: str, code: str = "destination_invalid") -> ValidationError:
    return ValidationError(detail, field=f"destination.{where}", code=code)


def _checked(spec: FieldSpec, value: Any) -> Any:
    types = _JSON_TYPES[spec.type]
    if (isinstance(value, bool) and spec.type == "integer") or not isinstance(value, types):
        raise _invalid(f"{spec.name} must be a {spec.type}", spec.name)
    if isinstance(value, str) and not 0 < len(value) <= MAX_FIELD_TEXT:
        raise _invalid(f"{spec.name} must be 1 to {MAX_FIELD_TEXT} characters", spec.name)
    return value


def check_destination(kind: KindSpec, value: Mapping[str, Any]) -> KindDestination:
    """The checked destination; ValidationError (``destination_invalid``, or
    ``destination_url_invalid`` for the URI) naming the member otherwise."""
    declared = {f.name: f for f in kind.fields}
    for name in value:
        if name != "type" and name not in declared:
            raise _invalid(f"unknown member {name!r} for kind {kind.name!r}", str(name)[:64])
    public: dict[str, Any] = {}
    secrets: dict[str, Any] = {}
    for spec in kind.fields:
        if spec.name not in value or value[spec.name] is None:
            if spec.required:
                raise _invalid(f"{spec.name} is required for kind {kind.name!r}", spec.name)
            continue
        (secrets if spec.secret else public)[spec.name] = _checked(spec, value[spec.name])
    uri = kind.endpoint(public) if kind.endpoint is not None else public.get("url")
    if not isinstance(uri, str):
        raise _invalid(f"kind {kind.name!r} gives no URL", "url", "destination_url_invalid")
    try:
        parts = urlsplit(uri)
        port = parts.port
    except ValueError as exc:
        raise _invalid("not an absolute URL", "url", "destination_url_invalid") from exc
    scheme = parts.scheme.lower()
    if scheme not in {s.lower() for s in kind.schemes} or not parts.hostname:
        raise _invalid(
            f"an absolute {'/'.join(sorted(kind.schemes))} URL with a host is required",
            "url",
            "destination_url_invalid",
        )
    if parts.username is not None or parts.password is not None:
        raise _invalid("no credentials in the URL", "url", "destination_userinfo")
    if parts.query or parts.fragment:
        raise _invalid("no query or fragment in the URL", "url", "destination_query")
    return KindDestination(kind.name, public, uri, scheme, parts.hostname, port, secrets)
