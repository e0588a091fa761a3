"""Regenerate ``subscriber-ts/test/fixtures/broker.json`` from the engine's own code paths.

Run from the repository root: ``.venv/bin/python subscriber-ts/scripts/make_broker_fixtures.py``.
Broker messages built by ``engine.destinations.message.build_message`` for destinations
normalised by ``engine.destinations.spec.parse_destination`` (sig.v1 ed25519 and hmac-sha256,
standard-webhooks.v1 v1 and v1a, both profiles at once), single mutations of them with the
reason code the Python SDK (``averify_message_any``) gives each, and a broker challenge with
the Python SDK's answer body (the TS answer must be byte-identical: HMAC is deterministic).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import random
from datetime import UTC, datetime
from pathlib import Path

from hookproof.engine.destinations import build_challenge_message, build_message
from hookproof.engine.destinations.spec import parse_destination
from hookproof.engine.keys.signing import Signer
from hookproof_subscriber import (
    SharedSecretResolver,
    SigningKey,
    StaticKeyResolver,
    answer_broker_challenge,
    averify_message_any,
    destination_digest,
    public_jwk,
)

OUT = Path(__file__).resolve().parents[1] / "test" / "fixtures" / "broker.json"
NOW = 1_767_225_600
rng = random.Random(34)
SECRET = bytes(rng.randrange(256) for _ in range(32))
ED = SigningKey.generate_ed25519("ek_broker_1")
HM = SigningKey.hmac("sub_b.s1", SECRET)

AMQP, _ = parse_destination(
    {
        "type": "amqp",
        "url": "amqps://rabbit.example.com/%2F",
        "exchange": "orders",
        "routingKey": "order.created",
    }
)
NATS, _ = parse_destination(
    {
        "type": "nats",
        "url": "tls://nats.example.com",
        "subject": "orders.created",
        "stream": "ORDERS",
    }
)


def body(event_id: str) -> bytes:
    doc = {
        "aggregateId": "order-7",
        "aggregateVersion": 3,
        "eventId": event_id,
        "occurredAt": "2026-01-01T00:00:00Z",
        "payload": {"amount": 42, "note": "caf\u00e9"},
        "type": "order.created",
        "version": "1.2",
    }
    return json.dumps(doc, separators=(",", ":"), ensure_ascii=False).encode()


def message(dest, signers, n: int) -> dict:  # type: ignore[no-untyped-def]
    event_id, delivery_id = f"evt_b{n}", f"dlv_b{n}"
    msg = build_message(
        dest.uri,
        body(event_id),
        event_id=event_id,
        delivery_id=delivery_id,
        subscription_id="sub_b",
        generation=2,
        attempt=n,
        signers=signers,
        created=NOW - 5,
        lifetime=300,
        traceparent=f"00-{'%032x' % (n + 1)}-{'%016x' % (n + 7)}-01",
    )
    return {
        "destination": dest.uri,
        "headers": msg.headers,
        "body_b64": base64.b64encode(msg.body).decode(),
    }


async def reason(case: dict, keys) -> str:  # type: ignore[no-untyped-def]
    res = await averify_message_any(
        case["headers"], base64.b64decode(case["body_b64"]), case["destination"], keys=keys, now=NOW
    )
    return str(res.reason)


async def main() -> None:
    jwks = {"keys": [{**public_jwk(ED), "alg": "EdDSA", "use": "sig", "state": "ACTIVE"}]}
    ed_keys = StaticKeyResolver([ED.verification_key()])
    hm_keys = SharedSecretResolver({"sub_b.s1": SECRET})
    cases = [
        {
            "name": "sig.v1 ed25519 amqp",
            "keys": "jwks",
            **message(AMQP, [Signer("hookproof.sig.v1", ED)], 1),
        },
        {
            "name": "sig.v1 hmac nats",
            "keys": "secret",
            **message(NATS, [Signer("hookproof.sig.v1", HM)], 2),
        },
        {
            "name": "std v1 hmac",
            "keys": "secret",
            **message(NATS, [Signer("standard-webhooks.v1", HM)], 3),
        },
        {
            "name": "std v1a ed25519",
            "keys": "jwks",
            **message(AMQP, [Signer("standard-webhooks.v1", ED)], 4),
        },
        {
            "name": "both profiles",
            "keys": "jwks",
            **message(
                NATS, [Signer("hookproof.sig.v1", ED), Signer("standard-webhooks.v1", ED)], 5
            ),
        },
    ]
    for c in cases:
        assert await reason(c, ed_keys if c["keys"] == "jwks" else hm_keys) == "ok", c["name"]
    mutations = []
    base = cases[0]
    variants = {
        "other destination": {
            **base,
            "destination": AMQP.uri.replace("order.created", "order.deleted"),
        },
        "body changed": {
            **base,
            "body_b64": base64.b64encode(base64.b64decode(base["body_b64"]) + b" ").decode(),
        },
        "generation changed": {**base, "headers": {**base["headers"], "hookproof-generation": "3"}},
        "delivery id removed": {
            **base,
            "headers": {k: v for k, v in base["headers"].items() if k != "hookproof-delivery-id"},
        },
        "signature removed": {
            **base,
            "headers": {k: v for k, v in base["headers"].items() if k != "signature"},
        },
        "http signature input": {
            **base,
            "headers": {
                **base["headers"],
                "signature-input": base["headers"]["signature-input"].replace(
                    '"@destination"', '"@target-uri"'
                ),
            },
        },
    }
    for name, case in variants.items():
        mutations.append(
            {**case, "name": name, "keys": "jwks", "reason": await reason(case, ed_keys)}
        )

    # a broker challenge, signed with the subscription secret, and the Python SDK's answer
    challenge_id = "chl_broker_1"
    expires = datetime.fromtimestamp(NOW + 300, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    cbody = json.dumps(
        {
            "type": "hookproof.challenge.v1",
            "challengeId": challenge_id,
            "nonce": base64.urlsafe_b64encode(hashlib.sha256(b"n").digest()).rstrip(b"=").decode(),
            "subscriptionId": "sub_b",
            "generation": 2,
            "endpointDigest": destination_digest(NATS.uri),
            "expiresAt": expires,
            "keyId": HM.key_id,
        },
        separators=(",", ":"),
    ).encode()
    cmsg = build_challenge_message(
        NATS.uri,
        cbody,
        challenge_id=challenge_id,
        subscription_id="sub_b",
        generation=2,
        signers=[Signer("hookproof.sig.v1", HM)],
        created=NOW - 5,
        lifetime=300,
        traceparent="00-" + "1" * 32 + "-" + "2" * 16 + "-01",
    )
    answer = await answer_broker_challenge(cmsg.headers, cmsg.body, NATS.uri, keys=hm_keys, now=NOW)
    assert answer.ok, answer.reason
    doc = {
        "now": NOW,
        "jwks": jwks,
        "secret": base64.b64encode(SECRET).decode(),
        "amqpDestination": AMQP.uri,
        "natsDestination": NATS.uri,
        "messages": cases,
        "mutations": mutations,
        "challenge": {
            "destination": NATS.uri,
            "headers": cmsg.headers,
            "body_b64": base64.b64encode(cmsg.body).decode(),
            "answer_b64": base64.b64encode(answer.body).decode(),
        },
    }
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    print(f"wrote {OUT} ({len(cases)} messages, {len(mutations)} mutations)")


if __name__ == "__main__":
    asyncio.run(main())
