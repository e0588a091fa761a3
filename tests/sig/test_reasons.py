"""Every reason code, each from a test that builds that exact failure."""

from __future__ import annotations

import json

import pytest

from hookproof_subscriber import (
    RECEIPT_V1,
    KeyState,
    NonceCache,
    Reason,
    SigningKey,
    StaticKeyResolver,
    VerifyResult,
    content_digest,
    verify_request,
)

from .helpers import BODY, ED_KEY, HEADERS, HMAC_KEY, NOW, RESOLVER, URL, signed

KEYS = [ED_KEY, HMAC_KEY]
IDS = ["ed25519", "hmac-sha256"]


def check(
    headers: object,
    *,
    body: bytes = BODY,
    url: str = URL,
    method: str = "POST",
    keys: object = RESOLVER,
    now: int = NOW,
    **kw: object,
) -> VerifyResult:
    return verify_request(method, url, headers, body, keys=keys, now=now, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("key", KEYS, ids=IDS)
def test_ok(key: SigningKey) -> None:
    res = check(signed(key))
    assert res.ok and res.reason is Reason.OK and res.reason == "ok"
    assert res.key_id == key.key_id
    assert res.digest == content_digest(BODY)
    assert (res.created, res.expires, res.alg) == (NOW, NOW + 300, key.alg)
    assert set(res.log_fields()) == {"key_id", "digest", "reason"}


def test_ok_with_case_insensitive_and_multidict_headers() -> None:
    hdrs = signed()
    lower = {k.lower(): v for k, v in hdrs.items()}
    upper = [(k.upper(), v) for k, v in hdrs.items()]
    assert check(lower).ok and check(upper).ok


@pytest.mark.parametrize("key", KEYS, ids=IDS)
def test_unknown_key(key: SigningKey) -> None:
    assert check(signed(key), keys=StaticKeyResolver()).reason is Reason.UNKNOWN_KEY


@pytest.mark.parametrize("key", KEYS, ids=IDS)
def test_revoked_key(key: SigningKey) -> None:
    keys = StaticKeyResolver([key.verification_key(state=KeyState.REVOKED)])
    assert check(signed(key), keys=keys).reason is Reason.REVOKED_KEY


def test_key_not_yet_valid_by_state_and_by_time() -> None:
    keys = StaticKeyResolver([ED_KEY.verification_key(state=KeyState.NOT_BEFORE)])
    assert check(signed(), keys=keys).reason is Reason.KEY_NOT_YET_VALID
    keys = StaticKeyResolver([ED_KEY.verification_key(not_before=NOW + 3600)])
    assert check(signed(), keys=keys).reason is Reason.KEY_NOT_YET_VALID
    # a challenge signed with the next key (NOT_BEFORE) may be admitted explicitly
    keys = StaticKeyResolver([ED_KEY.verification_key(state=KeyState.NOT_BEFORE)])
    assert check(signed(), keys=keys, accept_not_before=True).ok


def test_verify_only_key_verifies_until_its_window_ends() -> None:
    keys = StaticKeyResolver(
        [ED_KEY.verification_key(state=KeyState.VERIFY_ONLY, not_after=NOW + 100)]
    )
    assert check(signed(), keys=keys).ok
    late = signed(created=NOW + 200, expires=NOW + 400)
    assert check(late, keys=keys, now=NOW + 200).reason is Reason.EXPIRED


def test_expired_signature() -> None:
    res = check(signed(created=NOW - 1000, expires=NOW - 700))
    assert res.reason is Reason.EXPIRED and not res.ok


def test_clock_skew_is_tolerated_then_not() -> None:
    hdrs = signed(created=NOW - 400, expires=NOW - 30)
    assert check(hdrs).ok
    assert check(hdrs, clock_skew=10).reason is Reason.EXPIRED


def test_not_yet_valid() -> None:
    assert check(signed(created=NOW + 600, expires=NOW + 900)).reason is Reason.NOT_YET_VALID


@pytest.mark.parametrize("key", KEYS, ids=IDS)
def test_proxy_re_encoding_json_is_digest_mismatch(key: SigningKey) -> None:
    hdrs = signed(key)
    reencoded = json.dumps(json.loads(BODY), indent=2).encode()
    assert reencoded != BODY and json.loads(reencoded) == json.loads(BODY)
    res = check(hdrs, body=reencoded)
    assert res.reason is Reason.DIGEST_MISMATCH
    assert res.digest == content_digest(reencoded)
    # re-serialised with sorted keys / no whitespace is still not the signed bytes
    compact = json.dumps(json.loads(BODY), separators=(",", ":"), sort_keys=True).encode()
    assert check(hdrs, body=compact).reason is Reason.DIGEST_MISMATCH


def test_proxy_that_also_rewrites_content_digest_is_bad_signature() -> None:
    hdrs = signed()
    body = BODY.replace(b'"total":42', b'"total": 42')
    hdrs["Content-Digest"] = content_digest(body)
    assert check(hdrs, body=body).reason is Reason.BAD_SIGNATURE


def test_component_missing_when_profile_component_not_covered() -> None:
    comps = [c for c in signed.__defaults__ or () if False] or None  # keep mypy quiet
    assert comps is None
    from hookproof_subscriber import PROFILE_COMPONENTS

    hdrs = signed(components=[c for c in PROFILE_COMPONENTS if c != "webhook-generation"])
    assert check(hdrs).reason is Reason.COMPONENT_MISSING


@pytest.mark.parametrize(
    "name",
    [
        "Webhook-Subscription",
        "Webhook-Generation",
        "Content-Type",
        "Content-Digest",
        "Webhook-Id",
        "Webhook-Delivery-Id",
    ],
)
def test_component_missing_when_covered_header_is_absent(name: str) -> None:
    hdrs = signed()
    del hdrs[name]
    assert check(hdrs).reason is Reason.COMPONENT_MISSING


@pytest.mark.parametrize("key", KEYS, ids=IDS)
@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("Webhook-Subscription", "sub_02"),
        ("Webhook-Generation", "4"),
        ("Webhook-Generation", "2"),
        ("Webhook-Id", "evt_02"),
        ("Webhook-Delivery-Id", "dlv_02"),
        ("Content-Type", "text/plain"),
    ],
)
def test_replay_to_another_subscription_or_generation(
    key: SigningKey, name: str, value: str
) -> None:
    hdrs = signed(key)
    hdrs[name] = value
    res = check(hdrs)
    assert not res.ok
    assert res.reason in (Reason.BAD_SIGNATURE, Reason.COMPONENT_MISSING)


def test_replay_to_another_endpoint_or_method() -> None:
    hdrs = signed()
    assert check(hdrs, url="https://other.example.com/hooks/orders?tenant=acme").reason is (
        Reason.BAD_SIGNATURE
    )
    assert check(hdrs, url=URL.replace("acme", "umbrella")).reason is Reason.BAD_SIGNATURE
    assert check(hdrs, method="PUT").reason is Reason.BAD_SIGNATURE


def test_intact_replay_at_a_shared_endpoint_is_refused_with_expectations() -> None:
    hdrs = signed()  # a genuine delivery for sub_01 generation 3
    assert check(hdrs, expected={"Webhook-Subscription": "sub_01", "Webhook-Generation": "3"}).ok
    for exp in ({"Webhook-Subscription": "sub_02"}, {"Webhook-Generation": "4"}):
        assert check(hdrs, expected=exp).reason is Reason.BAD_SIGNATURE


def test_wrong_tag() -> None:
    assert check(signed(tag="hookproof.sig.v0")).reason is Reason.WRONG_TAG
    assert check(signed(tag="hookproof.receipt.v1")).reason is Reason.WRONG_TAG


def test_alg_mismatch_between_key_and_parameter() -> None:
    impostor = SigningKey.hmac(ED_KEY.key_id, b"\x01" * 32)  # same key id, other algorithm
    assert check(signed(impostor)).reason is Reason.ALG_MISMATCH


def test_alg_mismatch_when_profile_forbids_algorithm() -> None:
    hdrs = {"Content-Type": "application/json"}
    # a receipt profile that (wrongly) got an hmac signature: profile allows only ed25519
    import dataclasses

    from hookproof_subscriber import sign_request

    lax = dataclasses.replace(RECEIPT_V1, algorithms=frozenset({"ed25519", "hmac-sha256"}))
    hdrs.update(
        sign_request(
            "POST", URL, hdrs, BODY, key=HMAC_KEY, created=NOW, expires=NOW + 60, profile=lax
        )
    )
    res = verify_request("POST", URL, hdrs, BODY, keys=RESOLVER, now=NOW, profile=RECEIPT_V1)
    assert res.reason is Reason.ALG_MISMATCH


@pytest.mark.parametrize("key", KEYS, ids=IDS)
def test_replayed_nonce(key: SigningKey) -> None:
    cache = NonceCache()
    hdrs = signed(key)
    assert check(hdrs, nonce_cache=cache).ok
    assert check(hdrs, nonce_cache=cache).reason is Reason.REPLAYED_NONCE
    # a failed verification never poisons the cache
    other = signed(key, nonce="fresh-nonce")
    assert check(other, body=b"x", nonce_cache=cache).reason is Reason.DIGEST_MISMATCH
    assert check(other, nonce_cache=cache).ok


def test_nonce_cache_expires_and_is_bounded() -> None:
    cache = NonceCache(max_entries=3, grace=0)
    assert cache.check_and_add("k", "a", NOW + 10, NOW)
    assert not cache.check_and_add("k", "a", NOW + 10, NOW + 5)
    assert cache.check_and_add("k", "a", NOW + 10, NOW + 11)  # expired entry: fresh again
    for n in "bcdef":
        assert cache.check_and_add("k", n, NOW + 100, NOW + 11)
    assert len(cache) <= 3 and cache.evictions >= 1


@pytest.mark.parametrize(
    "mutate",
    [
        lambda h: h.pop("Signature"),
        lambda h: h.pop("Signature-Input"),
        lambda h: h.__setitem__("Signature", "garbage"),
        lambda h: h.__setitem__("Signature-Input", "((("),
        lambda h: h.__setitem__(
            "Signature-Input", h["Signature-Input"].replace("hookproof=", "other=")
        ),
        lambda h: h.__setitem__("Signature", h["Signature"].replace("=:", "=:!")),
        lambda h: h.__setitem__("Signature", h["Signature"] + ";p=1"),
        lambda h: h.__setitem__("Signature-Input", h["Signature-Input"] + ";extra=1"),
        lambda h: h.__setitem__(
            "Signature-Input", h["Signature-Input"].replace(';nonce="bm9uY2UtMDE"', "")
        ),
        lambda h: h.__setitem__(
            "Signature-Input",
            h["Signature-Input"].replace("created=1700000000", "created=01700000000"),
        ),
        lambda h: h.__setitem__(
            "Signature-Input",
            h["Signature-Input"].replace("created=1700000000", 'created="1700000000"'),
        ),
        lambda h: h.__setitem__(
            "Signature-Input", h["Signature-Input"].replace('"@method" ', '"@method"  ')
        ),
        lambda h: h.__setitem__(
            "Signature-Input", h["Signature-Input"].replace('"@method"', '"@method" "@method"')
        ),
        lambda h: h.__setitem__(
            "Signature-Input", h["Signature-Input"].replace('"@method"', '"@method";sf')
        ),
        lambda h: h.__setitem__("Content-Digest", "sha-256=not-bytes"),
        lambda h: h.__setitem__("Webhook-Id", "evt\n01"),
        lambda h: h.__setitem__("Webhook-Id", "évènement"),
    ],
)
def test_malformed(mutate: object) -> None:
    hdrs = signed()
    mutate(hdrs)  # type: ignore[operator]
    res = check(hdrs)
    assert not res.ok
    assert res.reason in (Reason.MALFORMED, Reason.BAD_SIGNATURE)  # no other outcome is sane


@pytest.mark.parametrize(
    "bad",
    [
        None,
        42,
        "not headers",
        [("a",)],
        [(1, 2)],
        {"Signature": b"\xff\xfe"},
        {b"\x00": "x"},
        {"Signature-Input": "hookproof=()", "Signature": "hookproof=::"},
    ],
)
def test_garbage_headers_are_malformed(bad: object) -> None:
    assert check(bad).reason is Reason.MALFORMED


def test_garbage_arguments_never_raise() -> None:
    hdrs = signed()
    assert check(hdrs, body="text").reason is Reason.MALFORMED  # type: ignore[arg-type]
    assert check(hdrs, url="not a url").reason is Reason.MALFORMED
    assert check(hdrs, url=None).reason is Reason.MALFORMED  # type: ignore[arg-type]
    assert check(hdrs, method="").reason is Reason.MALFORMED
    assert check(hdrs, keys=None).reason is Reason.MALFORMED
    assert check(hdrs, now="soon").reason is Reason.MALFORMED  # type: ignore[arg-type]


def test_signature_over_non_canonical_base64_is_refused() -> None:
    hdrs = signed()
    b64 = hdrs["Signature"].split("=:", 1)[1][:-1]
    # flip an unused low bit of the last significant base64 character
    last = b64.rstrip("=")[-1]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    twin = alphabet[alphabet.index(last) ^ 1]
    forged = b64.rstrip("=")[:-1] + twin + "=" * b64.count("=")
    hdrs["Signature"] = f"hookproof=:{forged}:"
    assert check(hdrs).reason is Reason.MALFORMED


def test_headers_used_are_the_delivery_contract() -> None:
    assert {k.lower() for k in HEADERS} >= {
        "webhook-id",
        "webhook-delivery-id",
        "webhook-subscription",
        "webhook-generation",
    }


@pytest.mark.parametrize(
    "url",
    [
        "https://@subscriber.example.com/hooks/orders?tenant=acme",
        "https://user:pw@subscriber.example.com/hooks/orders?tenant=acme",
        URL + "#",
        URL + "#frag",
        "/hooks/orders?tenant=acme",
        "https:///hooks",
    ],
)
def test_target_uri_with_userinfo_fragment_or_no_authority_is_malformed(url: str) -> None:
    # found by the mutation gate: "https://@host/..." once parsed to the same target URI
    assert check(signed(), url=url).reason is Reason.MALFORMED


def test_a_label_given_twice_is_malformed() -> None:
    # RFC 8941 would keep the last member; we refuse, as http-message-signatures does
    hdrs = signed()
    hdrs["Signature-Input"] = f"{hdrs['Signature-Input']}, {hdrs['Signature-Input']}"
    hdrs["Signature"] = f"{hdrs['Signature']}, {hdrs['Signature']}"
    assert check(hdrs).reason is Reason.MALFORMED
    digest = hdrs["Content-Digest"]
    hdrs = signed()
    hdrs["Content-Digest"] = f"{digest}, {digest}"
    assert check(hdrs).reason is Reason.MALFORMED


@pytest.mark.parametrize("method", ["post", "Post"])
def test_a_method_not_in_upper_case_is_malformed(method: str) -> None:
    # http-message-signatures refuses such methods; both our paths refuse alike
    assert check(signed(), method=method).reason is Reason.MALFORMED
