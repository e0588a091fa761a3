"""``/v1/subscriptions``: register, read, list, patch (If-Match), transitions, history."""

from __future__ import annotations

import base64
from typing import Any

import msgspec
from aiohttp import web

from hookproof.errors import PreconditionFailed, ValidationError
from hookproof.events import RecordedEvent
from hookproof.events.subscription_events import EndpointAuthRef, SubscriptionConfig
from hookproof.projections.subscriptions import SubscriptionState
from hookproof.schemas.api import SubscriptionCreate, SubscriptionPatch, SubscriptionTransition
from hookproof.schemas.destinations import DESTINATION_TYPES
from hookproof_subscriber import STANDARD_WEBHOOKS_V1, encode_whsec

from ..challenge.disclosure import reason_hint, redact_event_data, tenant_reason
from ..consumers.service import check_consumer_id
from ..destinations.brokers.binding import view_of
from ..destinations.fields import KindDestination, check_destination
from ..destinations.kind import KindSpec
from ..destinations.registry import installed
from ..portal.auth import PortalScope
from ..subscriptions.filter_spec import effective_filters
from ..subscriptions.service import SUBSCRIPTION_ID
from .context import ApiContext, actor, portal_of, tenant_of
from .pages import cursor_time, decode_cursor, encode_cursor, page_params
from .problems import decode_body, decode_json, json_response, read_json
from .reads import read_side

__all__ = ["routes", "subscription_view"]


def filters_view(c: SubscriptionConfig) -> list[Any]:
    """The subscription's ``filters`` in the new form (a legacy ``filter`` converted)."""
    spec = effective_filters(c)
    return list(spec.expressions) if spec is not None else []


def subscription_view(s: SubscriptionState) -> dict[str, Any]:
    c = s.config
    view: dict[str, Any] = {
        "id": s.subscription_id,
        "tenantId": s.tenant_id,
        "generation": s.generation,
        "state": s.state,
        "endpoint": c.endpoint,
        "endpointDigest": c.endpoint_digest,
        "topics": c.topics,
        "filters": filters_view(c),
        "eventVersions": c.event_versions,
        "region": c.region,
        "signatureAlgorithm": c.signature_algorithm,
        "signatureProfile": c.signature_profile,
        "ordering": c.ordering,
        "orderingGapTimeoutS": c.ordering_gap_timeout_s,
        "format": c.format,
        "retryPolicy": {
            "maxAttempts": c.retry_policy.max_attempts,
            "initialDelayS": c.retry_policy.initial_delay_s,
            "maxDelayS": c.retry_policy.max_delay_s,
            "multiplier": c.retry_policy.multiplier,
            "retryAfterCapS": c.retry_policy.retry_after_cap_s,
            "onGone": c.retry_policy.on_gone,
        },
        "expiresAt": c.expires_at,
        "owner": c.owner,
        "receiptKey": (
            {
                "keyId": c.receipt_key.key_id,
                "publicKeyJwk": c.receipt_key.public_key_jwk,
                "generation": c.receipt_key.generation,
            }
            if c.receipt_key
            else None
        ),
        "oldGenerationPolicy": c.old_generation_policy,
        "consumerId": c.consumer_id,
        "auth": _auth_view(c.auth),
        "rateLimit": (
            {"perSecond": c.rate_limit.per_second, "burst": c.rate_limit.burst}
            if c.rate_limit is not None
            else None
        ),
        "verifiedGeneration": s.verified_generation,
        "applicationEvidence": "RECEIPTS" if c.receipt_key else "UNOBSERVABLE",
        "version": s.version,
        "createdAt": s.created_at,
        "updatedAt": s.updated_at,
    }
    if c.transformation is not None:
        t = c.transformation
        view["transformation"] = {"language": t.language, "code": t.code, "digest": t.digest}
    if c.destination is not None and c.destination.is_relay:
        view["destination"] = {"type": "relay"}
    elif c.destination is not None:  # a broker: never a credential, only its digest
        view["destination"] = view_of(c.destination)
    if s.pending is not None:
        view["pendingChallenge"] = {
            "challengeId": s.pending.challenge_id,
            "generation": s.pending.generation,
            "expiresAt": s.pending.expires_at,
        }
    if s.last_reason:
        view["lastReason"] = shown = tenant_reason(s.last_reason)
        if shown == "bad_status" and s.last_status is not None:
            view["lastStatus"] = s.last_status
        hint = reason_hint(
            shown, s.last_status if shown == "bad_status" else None, endpoint=c.endpoint
        )
        # a broker's own words on its refusal ("no exchange 'x'"), first (never for a code
        # whose specifics tenants do not see, never from an HTTPS transport)
        said = s.last_detail if shown == s.last_reason and _is_broker(c) else None
        if said:
            hint = said + (f"; {hint}" if hint else "")
        if hint is not None:
            view["lastReasonDetail"] = hint
    return view


async def _decode(request: web.Request, typ: type[Any]) -> Any:
    """The body, strictly decoded; a malformed ``destination`` (an unknown type, a member of
    the wrong type or unknown) is ``destination_invalid`` naming the member (DESIGN.md 13)."""
    return _decoded(await read_json(request), typ)


async def _decode_create(request: web.Request) -> tuple[SubscriptionCreate, KindDestination | None]:
    """The registration, and the checked ``destination`` when its type is an installed kind
    that declares its members (DESIGN.md 15): checked against that declaration."""
    raw = await read_json(request)
    kind = _declared_kind(raw)
    if kind is None:
        return _decoded(raw, SubscriptionCreate), None
    doc = msgspec.json.decode(raw)
    value = doc.pop("destination")
    return _decoded(msgspec.json.encode(doc), SubscriptionCreate), check_destination(kind, value)


def _declared_kind(raw: bytes) -> KindSpec | None:
    """The installed kind a body's ``destination.type`` names, when the API's own union of
    built-in destinations does not carry it (not the default kind: it has no object)."""
    try:
        doc = msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return None  # the strict decode says what is wrong
    dest = doc.get("destination") if isinstance(doc, dict) else None
    name = dest.get("type") if isinstance(dest, dict) else None
    if not isinstance(name, str) or name in DESTINATION_TYPES:
        return None
    kind = installed().get(name)
    return None if kind is None or kind.default else kind


def _decoded(raw: bytes, typ: type[Any]) -> Any:
    try:
        return decode_json(raw, typ)
    except ValidationError as exc:
        where = str(exc.extra.get("field") or "")
        if exc.code == "invalid_request" and where.split(".")[0] == "destination":
            unknown = _unknown_kind(where, exc.detail)
            if unknown is not None:
                kinds = list(installed().names)
                raise ValidationError(
                    f"destination type {unknown!r} is not installed; installed: "
                    + ", ".join(kinds),
                    field="destination.type",
                    code="unknown_destination_type",
                    installedKinds=kinds,
                ) from exc
            raise ValidationError(exc.detail, field=where, code="destination_invalid") from exc
        raise


def _unknown_kind(where: str, detail: str) -> str | None:
    """The ``destination.type`` the decoder refused when it names no installed kind (the
    registry's): msgspec's tag error reads ``Invalid value '<type>' - at `$.destination.type```."""
    prefix = "Invalid value '"
    if where != "destination.type" or not detail.startswith(prefix):
        return None
    kind = detail[len(prefix) :].rsplit("' - at ", 1)[0]
    return kind[:64] if installed().get(kind) is None else None


def _is_broker(c: Any) -> bool:
    return c.destination is not None and not c.destination.is_relay


def _auth_view(ref: EndpointAuthRef | None) -> dict[str, Any] | None:
    """What a reader may see of ``auth``: its kind and public parts, never a secret."""
    if ref is None:
        return None
    view: dict[str, Any] = {"type": ref.type, "digest": ref.digest}
    if ref.name is not None:
        view["name"] = ref.name
    if ref.token_url is not None:
        view["tokenUrl"] = ref.token_url
    if ref.client_id is not None:
        view["clientId"] = ref.client_id
    if ref.certificate_sha256 is not None:
        view["certificateSha256"] = ref.certificate_sha256
    return view


def _etag(s: SubscriptionState) -> dict[str, str]:
    return {"ETag": f'"{s.generation}"'}


def _if_match(request: web.Request) -> int:
    raw = request.headers.get("If-Match")
    if raw is None:
        err = PreconditionFailed(
            "If-Match with the expected generation is required", code="if_match_required"
        )
        err.status = 428
        err.title = "Precondition required"
        raise err
    text = raw.strip()
    if text.startswith("W/"):
        text = text[2:]
    text = text.strip('"')
    if not (text.isascii() and text.isdigit() and len(text) <= 9):
        raise ValidationError(
            'If-Match must be "<generation>"', field="If-Match", code="bad_if_match"
        )
    return int(text)


def event_view(e: RecordedEvent) -> dict[str, Any]:
    import msgspec

    meta = e.meta()
    return {
        "streamVersion": e.stream_version,
        "globalPosition": e.global_position,
        "eventId": str(e.event_id),
        "type": e.type,
        "schemaVersion": e.schema_version,
        "recordedAt": e.recorded_at.isoformat(),
        "actor": meta.actor,
        "data": redact_event_data(e.type, msgspec.json.decode(e.data)),
        "hash": e.hash.hex(),
    }


async def create(request: web.Request) -> web.Response:
    ctx = ApiContext.of(request)
    tenant = await tenant_of(request)
    body, kind = await _decode_create(request)
    portal = portal_of(request)
    if portal is not None:  # a portal registers for its own consumer only
        if body.consumer_id not in (None, portal.consumer_id):
            raise PortalScope("a portal session registers endpoints for its own consumer only")
        body = msgspec.structs.replace(body, consumer_id=portal.consumer_id)
    state, secret = await ctx.subscriptions.register(
        tenant, body, actor=actor(request, tenant), kind=kind
    )
    # a relay subscription is challenged when its relay attaches (``GET /v1/relay/{id}``)
    relay = state.config.destination is not None and state.config.destination.is_relay
    if ctx.on_registered is not None and not relay:
        await ctx.on_registered(state)
        state = await ctx.subscriptions.get(tenant, state.subscription_id)
    view = subscription_view(state)
    if secret is not None:
        view["secret"] = (
            encode_whsec(secret)
            if state.config.signature_profile == STANDARD_WEBHOOKS_V1
            else base64.b64encode(secret).decode()
        )
    headers = {**_etag(state), "Location": f"/v1/subscriptions/{state.subscription_id}"}
    return json_response(view, status=201, headers=headers)


async def list_(request: web.Request) -> web.Response:
    tenant = await tenant_of(request)
    limit, cursor = page_params(request)
    after = None
    if cursor is not None:
        created, last = decode_cursor(cursor, 2)
        after = (cursor_time(created), _cursor_id(last))
    portal = portal_of(request)
    consumer = request.query.get("consumerId")
    if portal is not None:
        consumer = portal.consumer_id  # a portal lists its own consumer's only
    elif consumer is not None:
        check_consumer_id(consumer, "consumerId")
    items, nxt = await read_side(
        request, tenant, lambda side: side.subscriptions.page(tenant, limit, after, consumer)
    )
    return json_response(
        {
            "items": [subscription_view(s) for s in items],
            "nextCursor": encode_cursor(nxt[0].isoformat(), nxt[1]) if nxt else None,
        }
    )


def _cursor_id(value: Any) -> str:
    if not isinstance(value, str) or not SUBSCRIPTION_ID.match(value):
        raise ValidationError("cursor is not a nextCursor we gave", code="invalid_cursor")
    return value


async def get(request: web.Request) -> web.Response:
    tenant = await tenant_of(request)
    sid = request.match_info["id"]
    state = await read_side(request, tenant, lambda side: side.subscriptions.get(tenant, sid))
    return json_response(subscription_view(state), headers=_etag(state))


async def patch(request: web.Request) -> web.Response:
    ctx = ApiContext.of(request)
    tenant = await tenant_of(request)
    sid = request.match_info["id"]
    await ctx.subscriptions.get(tenant, sid)
    expected = _if_match(request)
    body = await _decode(request, SubscriptionPatch)
    before = await ctx.subscriptions.get(tenant, sid)
    state = await ctx.subscriptions.update(
        tenant, sid, expected, body, actor=actor(request, tenant)
    )
    proof_changed = state.config.receipt_key != before.config.receipt_key  # PROOF_FIELDS
    if (state.generation != before.generation or proof_changed) and ctx.on_registered is not None:
        await ctx.on_registered(state)
        state = await ctx.subscriptions.get(tenant, sid)
    return json_response(subscription_view(state), headers=_etag(state))


def _transition(command: str):  # type: ignore[no-untyped-def]
    async def handler(request: web.Request) -> web.Response:
        ctx = ApiContext.of(request)
        tenant = await tenant_of(request)
        sid = request.match_info["id"]
        await ctx.subscriptions.get(tenant, sid)
        reason = None
        if request.can_read_body and request.content_length:
            reason = (await decode_body(request, SubscriptionTransition)).reason
        expected = _if_match(request) if "If-Match" in request.headers else None
        state = await ctx.subscriptions.transition(
            tenant,
            sid,
            command,
            actor=actor(request, tenant),
            expected_generation=expected,
            reason=reason,
        )
        if command == "resume" and ctx.on_registered is not None:
            await ctx.on_registered(state)
            state = await ctx.subscriptions.get(tenant, sid)
        return json_response(subscription_view(state), headers=_etag(state))

    return handler


async def challenge(request: web.Request) -> web.Response:
    ctx = ApiContext.of(request)
    tenant = await tenant_of(request)
    sid = request.match_info["id"]
    state = await ctx.subscriptions.get(tenant, sid)
    if ctx.on_challenge is None:
        raise ValidationError("challenges are not configured", code="challenge_unavailable")
    result = await ctx.on_challenge(state, actor(request, tenant))
    state = await ctx.subscriptions.get(tenant, sid)
    view = subscription_view(state)
    view["challenge"] = result
    return json_response(view, headers=_etag(state))


async def history(request: web.Request) -> web.Response:
    tenant = await tenant_of(request)
    limit, cursor = page_params(request)
    after = 0
    if cursor is not None:
        [after] = decode_cursor(cursor, 1)
        if not isinstance(after, int) or isinstance(after, bool) or not 0 <= after < 2**62:
            raise ValidationError("cursor is not a nextCursor we gave", code="invalid_cursor")
    sid = request.match_info["id"]
    events = await read_side(
        request,
        tenant,
        lambda side: side.subscriptions.history(tenant, sid, after=after, limit=limit),
    )
    nxt = encode_cursor(events[-1].stream_version) if len(events) == limit else None
    return json_response({"items": [event_view(e) for e in events], "nextCursor": nxt})


def routes() -> list[web.RouteDef]:
    return [
        web.post("/v1/subscriptions", create),
        web.get("/v1/subscriptions", list_, allow_head=False),
        web.get("/v1/subscriptions/{id}", get, allow_head=False),
        web.patch("/v1/subscriptions/{id}", patch),
        web.post("/v1/subscriptions/{id}/revoke", _transition("revoke")),
        web.post("/v1/subscriptions/{id}/suspend", _transition("suspend")),
        web.post("/v1/subscriptions/{id}/resume", _transition("resume")),
        web.post("/v1/subscriptions/{id}/challenge", challenge),
        web.get("/v1/subscriptions/{id}/history", history, allow_head=False),
    ]
