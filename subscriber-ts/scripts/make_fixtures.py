"""Regenerate the TypeScript SDK's test fixtures from the Python engine's own code paths.

Run from the repository root: ``.venv/bin/python subscriber-ts/scripts/make_fixtures.py``.
Writes ``subscriber-ts/test/fixtures/*.json``:

- ``reasons.json``: the Python SDK's reason codes, in order (the TS tests compare);
- ``deliveries.json``: deliveries signed by ``engine.signing.sign_headers`` over the canonical
  body of ``engine.delivery.ingest.canonical_body`` (sig.v1 ed25519 and hmac-sha256,
  standard-webhooks.v1 v1 and v1a, a rollout's dual-signed request), with the JWKS the engine
  publishes (``engine.keys.jwks.build_jwks``) and the shared secrets;
- ``mutations.json``: single mutations of those deliveries and the reason code the Python
  SDK's verifier (``averify_any``) gives each: the TS verifier must give the same;
- ``challenges.json``: challenges built by ``engine.challenge.protocol.build_challenge`` and
  signed as the challenge service signs them, with the Python SDK's answer (which
  ``check_response``, the engine's own judge, accepts);
- ``receipts.json``: receipts signed by the Python SDK's ``sign_receipt`` with a fixed
  ``created`` (Ed25519 is deterministic: the TS signature must be byte-identical);
- ``standard_webhooks.json``: vectors of the ``standardwebhooks`` reference library.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import random
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from hookproof.engine.challenge.protocol import build_challenge, check_response
from hookproof.engine.ingest.ingest import canonical_body
from hookproof.engine.keys.jwks import build_jwks
from hookproof.engine.keys.signing import Signer, sign_headers
from hookproof.events.key_events import ED25519, PURPOSE_ENGINE, KeyState
from hookproof.projections.key_ring import KeyView
from hookproof.schemas.api import EventIn
from hookproof_subscriber import (
    RECEIPT_V1,
    ChallengeResponder,
    Reason,
    SigningKey,
    StaticKeyResolver,
    VerificationKey,
    averify_any,
    build_receipt,
    encode_whsec,
    endpoint_digest,
    public_jwk,
    sign_receipt,
    sign_request,
    verify_request,
)
from hookproof_subscriber.jwks import parse_jwks
from hookproof_subscriber.keys import b64url_encode

OUT = Path(__file__).resolve().parent.parent / "test" / "fixtures"
NOW = 1_764_590_400  # 2025-12-01T12:00:00Z
ENDPOINT = "https://hooks.example.com/hookproof/orders?tenant=acme"
RECEIPTS_URL = "https://hookproof.example.net/v1/receipts"
LIFETIME = 300


def _seeded_key(kid: str) -> SigningKey:
    seed = hashlib.sha256(f"hookproof-subscriber-ts fixture {kid}".encode()).digest()
    return SigningKey(kid, "ed25519", Ed25519PrivateKey.from_private_bytes(seed))


def _private_jwk(key: SigningKey) -> dict[str, Any]:
    from cryptography.hazmat.primitives import serialization

    assert key.private_key is not None
    d = key.private_key.private_bytes(
        serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()
    )
    return {**public_jwk(key), "d": b64url_encode(d)}


ENGINE_K1 = _seeded_key("ek_2025_1")
ENGINE_K2 = _seeded_key("ek_2025_2")  # the next key of a rollout
OLD_KEY = _seeded_key("ek_2024_9")  # VERIFY_ONLY
RECEIPT_KEY = _seeded_key("rk_orders_1")
SECRET = hashlib.sha256(b"hookproof-subscriber-ts fixture secret").digest()
SECRET_B64 = base64.b64encode(SECRET).decode()
HMAC_KEY = SigningKey.hmac("hk_sub_01_1", SECRET)


def _view(key: SigningKey, generation: int, state: KeyState, **times: datetime) -> KeyView:
    return KeyView(
        key_id=key.key_id,
        algorithm=ED25519,
        purpose=PURPOSE_ENGINE,
        subscription_id=None,
        generation=generation,
        state=state,
        public_key=public_jwk(key)["x"],
        max_message_lifetime_s=3600,
        created_at=datetime.fromtimestamp(NOW - 86_400 * 30, UTC),
        **times,
    )


def _at(ts: int) -> datetime:
    return datetime.fromtimestamp(ts, UTC)


JWKS = build_jwks(
    [
        _view(
            OLD_KEY,
            1,
            KeyState.VERIFY_ONLY,
            activated_at=_at(NOW - 86_400 * 60),
            verify_only_until=_at(NOW + 86_400),
        ),
        _view(ENGINE_K1, 2, KeyState.ACTIVE, activated_at=_at(NOW - 86_400 * 10)),
        _view(ENGINE_K2, 3, KeyState.NOT_BEFORE),
    ]
)


def _variant(kid: str, **members: Any) -> dict[str, Any]:
    """The published JWKS with one key's members changed (None removes the key)."""
    keys = []
    for k in JWKS["keys"]:
        if k["kid"] == kid:
            if members.get("remove"):
                continue
            k = {**k, **{m: v for m, v in members.items() if m != "remove"}}
            k = {m: v for m, v in k.items() if v is not None}
        keys.append(k)
    return {"keys": keys}


JWKS_VARIANTS: dict[str, dict[str, Any]] = {
    "published": JWKS,
    "k1_revoked": _variant(ENGINE_K1.key_id, state="REVOKED"),
    "k1_not_before": _variant(ENGINE_K1.key_id, state="NOT_BEFORE", nbf=None),
    "k1_nbf_future": _variant(ENGINE_K1.key_id, nbf=NOW + 3600),
    "k1_verify_only": _variant(ENGINE_K1.key_id, state="VERIFY_ONLY", exp=NOW + 3600),
    "k1_verify_only_ended": _variant(ENGINE_K1.key_id, state="VERIFY_ONLY", exp=NOW - 3600),
    "k1_absent": _variant(ENGINE_K1.key_id, remove=True),
    "k2_active": _variant(ENGINE_K2.key_id, state="ACTIVE", nbf=NOW - 60),
}


def _event(event_id: str, version: int = 1) -> EventIn:
    return msgspec.convert(
        {
            "eventId": event_id,
            "topic": "order.created",
            "version": "1.2",
            "aggregateId": "order-77",
            "aggregateVersion": version,
            "occurredAt": "2025-12-01T11:59:58Z",
            "payload": {
                "amount": 4200,
                "currency": "EUR",
                "note": "caf\u00e9 \u2615",
                "lines": [1, 2],
            },
        },
        EventIn,
    )


def _base_headers(
    event_id: str, delivery_id: str, subscription: str, generation: int
) -> dict[str, str]:
    return {
        "Content-Type": "application/json",
        "Webhook-Id": event_id,
        "Webhook-Delivery-Id": delivery_id,
        "Webhook-Attempt": "2",
        "Webhook-Subscription": subscription,
        "Webhook-Generation": str(generation),
        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    }


def _delivery(name: str, signers: list[Signer], keys: str, event_id: str) -> dict[str, Any]:
    body = canonical_body(_event(event_id))
    headers = _base_headers(event_id, f"dlv_{event_id}", "sub_01", 3)
    headers.update(
        sign_headers("POST", ENDPOINT, headers, body, signers, created=NOW, lifetime=LIFETIME)
    )
    return {
        "name": name,
        "keys": keys,  # "jwks:<variant>" or "secret:<form>"
        "method": "POST",
        "url": ENDPOINT,
        "headers": list(headers.items()),
        "body_b64": base64.b64encode(body).decode(),
        "now": NOW,
        "expect": {
            "eventId": event_id,
            "deliveryId": f"dlv_{event_id}",
            "subscriptionId": "sub_01",
            "generation": 3,
            "attempt": 2,
            "topic": "order.created",
            "aggregateId": "order-77",
            "aggregateVersion": 1,
            "payloadDigest": "sha-256=:"
            + base64.b64encode(hashlib.sha256(body).digest()).decode()
            + ":",
        },
    }


class AnySecret:
    """The shared secret for every key id (the registration response names none), as the TS
    ``secret`` option does; ``key_ids`` lets a Standard Webhooks verification find it."""

    def __init__(self, secret: bytes) -> None:
        self.secret = secret
        self.key_ids = ["secret"]

    def resolve(self, key_id: str) -> VerificationKey | None:
        return VerificationKey.hmac(key_id, self.secret)


def _resolver(keys: str) -> Any:
    kind, _, which = keys.partition(":")
    if kind == "jwks":
        return StaticKeyResolver(parse_jwks(JWKS_VARIANTS[which]).values())
    return AnySecret(SECRET)


def _python_reason(case: dict[str, Any]) -> str:
    res = asyncio.run(
        averify_any(
            case["method"],
            case["url"],
            case["headers"],
            base64.b64decode(case["body_b64"]),
            keys=_resolver(case["keys"]),
            now=case["now"],
            nonce_cache=None,
            expected=case.get("expected"),
        )
    )
    return str(res.reason)


def deliveries() -> list[dict[str, Any]]:
    std_hmac = SigningKey.hmac("hk_std", SECRET)
    return [
        _delivery(
            "sig.v1 ed25519", [Signer("hookproof.sig.v1", ENGINE_K1)], "jwks:published", "evt_ed_1"
        ),
        _delivery(
            "sig.v1 ed25519, VERIFY_ONLY key",
            [Signer("hookproof.sig.v1", OLD_KEY)],
            "jwks:published",
            "evt_old_1",
        ),
        _delivery(
            "sig.v1 hmac-sha256",
            [Signer("hookproof.sig.v1", HMAC_KEY)],
            "secret:base64",
            "evt_hm_1",
        ),
        _delivery(
            "standard-webhooks.v1 v1 (hmac)",
            [Signer("standard-webhooks.v1", std_hmac)],
            "secret:whsec",
            "evt_sw_1",
        ),
        _delivery(
            "standard-webhooks.v1 v1a (ed25519)",
            [Signer("standard-webhooks.v1", ENGINE_K1)],
            "jwks:published",
            "evt_swa_1",
        ),
        _delivery(
            "rollout: sig.v1 current and next key, and standard-webhooks.v1",
            [
                Signer("hookproof.sig.v1", ENGINE_K1),
                Signer("hookproof.sig.v1", ENGINE_K2),
                Signer("standard-webhooks.v1", ENGINE_K1),
            ],
            "jwks:published",
            "evt_dual_1",
        ),
    ]


def _apply(data: bytes, op: str, pos: int, byte: int) -> bytes:
    pos %= max(len(data), 1)
    if op == "replace":
        if not data:
            return bytes([byte])
        if data[pos] == byte:
            byte = (byte + 1) % 256
        return data[:pos] + bytes([byte]) + data[pos + 1 :]
    if op == "insert":
        return data[:pos] + bytes([byte]) + data[pos:]
    if op == "delete":
        return data[:pos] + data[pos + 1 :]
    return data[:pos]


def _set(headers: list[list[str]], name: str, value: str | None) -> list[list[str]]:
    out = [list(h) for h in headers if h[0].lower() != name.lower()]
    if value is not None:
        out.append([name, value])
    return out


def _get(headers: list[Any], name: str) -> str:
    return next(v for k, v in headers if k.lower() == name.lower())


def _resigned(base: dict[str, Any], **kw: Any) -> list[list[str]]:
    """The delivery re-signed by the Python SDK with other profile parameters."""
    headers = {
        k: v
        for k, v in base["headers"]
        if k.lower() not in ("signature-input", "signature", "content-digest")
    }
    key = kw.pop("key", ENGINE_K1)
    body = base64.b64decode(base["body_b64"])
    kw.setdefault("created", NOW)
    kw.setdefault("expires", NOW + LIFETIME)
    kw.setdefault("nonce", "fixture-nonce-1")
    headers.update(sign_request("POST", base["url"], headers, body, key=key, **kw))
    return [list(h) for h in headers.items()]


def mutations(ds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by_name = {d["name"]: d for d in ds}
    ed = by_name["sig.v1 ed25519"]
    hm = by_name["sig.v1 hmac-sha256"]
    cases: list[dict[str, Any]] = []

    def add(name: str, base: dict[str, Any], **over: Any) -> None:
        case = {k: base[k] for k in ("method", "url", "headers", "body_b64", "now", "keys")}
        case["headers"] = [list(h) for h in base["headers"]]
        case.update(over)
        case["name"] = f"{base['name']}: {name}"
        case["reason"] = _python_reason(case)
        cases.append(case)

    for base in (
        ed,
        hm,
        by_name["standard-webhooks.v1 v1 (hmac)"],
        by_name["standard-webhooks.v1 v1a (ed25519)"],
        by_name["rollout: sig.v1 current and next key, and standard-webhooks.v1"],
    ):
        add("unchanged", base)
        for h in (
            "Signature-Input",
            "Signature",
            "Content-Digest",
            "Content-Type",
            "Webhook-Id",
            "Webhook-Delivery-Id",
            "Webhook-Subscription",
            "Webhook-Generation",
            "Webhook-Attempt",
            "webhook-signature",
            "webhook-timestamp",
        ):
            if any(k.lower() == h.lower() for k, _ in base["headers"]):
                add(f"header {h} removed", base, headers=_set(base["headers"], h, None))
        for h in (
            "Content-Type",
            "Webhook-Id",
            "Webhook-Delivery-Id",
            "Webhook-Subscription",
            "Webhook-Generation",
        ):
            add(
                f"header {h} altered",
                base,
                headers=_set(base["headers"], h, _get(base["headers"], h) + "x"),
            )
        add("generation 3 -> 4", base, headers=_set(base["headers"], "Webhook-Generation", "4"))
        body = base64.b64decode(base["body_b64"])
        for pos in (0, 10, len(body) // 2, len(body) - 1):
            flipped = bytearray(body)
            flipped[pos] ^= 0x01
            add(
                f"body byte {pos} flipped", base, body_b64=base64.b64encode(bytes(flipped)).decode()
            )
        add(
            "body re-encoded with spaces",
            base,
            body_b64=base64.b64encode(json.dumps(json.loads(body)).encode()).decode(),
        )
        add("url path altered", base, url=base["url"].replace("/orders", "/order"))
        add("url query altered", base, url=base["url"].replace("acme", "acmf"))
        add("url relative", base, url="/hookproof/orders?tenant=acme")
        add("method PUT", base, method="PUT")
        add("method lower case", base, method="post")
        add("now: created 61 s in the future", base, now=NOW - 61 - 1)
        add("now: created 59 s in the future (skew)", base, now=NOW - 59)
        add("now: expired 61 s ago", base, now=NOW + LIFETIME + 61 + 1)
        add("now: 301 s after the timestamp", base, now=NOW + 301)
        add("now: 301 s before the timestamp", base, now=NOW - 301)
        if base["keys"].startswith("jwks"):
            for variant in JWKS_VARIANTS:
                if variant != "published":
                    add(f"jwks {variant}", base, keys=f"jwks:{variant}")
        add(
            "a header value with a control character",
            base,
            headers=_set(base["headers"], "Webhook-Attempt", "2\x01"),
        )
        add("pinned subscription differs", base, expected={"webhook-subscription": "sub_02"})
        add("pinned generation differs", base, expected={"webhook-generation": "4"})
        add(
            "pinned subscription and generation match",
            base,
            expected={"webhook-subscription": "sub_01", "webhook-generation": "3"},
        )

    # re-signed sig.v1 variants (tag, algorithm, coverage, parameters, lifetime)
    comps = [
        "@method",
        "@target-uri",
        "content-digest",
        "content-type",
        "webhook-id",
        "webhook-delivery-id",
        "webhook-subscription",
        "webhook-generation",
    ]
    add("re-signed: reference (unchanged parameters)", ed, headers=_resigned(ed))
    add("re-signed: wrong tag", ed, headers=_resigned(ed, tag="hookproof.sig.v2"))
    add("re-signed: receipt tag", ed, headers=_resigned(ed, tag="hookproof.receipt.v1"))
    add(
        "re-signed: webhook-generation not covered",
        ed,
        headers=_resigned(ed, components=comps[:-1]),
    )
    add(
        "re-signed: content-digest not covered",
        ed,
        headers=_resigned(ed, components=[c for c in comps if c != "content-digest"]),
    )
    add(
        "re-signed: an extra component",
        ed,
        headers=_resigned(ed, components=[*comps, "webhook-attempt"]),
    )
    add(
        "re-signed: components reordered",
        ed,
        headers=_resigned(ed, components=list(reversed(comps))),
    )
    add("re-signed: lifetime 3601 s", ed, headers=_resigned(ed, expires=NOW + 3601))
    add("re-signed: expires before created", ed, headers=_resigned(ed, expires=NOW - 1))
    add("re-signed: unknown key id", ed, headers=_resigned(ed, key=_seeded_key("ek_unknown")))
    add("re-signed: next key (NOT_BEFORE)", ed, headers=_resigned(ed, key=ENGINE_K2))
    add(
        "re-signed: next key, jwks k2_active",
        ed,
        headers=_resigned(ed, key=ENGINE_K2),
        keys="jwks:k2_active",
    )
    add("re-signed: hmac key under the JWKS", ed, headers=_resigned(ed, key=HMAC_KEY))
    add("re-signed: ed25519 key with the secret", hm, headers=_resigned(hm, key=ENGINE_K1))
    add("re-signed: nonce of 257 characters", ed, headers=_resigned(ed, nonce="n" * 257))
    add("re-signed: other label", ed, headers=_resigned(ed, label="other"))

    # hand-made Signature-Input forms (canonical form, parameters)
    si = _get(ed["headers"], "Signature-Input")
    sig = _get(ed["headers"], "Signature")
    for label, value in [
        ("space after ;", si.replace(";created", "; created")),
        ("two spaces between components", si.replace('" "', '"  "', 1)),
        ("duplicate label", f"{si}, {si}"),
        ("another signature first", f'other=("@method");created=1;keyid="x", {si}'),
        ("created as a string", si.replace(f"created={NOW}", f'created="{NOW}"')),
        ("created as a decimal", si.replace(f"created={NOW}", f"created={NOW}.0")),
        ("alg as a token", si.replace('alg="ed25519"', "alg=ed25519")),
        ("an unknown parameter", si + ';x-extra="1"'),
        ("nonce removed", si.replace(';nonce="' + si.split(';nonce="')[1].split('"')[0] + '"', "")),
        ("not a dictionary", "hookproof=(((("),
        ("component with a parameter", si.replace('"@method"', '"@method";req')),
        ("unsupported derived component", si.replace('"@method"', '"@status"')),
    ]:
        add(f"Signature-Input: {label}", ed, headers=_set(ed["headers"], "Signature-Input", value))
    for label, value in [
        ("base64 without padding", sig.replace("==:", ":")),
        ("not a byte sequence", sig.replace("=:", '="', 1).rstrip(":") + '"'),
        ("with a parameter", sig + ";x=1"),
        ("truncated", sig[:-6] + ":"),
    ]:
        add(f"Signature: {label}", ed, headers=_set(ed["headers"], "Signature", value))
    cd = _get(ed["headers"], "Content-Digest")
    body = base64.b64decode(ed["body_b64"])
    sha512 = "sha-512=:" + base64.b64encode(hashlib.sha512(body).digest()).decode() + ":"
    for label, value in [
        ("sha-512 added (signed value differs)", f"{cd}, {sha512}"),
        ("not a dictionary", "sha-256=(("),
    ]:
        add(f"Content-Digest: {label}", ed, headers=_set(ed["headers"], "Content-Digest", value))

    # seeded random single-byte mutations (as tests/sig/test_mutations.py does with hypothesis)
    rng = random.Random(9421)
    targets = [
        "body",
        "url",
        "signature-input",
        "signature",
        "content-digest",
        "content-type",
        "webhook-id",
        "webhook-delivery-id",
        "webhook-subscription",
        "webhook-generation",
    ]
    for i in range(240):
        base = ed if i % 2 == 0 else hm
        target = rng.choice(targets)
        op = rng.choice(["replace", "insert", "delete", "truncate"])
        pos, byte = rng.randrange(10_000), rng.randrange(32, 127)
        if target == "body":
            add(
                f"random {i}: body {op}",
                base,
                body_b64=base64.b64encode(
                    _apply(base64.b64decode(base["body_b64"]), op, pos, byte)
                ).decode(),
            )
        elif target == "url":
            add(
                f"random {i}: url {op}",
                base,
                url=_apply(base["url"].encode(), op, pos, byte).decode("latin-1"),
            )
        else:
            value = _get(base["headers"], target)
            add(
                f"random {i}: {target} {op}",
                base,
                headers=_set(
                    base["headers"], target, _apply(value.encode(), op, pos, byte).decode("latin-1")
                ),
            )
    return cases


def _challenge_request(
    name: str,
    key: SigningKey,
    profile: str,
    keys: str,
    *,
    receipt: bool = False,
    generation: int = 4,
) -> dict[str, Any]:
    ch = build_challenge(
        subscription_id="sub_01",
        generation=generation,
        endpoint_digest=endpoint_digest(ENDPOINT),
        key_id=key.key_id,
        now=_at(NOW),
        ttl_s=120,
    )
    headers = {
        "Content-Type": "application/json",
        "Webhook-Id": ch.challenge_id,
        "Webhook-Delivery-Id": ch.challenge_id,
        "Webhook-Attempt": "1",
        "Webhook-Subscription": "sub_01",
        "Webhook-Generation": str(generation),
        "traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    }
    headers.update(
        sign_headers(
            "POST", ENDPOINT, headers, ch.body, [Signer(profile, key)], created=NOW, lifetime=60
        )
    )
    responder = ChallengeResponder(
        keys=_resolver(keys),
        endpoint=ENDPOINT,
        receipt_key=RECEIPT_KEY if receipt else None,
        clock=lambda: float(NOW),
    )
    answer = asyncio.run(responder.answer("POST", ENDPOINT, list(headers.items()), ch.body))
    assert answer.status == 200, (name, answer)
    verdict = check_response(
        ch,
        status=answer.status,
        content_type=answer.headers["Content-Type"],
        body=answer.body,
        now=_at(NOW),
        hmac_secret=SECRET if key.alg == "hmac-sha256" else None,
        receipt_public_jwk=public_jwk(RECEIPT_KEY)
        if receipt and key.alg != "hmac-sha256"
        else None,
    )
    assert verdict is None, (name, verdict)
    return {
        "name": name,
        "keys": keys,
        "receipt": receipt,
        "method": "POST",
        "url": ENDPOINT,
        "headers": list(headers.items()),
        "body_b64": base64.b64encode(ch.body).decode(),
        "now": NOW,
        "answer": {"status": answer.status, "body_b64": base64.b64encode(answer.body).decode()},
    }


def challenges() -> list[dict[str, Any]]:
    return [
        _challenge_request(
            "ed25519, no receipt key (no proof)", ENGINE_K1, "hookproof.sig.v1", "jwks:published"
        ),
        _challenge_request(
            "ed25519, receipt key proof",
            ENGINE_K1,
            "hookproof.sig.v1",
            "jwks:published",
            receipt=True,
        ),
        _challenge_request(
            "next key (NOT_BEFORE) proves itself",
            ENGINE_K2,
            "hookproof.sig.v1",
            "jwks:published",
            receipt=True,
        ),
        _challenge_request("hmac-sha256 proof", HMAC_KEY, "hookproof.sig.v1", "secret:base64"),
        _challenge_request(
            "hmac-sha256 proof beats a receipt key",
            HMAC_KEY,
            "hookproof.sig.v1",
            "secret:base64",
            receipt=True,
        ),
        _challenge_request(
            "standard-webhooks.v1 hmac proof",
            SigningKey.hmac("hk_std", SECRET),
            "standard-webhooks.v1",
            "secret:whsec",
        ),
    ]


def receipts() -> list[dict[str, Any]]:
    out = []
    for i, (result, gen) in enumerate([("applied", 1), ("rejected", 2), ("duplicate", 1)]):
        r = build_receipt(
            subscription_id="sub_01",
            event_id=f"evt_ed_{i}",
            delivery_id=f"dlv_evt_ed_{i}",
            payload_digest="sha-256=:"
            + base64.b64encode(hashlib.sha256(b"x%d" % i).digest()).decode()
            + ":",
            result=result,
            operation_id=f"op-{i}-0b6a",
            applied_at="2025-12-01T12:00:01.250Z",
            receipt_key_generation=gen,
        )
        headers, body = sign_receipt(r, url=RECEIPTS_URL, key=RECEIPT_KEY, created=NOW + i)
        res = verify_request(
            "POST",
            RECEIPTS_URL,
            headers,
            body,
            keys=StaticKeyResolver([RECEIPT_KEY.verification_key()]),
            now=NOW + i,
            profile=RECEIPT_V1,
        )
        assert res.ok, res
        out.append(
            {
                "receipt": r.to_dict(),
                "created": NOW + i,
                "url": RECEIPTS_URL,
                "headers": headers,
                "body_b64": base64.b64encode(body).decode(),
            }
        )
    return out


def standard_webhooks() -> dict[str, Any]:
    """Vectors made and checked with the ``standardwebhooks`` reference library."""
    import time

    spec = {  # the reference libraries' own test vector
        "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
        "msgId": "msg_p5jXN8AQM9LWM0D4loKWxJek",
        "timestamp": 1614265330,
        "payload": '{"test": 2432232314}',
        "signature": "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=",
    }
    wh = Webhook(spec["secret"])
    assert wh.sign(spec["msgId"], _at(spec["timestamp"]), spec["payload"]) == spec["signature"]
    now = int(time.time())
    secret = encode_whsec(hashlib.sha256(b"std vectors").digest())
    lib = Webhook(secret)
    other = Webhook(encode_whsec(b"\x01" * 32))
    payload = '{"type":"order.created","eventId":"msg_2"}'
    good = lib.sign("msg_2", _at(now), payload)
    bad = other.sign("msg_2", _at(now), payload)
    cases = []
    for name, sig, ts, body in [
        ("valid", good, now, payload),
        ("several signatures, the good one last", f"{bad} v1a,AAAA {good}", now, payload),
        ("unknown versions ignored", f"v2,{good[3:]} {good}", now, payload),
        ("only a bad signature", bad, now, payload),
        ("body altered", good, now, payload + " "),
        ("timestamp 301 s old", lib.sign("msg_2", _at(now - 301), payload), now - 301, payload),
        ("timestamp 299 s old", lib.sign("msg_2", _at(now - 299), payload), now - 299, payload),
        ("timestamp 301 s ahead", lib.sign("msg_2", _at(now + 301), payload), now + 301, payload),
    ]:
        headers = {"webhook-id": "msg_2", "webhook-timestamp": str(ts), "webhook-signature": sig}
        try:
            lib.verify(body.encode(), headers)
            ok = True
        except WebhookVerificationError:
            ok = False
        cases.append({"name": name, "headers": headers, "body": body, "now": now, "ok": ok})
    return {"spec": spec, "secret": secret, "cases": cases}


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    ds = deliveries()
    for d in ds:
        reason = _python_reason(d)
        assert reason == "ok", (d["name"], reason)
    files = {
        "reasons.json": [str(r) for r in Reason],
        "deliveries.json": {
            "now": NOW,
            "endpoint": ENDPOINT,
            "jwks": JWKS_VARIANTS,
            "secrets": {"base64": SECRET_B64, "whsec": encode_whsec(SECRET)},
            "receiptPrivateJwk": _private_jwk(RECEIPT_KEY),
            "engineKeys": {
                "ek_2025_1": _private_jwk(ENGINE_K1),
                "ek_2025_2": _private_jwk(ENGINE_K2),
            },
            "deliveries": ds,
        },
        "mutations.json": mutations(ds),
        "challenges.json": challenges(),
        "receipts.json": {"receiptPrivateJwk": _private_jwk(RECEIPT_KEY), "receipts": receipts()},
        "standard_webhooks.json": standard_webhooks(),
    }
    for name, doc in files.items():
        (OUT / name).write_text(json.dumps(doc, indent=1, ensure_ascii=True) + "\n")
    counts = {}
    for c in files["mutations.json"]:
        counts[c["reason"]] = counts.get(c["reason"], 0) + 1
    print(json.dumps({"written": sorted(files), "mutation_reasons": counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
