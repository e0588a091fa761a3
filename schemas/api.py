"""API request and response bodies (JSON, camelCase). Decoding is strict: unknown fields,
wrong types and bad enums are refused with the offending field named."""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

import msgspec

from .api_filters import FiltersEvaluate
from .api_reads import (
    AttemptBucket,
    AttemptResponseView,
    AttemptStats,
    AttemptStatsBatch,
    DeliveryEvidence,
    DeliveryLogItem,
    DeliveryLogPage,
    LatencyPercentiles,
    PortalBranding,
)
from .destinations import DestinationIn
from .numbers import (
    AggregateVersion,
    Attempts,
    Burst,
    DualWindowS,
    EventVersion,
    GapTimeoutS,
    InitialDelayS,
    MaxDelayS,
    Multiplier,
    Percent,
    PerSecond,
    RetryAfterCapS,
    TtlSeconds,
)
from .transformations import TransformationIn

__all__ = [
    "CONSUMER_ID_PATTERN",
    "EVENT_ID_PATTERN",
    "EVENT_VERSION_PATTERN",
    "EXTENSION_NAME_PATTERN",
    "HTTPS_ORIGIN_PATTERN",
    "MAX_BATCH_EVENTS",
    "MAX_EXTENSIONS",
    "TEXT_PATTERN",
    "URI_REFERENCE_PATTERN",
    "AttemptBucket",
    "AttemptResponseView",
    "AttemptStats",
    "AttemptStatsBatch",
    "ConsumerCreate",
    "ConsumerDisable",
    "ConsumerPatch",
    "DeliveryEvidence",
    "DeliveryLogItem",
    "DeliveryLogPage",
    "EndpointAuthIn",
    "EventBatchIn",
    "EventIn",
    "EventTypeIn",
    "EventTypeVersionIn",
    "FilterMap",
    "FiltersEvaluate",
    "HeaderAuthIn",
    "LatencyPercentiles",
    "Metadata",
    "MtlsAuthIn",
    "OAuth2AuthIn",
    "PortalBranding",
    "PortalBrandingIn",
    "PortalSessionCreate",
    "PortalSessionItem",
    "PortalSessionPage",
    "PortalSessionsEnded",
    "PublicJwkIn",
    "RateLimitIn",
    "ReceiptKeyIn",
    "RecoverIn",
    "RetryPolicyIn",
    "RolloutAdvance",
    "RolloutCreate",
    "RolloutTarget",
    "SubscriptionCreate",
    "SubscriptionPatch",
    "SubscriptionTransition",
    "TenantCreate",
    "TestEventIn",
]


#: what ``validate_text`` accepts, as JSON Schema says it for the document: not blank, no
#: C0/C1 control characters (the API's rule is ``str.isprintable``, a superset of this ban;
#: tests/subscriptions/test_openapi_contract.py compares the two)
TEXT_PATTERN = r"^[^\x00-\x1f\x7f-\x9f]*[^\s\x00-\x1f\x7f-\x9f][^\x00-\x1f\x7f-\x9f]*$"


def _text(max_length: int) -> Any:
    return msgspec.Meta(
        extra_json_schema={"minLength": 1, "maxLength": max_length, "pattern": TEXT_PATTERN}
    )


#: what a consumer id may be (chosen by the tenant): ``engine.consumers.CONSUMER_ID`` is this
CONSUMER_ID_PATTERN = r"^[A-Za-z0-9._:\-]{1,64}$"
#: a consumer id in a body, as the document shows it (the service checks it: ``invalid_id``)
ConsumerId = Annotated[str, msgspec.Meta(extra_json_schema={"pattern": CONSUMER_ID_PATTERN})]

Text200 = Annotated[str, _text(200)]
Text500 = Annotated[str, _text(500)]

#: an event id (``events.delivery_events.EVENT_ID`` is this, compiled)
EVENT_ID_PATTERN = r"^[A-Za-z0-9._:\-]{1,200}$"
#: an event's ``version``, "MAJOR.MINOR" (``ingest.event_checks`` compiles this)
EVENT_VERSION_PATTERN = r"^(0|[1-9][0-9]{0,4})\.(0|[1-9][0-9]{0,4})$"
#: an event's ``source``, a URI-reference (``ingest.event_checks`` compiles this)
URI_REFERENCE_PATTERN = r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]{1,1024}$"
#: a CloudEvents extension attribute's name (``ingest.event_checks`` compiles this)
EXTENSION_NAME_PATTERN = r"^[a-z0-9]{1,64}$"
#: the most extension attributes one event carries
MAX_EXTENSIONS = 32
#: an ``https://host[:port]`` origin as the branding takes it (``portal.branding``; letters
#: of any case: the host is stored lower-cased)
_LABEL = "[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_PORT = "(6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3})"
HTTPS_ORIGIN_PATTERN = f"^https://{_LABEL}(\\.{_LABEL})*(:{_PORT})?/?$"
#: a JSON Schema 2020-12 as a value: an object (of any members) or a boolean
JSON_SCHEMA_VALUE = {"anyOf": [{"type": "object", "additionalProperties": {}}, {"type": "boolean"}]}
#: an RFC 3339 time, as the document types it (the API parses it: ``invalid_time``)
Time = Annotated[str, msgspec.Meta(extra_json_schema={"format": "date-time", "maxLength": 64})]


class _Strict(msgspec.Struct, kw_only=True, forbid_unknown_fields=True, rename="camel"):
    pass


#: a consumer's ``metadata``: the tenant's own members, any JSON values (the service bounds
#: the whole: ``metadata_too_large`` past 4,096 bytes of canonical JSON)
Metadata = Annotated[
    dict[str, Any],
    msgspec.Meta(
        description="the tenant's own members (any JSON values; at most 4,096 bytes as JSON)",
        extra_json_schema={"additionalProperties": True},
    ),
]

_SCALAR: dict[str, Any] = {"type": ["string", "number", "integer", "boolean", "null"]}
#: a subscription's ``filter`` (``subscriptions.matching.validate_filter``): up to 32 dotted
#: paths into the payload, each to a scalar or a list of scalars (any of them matches)
FilterMap = Annotated[
    dict[str, Any],
    msgspec.Meta(
        description="payload path (dotted) -> the value it must have, or a list of values",
        extra_json_schema={
            "maxProperties": 32,
            "propertyNames": {"minLength": 1, "maxLength": 200, "pattern": r"^[^.]+(\.[^.]+)*$"},
            "additionalProperties": {
                "anyOf": [_SCALAR, {"type": "array", "items": _SCALAR}],
            },
        },
    ),
]

#: a public Ed25519 key as a JWK (``subscriptions.validation.validate_receipt_key``): other
#: JWK members (``kid``, ``use``, ``alg``) are accepted and not kept; a private ``d`` refused
PublicJwkIn = Annotated[
    dict[str, Any],
    msgspec.Meta(
        description="an Ed25519 public key (RFC 8037): kty OKP, crv Ed25519, x (32 bytes, "
        "base64url); a private key (with d) is refused",
        extra_json_schema={
            "required": ["kty", "crv", "x"],
            "properties": {
                "kty": {"const": "OKP"},
                "crv": {"const": "Ed25519"},
                "x": {"type": "string", "pattern": "^[A-Za-z0-9_-]{43}$"},
            },
            "additionalProperties": True,
        },
    ),
]


class RetryPolicyIn(_Strict, kw_only=True):
    max_attempts: Attempts = 8
    initial_delay_s: InitialDelayS = 5.0
    max_delay_s: MaxDelayS = 3600.0
    multiplier: Multiplier = 2.0
    retry_after_cap_s: RetryAfterCapS = 3600.0
    on_gone: Literal["suspend", "dead_letter"] = "suspend"


class ReceiptKeyIn(_Strict, kw_only=True):
    key_id: Text200
    public_key_jwk: PublicJwkIn


class _AuthIn(_Strict, kw_only=True, tag_field="type"):
    def __repr__(self) -> str:  # write-only secrets: never printed
        return f"{type(self).__name__}(<redacted>)"

    __str__ = __repr__


class MtlsAuthIn(_AuthIn, kw_only=True, tag="mtls"):
    """A client certificate (PEM, with its chain) and its private key (PEM, unencrypted)."""

    certificate_pem: Annotated[str, msgspec.Meta(min_length=1, max_length=65536)]
    private_key_pem: Annotated[str, msgspec.Meta(min_length=1, max_length=16384)]


class OAuth2AuthIn(_AuthIn, kw_only=True, tag="oauth2"):
    """OAuth 2.0 client credentials (RFC 6749 section 4.4) against an HTTPS token URL."""

    token_url: Annotated[str, msgspec.Meta(min_length=1, max_length=2048)]
    client_id: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)]
    client_secret: Annotated[str, msgspec.Meta(min_length=1, max_length=4096)]
    scope: Annotated[str, msgspec.Meta(min_length=1, max_length=1024)] | None = None
    audience: Annotated[str, msgspec.Meta(min_length=1, max_length=2048)] | None = None


class HeaderAuthIn(_AuthIn, kw_only=True, tag="header"):
    """One static header sent with every request to the endpoint (reserved names refused)."""

    name: Annotated[str, msgspec.Meta(min_length=1, max_length=256)]
    value: Annotated[str, msgspec.Meta(min_length=1, max_length=8192)]


class RateLimitIn(_Strict, kw_only=True):
    """At most ``burst + perSecond * t`` requests in any ``t`` seconds (DESIGN.md section 14)."""

    per_second: PerSecond
    burst: Burst


#: A subscription's ``auth`` (DESIGN.md section 14): write-only, never echoed.
EndpointAuthIn = MtlsAuthIn | OAuth2AuthIn | HeaderAuthIn


#: hookproof's own body, or a CloudEvent in the HTTP binding's structured or binary mode
DeliveryFormat = Literal["hookproof", "cloudevents-structured", "cloudevents-binary"]


class SubscriptionCreate(_Strict, kw_only=True):
    #: an endpoint, a destination, or both (a relay): else 400 ``endpoint_required``. Said as
    #: an extension, not a top-level ``anyOf``: openapi-python-client 0.29 types a body whose
    #: schema is an ``anyOf`` of bare ``required`` lists as ``Any`` (its model is lost)
    __json_schema_extra__: ClassVar[dict[str, Any]] = {
        "description": "A subscription: an HTTPS ``endpoint``, a broker ``destination``, or "
        "both (a relay: a destination {type: relay} and the local endpoint); neither is a 400 "
        "endpoint_required.",
        "x-required-any-of": [["endpoint"], ["destination"]],
    }
    #: the HTTPS endpoint; absent exactly when ``destination`` names a broker (DESIGN.md 13)
    endpoint: str | None = None
    topics: Annotated[list[Text200], msgspec.Meta(min_length=1, max_length=100)]
    #: legacy: dotted payload paths to a value or allowed values (stored as ``filters``)
    filter: FilterMap | None = None
    #: filter expressions that must all hold (DESIGN.md section 16; a bound field)
    filters: list[Any] | None = None
    event_versions: Annotated[list[EventVersion], msgspec.Meta(min_length=1)]
    region: Text200
    signature_algorithm: Literal["ed25519", "hmac-sha256"]
    retry_policy: RetryPolicyIn | None = None
    expires_at: Time | None = None
    owner: Text200
    receipt_key: ReceiptKeyIn | None = None
    old_generation_policy: Literal["drain", "quarantine"] = "drain"
    signature_profile: Literal["hookproof.sig.v1", "standard-webhooks.v1"] = "hookproof.sig.v1"
    ordering: Literal["none", "aggregate"] = "none"
    ordering_gap_timeout_s: GapTimeoutS = 60.0
    #: Import only: ``whsec_...`` of an hmac-sha256 ``standard-webhooks.v1`` subscription.
    secret: str | None = None
    #: The tenant's consumer this subscription belongs to (immutable; None: consumer-less).
    consumer_id: ConsumerId | None = None
    #: A broker (``amqp`` | ``nats``; credentials write-only, DESIGN.md 13) or a development
    #: relay (``relay``, ``hookproof listen``, DESIGN.md 11) instead of an HTTPS endpoint.
    destination: DestinationIn | None = None
    #: How the engine authenticates to the endpoint (write-only).
    auth: EndpointAuthIn | None = None
    #: A token bucket over all workers and daemons (None: no limit but the endpoint gate's).
    rate_limit: RateLimitIn | None = None
    #: The delivery format (DESIGN.md section 16; a bound field).
    format: DeliveryFormat = "hookproof"
    #: Reshapes each payload before it is signed (a bound field; DESIGN.md 17).
    transformation: TransformationIn | None = None


class SubscriptionPatch(_Strict, kw_only=True):
    endpoint: str | msgspec.UnsetType = msgspec.UNSET
    topics: (
        Annotated[list[Text200], msgspec.Meta(min_length=1, max_length=100)] | msgspec.UnsetType
    ) = msgspec.UNSET
    filter: FilterMap | msgspec.UnsetType | None = msgspec.UNSET
    filters: list[Any] | msgspec.UnsetType | None = msgspec.UNSET
    transformation: TransformationIn | msgspec.UnsetType | None = msgspec.UNSET
    event_versions: (
        Annotated[list[EventVersion], msgspec.Meta(min_length=1)] | msgspec.UnsetType
    ) = msgspec.UNSET
    region: Text200 | msgspec.UnsetType = msgspec.UNSET
    retry_policy: RetryPolicyIn | msgspec.UnsetType = msgspec.UNSET
    expires_at: Time | msgspec.UnsetType | None = msgspec.UNSET
    owner: Text200 | msgspec.UnsetType = msgspec.UNSET
    receipt_key: ReceiptKeyIn | msgspec.UnsetType | None = msgspec.UNSET
    old_generation_policy: Literal["drain", "quarantine"] | msgspec.UnsetType = msgspec.UNSET
    ordering: Literal["none", "aggregate"] | msgspec.UnsetType = msgspec.UNSET
    ordering_gap_timeout_s: GapTimeoutS | msgspec.UnsetType = msgspec.UNSET
    #: Immutable: accepted only when it names the consumer the subscription already has.
    consumer_id: ConsumerId | msgspec.UnsetType | None = msgspec.UNSET
    #: A new broker destination (a new generation; only on a broker subscription).
    destination: DestinationIn | msgspec.UnsetType = msgspec.UNSET
    #: Replaces (or with null removes) the endpoint authentication: its own event, no new
    #: generation.
    auth: EndpointAuthIn | msgspec.UnsetType | None = msgspec.UNSET
    #: Replaces (null removes) the rate limit: same generation.
    rate_limit: RateLimitIn | msgspec.UnsetType | None = msgspec.UNSET
    format: DeliveryFormat | msgspec.UnsetType = msgspec.UNSET


class SubscriptionTransition(_Strict, kw_only=True):
    reason: str | None = None


#: ``EventIn.occurredAt``: optional, and how a repost without it is compared (issue 49)
_OCCURRED_AT = (
    "When it happened (RFC 3339). Omitted: the engine records when it first accepted the "
    "event, and the same eventId and payload posted again without occurredAt is the same "
    "event (created false), never a conflict; a value the sender sets is compared as sent."
)


class EventIn(_Strict, kw_only=True):
    event_id: Annotated[str, msgspec.Meta(extra_json_schema={"pattern": EVENT_ID_PATTERN})]
    #: a topic: 1..200 printable characters, no ``*``
    topic: Annotated[
        str,
        msgspec.Meta(
            extra_json_schema={
                "minLength": 1,
                "maxLength": 200,
                "pattern": r"^[^*\x00-\x1f\x7f-\x9f]+$",
            }
        ),
    ]
    version: Annotated[str, msgspec.Meta(extra_json_schema={"pattern": EVENT_VERSION_PATTERN})]
    aggregate_id: Annotated[
        str,
        msgspec.Meta(
            extra_json_schema={
                "minLength": 1,
                "maxLength": 200,
                "pattern": r"^[^\x00-\x1f\x7f-\x9f]+$",
            }
        ),
    ]
    aggregate_version: AggregateVersion
    payload: Any
    occurred_at: (
        Annotated[
            str,
            msgspec.Meta(
                description=_OCCURRED_AT,
                extra_json_schema={"format": "date-time", "maxLength": 64},
            ),
        ]
        | msgspec.UnsetType
    ) = msgspec.UNSET
    #: Planned only for this consumer's subscriptions (None: only consumer-less ones).
    consumer_id: ConsumerId | None = None
    #: The CloudEvents ``source`` (a URI-reference) the event came from (None: not given; as a
    #: CloudEvent it is then ``/tenants/<tenantId>``). Part of the canonical body when given.
    source: (
        Annotated[str, msgspec.Meta(extra_json_schema={"pattern": URI_REFERENCE_PATTERN})] | None
    ) = None
    #: Other CloudEvents extension attributes (names ``[a-z0-9]``, values string, integer or
    #: Boolean), kept as given. Part of the canonical body when given.
    extensions: (
        Annotated[
            dict[str, str | int | bool],
            msgspec.Meta(
                extra_json_schema={
                    "maxProperties": MAX_EXTENSIONS,
                    "propertyNames": {"pattern": EXTENSION_NAME_PATTERN},
                }
            ),
        ]
        | None
    ) = None


MAX_BATCH_EVENTS = 1000
#: the most deliveries one ``POST /v1/subscriptions/{id}/recover`` moves
MAX_RECOVER = 10_000


class EventTypeVersionIn(_Strict, kw_only=True):
    """One major version of an event type: a JSON Schema 2020-12 and an example payload
    (required; JSON ``null`` is an example too)."""

    #: an object or a boolean (JSON Schema 2020-12)
    schema: Annotated[Any, msgspec.Meta(extra_json_schema=JSON_SCHEMA_VALUE)]
    example: Any = msgspec.UNSET
    #: required in the document: the service refuses a version without one
    __json_schema_extra__: ClassVar[dict[str, Any]] = {"required": ["schema", "example"]}


class EventTypeIn(_Strict, kw_only=True):
    """``PUT /v1/event-types/{topic}``: the whole definition (it replaces the one before)."""

    description: str
    versions: dict[
        Annotated[str, msgspec.Meta(pattern=r"^(0|[1-9][0-9]{0,4})$")], EventTypeVersionIn
    ]
    deprecated: bool = False


class EventBatchIn(_Strict, kw_only=True):
    """``POST /v1/events/batch``: up to 1,000 events, each answered on its own, in order:
    each is decoded as an :class:`EventIn` by itself, so any JSON value is a place in the
    batch (one that is not an EventIn gets its own 400 result)."""

    events: Annotated[
        list[msgspec.Raw],
        msgspec.Meta(
            min_length=1,
            max_length=MAX_BATCH_EVENTS,
            description="each an EventIn, answered on its own (a bad one: its own 400 result)",
        ),
    ]


class RolloutTarget(_Strict, kw_only=True):
    """Exactly one of ``signatureProfile`` or ``signingKey`` (an engine key id)."""

    signature_profile: Literal["hookproof.sig.v1", "standard-webhooks.v1"] | None = None
    signing_key: str | None = None


class RolloutCreate(_Strict, kw_only=True):
    target: RolloutTarget
    subscriptions: list[str] | Literal["all"]
    internal: list[str] = []
    #: how long a switched subscription gets both signatures (default: the VERIFY_ONLY window)
    dual_window_s: DualWindowS | None = None


class RolloutAdvance(_Strict, kw_only=True):
    stage: Literal["INTERNAL", "CUTOVER", "COMPLETE"]
    percent: Percent | None = None


class RecoverIn(_Strict, kw_only=True):
    """``POST /v1/subscriptions/{id}/recover``: deliveries in ``states`` whose state was last
    changed in ``[since, until)`` go back to RETRYABLE (at most ``limit`` per call)."""

    since: Time
    until: Time | None = None
    states: (
        Annotated[
            list[
                # the ledger's replay rule (``delivery.recover.recoverable_states``): its enum is
                # set by the document (``api.openapi``), which may read the ledger's table
                str
            ],
            msgspec.Meta(extra_json_schema={"minItems": 1}),
        ]
        | None
    ) = None
    limit: Annotated[int, msgspec.Meta(ge=1, le=MAX_RECOVER)] | None = None


class ConsumerCreate(_Strict, kw_only=True):
    """``POST /v1/consumers``: ``id`` chosen by the tenant (1..64 of ``[A-Za-z0-9._:-]``)."""

    id: ConsumerId
    name: Text200
    metadata: Metadata = {}


class ConsumerPatch(_Strict, kw_only=True):
    name: Text200 | msgspec.UnsetType = msgspec.UNSET
    metadata: Metadata | msgspec.UnsetType = msgspec.UNSET


class ConsumerDisable(_Strict, kw_only=True):
    reason: Text500 | None = None


_CAPABILITIES = ("read", "manage", "replay")


class PortalSessionCreate(_Strict, kw_only=True):
    """``POST /v1/consumers/{id}/portal-sessions``."""

    ttl_seconds: TtlSeconds = 3600
    #: a non-empty subset of read, manage, replay, each once (``portal.service`` checks it)
    capabilities: Annotated[
        list[Annotated[str, msgspec.Meta(extra_json_schema={"enum": list(_CAPABILITIES)})]],
        msgspec.Meta(extra_json_schema={"minItems": 1, "maxItems": 3, "uniqueItems": True}),
    ] = msgspec.field(default_factory=lambda: ["read", "manage", "replay"])


class PortalSessionItem(_Strict, kw_only=True):
    """One live session in ``GET /v1/consumers/{id}/portal-sessions``. ``capabilities`` is its
    scope; ``creator`` is ``token:<tokenId>`` (the tenant token that started it: its public
    id, as ``hookproof tenant revoke-token`` takes it), ``operator`` (``hookproof tenant
    portal-session``) or ``unknown`` (started before creators were recorded). Never the token
    or its digest."""

    id: str
    consumer_id: str
    capabilities: list[Literal["read", "manage", "replay"]]
    creator: str
    created_at: str
    expires_at: str


class PortalSessionPage(_Strict, kw_only=True):
    """``GET /v1/consumers/{id}/portal-sessions``: live sessions (not ended, not expired),
    oldest first; ``limit`` (1..500, default 100) and ``cursor`` as every list."""

    items: list[PortalSessionItem]
    next_cursor: str | None


class PortalSessionsEnded(_Strict, kw_only=True):
    """``DELETE /v1/consumers/{id}/portal-sessions``: how many live sessions it ended."""

    ended: int


class TenantCreate(_Strict, kw_only=True):
    """``POST /v1/tenants`` (operator token)."""

    name: Text200


class TestEventIn(_Strict, kw_only=True):
    """``POST /v1/subscriptions/{id}/test-events``: send the event catalogue's example of
    ``topic`` (one the subscription takes; default: its only exact topic) at major
    ``version`` (default: the newest the subscription accepts with an example) to this one
    endpoint, through the normal delivery path. The event's id is ``hookproof-test-<hex>``
    (a reserved space) and its ``event.ingested`` says ``test: true``; the log marks its
    delivery ``test``. 202 with the ingest answer."""

    __test__ = False  # not a pytest class

    topic: str | None = None
    version: EventVersion | None = None


class PortalBrandingIn(_Strict, kw_only=True):
    """``PUT /v1/portal/branding`` (a tenant token): how the tenant's customers see the portal,
    replaced whole. ``displayName`` 1..80 printable characters; ``logoUrl`` an ``https://`` URL
    (no credentials, at most 500 characters); ``accentColour`` ``#rrggbb``, dark enough for
    white text on it (contrast at least 4.5:1); ``frameAncestors``: at most 10 origins
    (``https://host[:port]``) allowed to embed ``/portal/{tenantId}`` in a frame (default none:
    the portal cannot be framed). Refusals: ``invalid_display_name``, ``invalid_logo_url``,
    ``invalid_accent_colour``, ``low_contrast_accent``, ``invalid_frame_ancestor``."""

    display_name: (
        Annotated[
            str,
            msgspec.Meta(
                extra_json_schema={
                    "minLength": 1,
                    "maxLength": 80,
                    "pattern": r"^[^\x00-\x1f\x7f-\x9f]+$",
                }
            ),
        ]
        | None
    ) = None
    logo_url: (
        Annotated[
            str,
            msgspec.Meta(
                extra_json_schema={"maxLength": 500, "pattern": r"^https://[^\s\x22\x27<>\\;,@]+$"}
            ),
        ]
        | None
    ) = None
    accent_colour: (
        Annotated[str, msgspec.Meta(extra_json_schema={"pattern": "^#[0-9a-fA-F]{6}$"})] | None
    ) = None
    frame_ancestors: Annotated[
        list[
            Annotated[
                str,
                msgspec.Meta(extra_json_schema={"maxLength": 270, "pattern": HTTPS_ORIGIN_PATTERN}),
            ]
        ],
        msgspec.Meta(extra_json_schema={"maxItems": 10}),
    ] = msgspec.field(default_factory=list)
