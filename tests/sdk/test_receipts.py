"""applicationReceipt.v1: build, sign, verify with the receipt profile, send."""

from __future__ import annotations

import json

import pytest
from aiohttp import web

from hookproof_subscriber import (
    RECEIPT_V1,
    Reason,
    StaticKeyResolver,
    build_receipt,
    content_digest,
    jwk_to_verification_key,
    parse_receipt,
    public_jwk,
    send_receipt,
    sign_receipt,
    verify_request,
)
from hookproof_subscriber.keys import SigningKey
from hookproof_subscriber.receipts import ReceiptError

RECEIPTS_URL = "https://engine.example.com/v1/receipts"
KEY = SigningKey.generate_ed25519("rk-1")
RESOLVER = StaticKeyResolver([jwk_to_verification_key(public_jwk(KEY))])
NOW = 1_736_935_200


def _receipt(**kw):  # type: ignore[no-untyped-def]
    args = dict(
        subscription_id="sub_1",
        event_id="evt_1",
        delivery_id="dlv_1",
        payload_digest=content_digest(b"{}"),
        operation_id="op-1",
        applied_at="2025-01-15T10:00:00.000Z",
    )
    args.update(kw)
    return build_receipt(**args)


def test_receipt_verifies_with_the_receipt_profile() -> None:
    headers, body = sign_receipt(_receipt(), url=RECEIPTS_URL, key=KEY, created=NOW)
    assert headers["Signature-Input"].startswith("receipt=(")
    assert 'tag="hookproof.receipt.v1"' in headers["Signature-Input"]
    res = verify_request(
        "POST", RECEIPTS_URL, headers, body, keys=RESOLVER, now=NOW, profile=RECEIPT_V1
    )
    assert res.reason is Reason.OK and res.key_id == "rk-1"
    doc = json.loads(body)
    assert list(doc) == [
        "type",
        "subscriptionId",
        "eventId",
        "deliveryId",
        "payloadDigest",
        "operationId",
        "result",
        "appliedAt",
        "receiptKeyGeneration",
    ]
    assert parse_receipt(body) == _receipt()


def test_receipt_signature_is_not_a_delivery_signature() -> None:
    headers, body = sign_receipt(_receipt(), url=RECEIPTS_URL, key=KEY, created=NOW)
    res = verify_request("POST", RECEIPTS_URL, headers, body, keys=RESOLVER, now=NOW)
    assert not res.ok  # label "hookproof" absent: a receipt never passes as a delivery


@pytest.mark.parametrize("field", ["eventId", "payloadDigest", "result", "subscriptionId"])
def test_altered_receipt_fails(field: str) -> None:
    headers, body = sign_receipt(_receipt(), url=RECEIPTS_URL, key=KEY, created=NOW)
    doc = json.loads(body)
    doc[field] = {
        "eventId": "evt_2",
        "payloadDigest": content_digest(b"[]"),
        "result": "rejected",
        "subscriptionId": "sub_2",
    }[field]
    forged = json.dumps(doc, separators=(",", ":")).encode()
    res = verify_request(
        "POST", RECEIPTS_URL, headers, forged, keys=RESOLVER, now=NOW, profile=RECEIPT_V1
    )
    assert res.reason is Reason.DIGEST_MISMATCH


def test_receipt_under_another_key_fails() -> None:
    other = SigningKey.generate_ed25519("rk-1")  # same id, different key
    headers, body = sign_receipt(_receipt(), url=RECEIPTS_URL, key=other, created=NOW)
    res = verify_request(
        "POST", RECEIPTS_URL, headers, body, keys=RESOLVER, now=NOW, profile=RECEIPT_V1
    )
    assert res.reason is Reason.BAD_SIGNATURE


@pytest.mark.parametrize(
    "bad",
    [
        {"result": "done"},
        {"receiptKeyGeneration": 0},
        {"appliedAt": "yesterday"},
        {"payloadDigest": "md5=:AAAA:"},
        {"eventId": ""},
    ],
)
def test_invalid_receipts_are_refused(bad: dict[str, object]) -> None:
    doc = _receipt().to_dict() | bad
    with pytest.raises(ReceiptError):
        parse_receipt(json.dumps(doc).encode())


def test_hmac_keys_cannot_sign_receipts() -> None:
    with pytest.raises(ValueError):
        sign_receipt(_receipt(), url=RECEIPTS_URL, key=SigningKey.hmac("h", b"k" * 32))


async def test_send_receipt_over_loopback() -> None:
    seen: list[Reason] = []

    async def receive(request: web.Request) -> web.Response:
        body = await request.read()
        res = verify_request(
            "POST",
            str(request.url),
            list(request.headers.items()),
            body,
            keys=RESOLVER,
            profile=RECEIPT_V1,
        )
        seen.append(res.reason)
        return web.json_response({"reason": str(res.reason)}, status=202 if res.ok else 401)

    app = web.Application()
    app.router.add_post("/v1/receipts", receive)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        status, body = await send_receipt(
            _receipt(), url=f"http://127.0.0.1:{port}/v1/receipts", key=KEY
        )
    finally:
        await runner.cleanup()
    assert status == 202 and seen == [Reason.OK], body
