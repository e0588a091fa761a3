"""A subscription's ``auth``, checked and split (pure, no I/O; DESIGN.md section 14).

:func:`parse_auth` turns the API's ``auth`` object (``schemas.api.EndpointAuthIn``) into the
write-only :class:`AuthSecret` (sealed under the master key, :mod:`.materials`) or raises
:class:`ValidationError` with an ``auth_*`` code (:data:`AUTH_CODES`) and ``field`` naming the
member. :func:`auth_digest` is keyed (HMAC-SHA256 under a key derived from the master key), so
the digest an event carries cannot be turned back into a weak secret by guessing.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import ssl
from dataclasses import asdict, dataclass
from typing import Final

import msgspec
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from hookproof.config import Settings
from hookproof.errors import ValidationError
from hookproof.schemas.api import EndpointAuthIn, HeaderAuthIn, MtlsAuthIn, OAuth2AuthIn

from ..egress.endpoint import normalise_endpoint
from ..egress.identity import certificate_digest, load_client_chain

__all__ = [
    "AUTH_CODES",
    "RESERVED_EXACT",
    "RESERVED_PREFIXES",
    "AuthSecret",
    "auth_digest",
    "auth_digest_key",
    "parse_auth",
    "reserved_header",
]

#: Every reason code :func:`parse_auth` raises.
AUTH_CODES: Final = frozenset(
    {
        "auth_header_reserved",
        "auth_header_invalid",
        "auth_certificate_invalid",
        "auth_token_url_invalid",
        "auth_field_invalid",
    }
)

#: Header names the engine writes itself or that steer the connection: never a static header.
RESERVED_EXACT: Final = frozenset(
    {
        "host",
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authenticate",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "expect",
        "signature",
        "signature-input",
        "traceparent",
        "tracestate",
        "user-agent",
        "accept-encoding",
    }
)
#: ... and every name starting with one of these.
#: ``signature`` covers Signature, Signature-Input and Signature-Agent (RFC 9421 and its web
#: bot auth draft: the README reserves ``Signature*``)
RESERVED_PREFIXES: Final = ("content-", "webhook-", "hookproof-", "signature")

_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_DIGEST_INFO: Final = b"hookproof endpoint auth digest v1"


@dataclass(frozen=True, slots=True, repr=False)
class AuthSecret:
    """The whole credential, write-only: ``repr`` is redacted, it is only ever sealed."""

    type: str
    certificate_pem: str | None = None
    private_key_pem: str | None = None
    token_url: str | None = None
    client_id: str | None = None
    client_secret: str | None = None
    scope: str | None = None
    audience: str | None = None
    name: str | None = None
    value: str | None = None

    def __repr__(self) -> str:
        return f"AuthSecret({self.type}, <redacted>)"

    __str__ = __repr__

    def encode(self) -> bytes:
        """Canonical JSON (sorted keys): what is sealed and what the digest covers."""
        return msgspec.json.encode({k: v for k, v in sorted(asdict(self).items()) if v})

    @classmethod
    def decode(cls, raw: bytes) -> AuthSecret:
        return cls(**msgspec.json.decode(raw, type=dict[str, str]))

    def secrets(self) -> tuple[str, ...]:
        """Every secret text (what a log scan must never find)."""
        return tuple(s for s in (self.private_key_pem, self.client_secret, self.value) if s)


def reserved_header(name: str) -> bool:
    low = name.lower()
    return low in RESERVED_EXACT or low.startswith(RESERVED_PREFIXES)


def _printable(value: str) -> bool:
    return value.isprintable() and not any("\ud800" <= ch <= "\udfff" for ch in value)


def _reject(code: str, detail: str, member: str) -> ValidationError:
    return ValidationError(detail, field=f"auth.{member}", code=code)


def parse_auth(body: EndpointAuthIn, settings: Settings) -> AuthSecret:
    """The checked credential (see the module docstring for the codes)."""
    if isinstance(body, HeaderAuthIn):
        if not _TOKEN.fullmatch(body.name):
            raise _reject("auth_header_invalid", "the header name is not a token", "name")
        if reserved_header(body.name):
            raise _reject(
                "auth_header_reserved",
                f"{body.name!r} is a header the engine writes or the connection uses",
                "name",
            )
        if not _printable(body.value) or body.value != body.value.strip():
            raise _reject(
                "auth_header_invalid",
                "the header value must be printable, without surrounding spaces",
                "value",
            )
        return AuthSecret("header", name=body.name, value=body.value)
    if isinstance(body, MtlsAuthIn):
        try:
            load_client_chain(
                ssl.create_default_context, body.certificate_pem, body.private_key_pem
            )
        except (ssl.SSLError, ValueError, OSError):
            raise _reject(
                "auth_certificate_invalid",
                "the certificate and private key do not load as a matching PEM pair",
                "certificatePem",
            ) from None
        return AuthSecret(
            "mtls", certificate_pem=body.certificate_pem, private_key_pem=body.private_key_pem
        )
    assert isinstance(body, OAuth2AuthIn)
    try:
        url = normalise_endpoint(
            body.token_url, allowed_ports=settings.egress_ports, allow_pairs=settings.egress_allow
        ).url
    except ValidationError as exc:
        raise _reject("auth_token_url_invalid", exc.detail, "tokenUrl") from None
    for member, value in (
        ("clientId", body.client_id),
        ("clientSecret", body.client_secret),
        ("scope", body.scope),
        ("audience", body.audience),
    ):
        if value is not None and not _printable(value):
            raise _reject("auth_field_invalid", f"{member} must be printable text", member)
    return AuthSecret(
        "oauth2",
        token_url=url,
        client_id=body.client_id,
        client_secret=body.client_secret,
        scope=body.scope,
        audience=body.audience,
    )


def auth_digest_key(master_key: bytes) -> bytes:
    """The key of :func:`auth_digest`, derived from the master key (HKDF-SHA256)."""
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_DIGEST_INFO).derive(
        master_key
    )


def auth_digest(secret: AuthSecret, key: bytes) -> str:
    """``hmac-sha256:<hex>`` over the credential's canonical JSON."""
    return "hmac-sha256:" + hmac.new(key, secret.encode(), hashlib.sha256).hexdigest()


def certificate_of(secret: AuthSecret) -> str | None:
    """The client certificate's ``sha256:<hex>`` (its identity; not secret), for mtls."""
    return certificate_digest(secret.certificate_pem) if secret.certificate_pem else None
