"""Our RFC 9421 fast path against ``http-message-signatures`` 3.x over generated input.

The library decides every signature the fast path does not parse; these properties show
the fast path computes the same signature base, accepts exactly what the library accepts
(apart from our canonical-form refusal), and that what stays hand-written has a reason:
the library's signer fixes another parameter order, its verifier reads the wall clock, and
it accepts non-canonical encodings of one signature.
"""

from __future__ import annotations

import datetime

import pytest
from http_message_signatures import ContentDigest, HTTPMessageVerifier, InvalidSignature
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookproof_subscriber import (
    PROFILE_COMPONENTS,
    SIG_V1,
    Reason,
    content_digest,
    raw_verify,
    sign_request,
    verify_request,
)
from hookproof_subscriber.digest import verify_content_digest
from hookproof_subscriber.hms import LibraryMessage, library_signer, library_verify
from hookproof_subscriber.rfc9421 import (
    SignatureFormatError,
    build_signature_base,
    check_signature,
    normalize_headers,
    parse_signature,
)

from .helpers import BODY, ED_KEY, HEADERS, HMAC_KEY, NOW, RESOLVER, URL, signed

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
KEYS = st.sampled_from([ED_KEY, HMAC_KEY])
_TOKEN = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-_.~", min_size=1, max_size=12)
# field values: printable ASCII and HTAB, never leading/trailing whitespace (RFC 9421 2.1)
_VALUE = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.just("\t"),
    min_size=1,
    max_size=40,
).map(lambda v: v.strip(" \t") or "x")
_URLS = st.builds(
    lambda host, port, path, query: (
        f"https://{host}.example{port}/{'/'.join(path)}" + ("" if query is None else f"?{query}")
    ),
    _TOKEN,
    st.sampled_from(["", ":443", ":8443", ":1"]),
    st.lists(_TOKEN, max_size=3),
    st.none() | st.text(alphabet="abc=&%2F09", max_size=12).filter(lambda q: "%" not in q),
)
_DERIVED = ["@method", "@target-uri", "@authority", "@scheme", "@request-target", "@path", "@query"]
_FIELDS = ["content-type", "webhook-id", "x-a", "x-b", "content-digest"]


@st.composite
def _requests(draw: st.DrawFn) -> tuple[str, str, dict[str, str], list[str], bytes]:
    url = draw(_URLS)
    method = draw(st.sampled_from(["POST", "PUT", "GET", "PATCH"]))
    body = draw(st.binary(max_size=64))
    headers = {name: draw(_VALUE) for name in _FIELDS if name != "content-digest"}
    components = draw(
        st.lists(st.sampled_from(_DERIVED + _FIELDS), min_size=1, max_size=8, unique=True)
    )
    return method, url, headers, components, body


def _sign(method, url, headers, components, body, key, **kw):  # type: ignore[no-untyped-def]
    out = dict(headers)
    out.update(
        sign_request(
            method,
            url,
            headers,
            body,
            key=key,
            created=NOW,
            expires=NOW + 300,
            nonce="n-1",
            components=components,
            **kw,
        )
    )
    return out


@SETTINGS
@given(req=_requests(), key=KEYS, nonce=_TOKEN, tag=_TOKEN)
def test_signature_base_equals_the_librarys(req, key, nonce, tag) -> None:  # type: ignore[no-untyped-def]
    method, url, headers, components, body = req
    msg = LibraryMessage(method, url, dict(headers))
    prepared = library_signer(key).prepare(
        msg,
        key_id=key.key_id,
        created=datetime.datetime.fromtimestamp(NOW, datetime.UTC),
        expires=datetime.datetime.fromtimestamp(NOW + 300, datetime.UTC),
        nonce=nonce,
        tag=tag,
        covered_component_ids=components,
        body=body,
    )
    comps = [c for c in components]
    if "content-digest" not in comps:
        comps.append("content-digest")  # the library adds digest coverage with body=
    ours = build_signature_base(
        method, url, normalize_headers(msg.headers), comps, prepared.signature_params
    )
    assert ours == prepared.signature_base


@SETTINGS
@given(req=_requests(), key=KEYS)
def test_our_signatures_verify_with_the_library(req, key) -> None:  # type: ignore[no-untyped-def]
    method, url, headers, components, body = req
    hdrs = _sign(method, url, headers, components, body, key)
    assert library_verify(
        method, url, hdrs, label="hookproof", tag=SIG_V1.tag, key=key.verification_key()
    )
    assert raw_verify(method, url, hdrs, label="hookproof", key=key.verification_key()) == (
        True,
        "ok",
    )


def _mutate(text: str, pos: int, byte: int) -> str:
    pos %= max(len(text), 1)
    return text[:pos] + chr(byte) + text[pos + 1 :]


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    req=_requests(),
    key=KEYS,
    where=st.sampled_from(["signature-input", "signature", "url", "method", "header"]),
    pos=st.integers(0, 400),
    byte=st.integers(0x20, 0x7E),
)
def test_fast_path_accepts_exactly_what_the_library_accepts(  # type: ignore[no-untyped-def]
    req, key, where, pos, byte
) -> None:
    method, url, headers, components, body = req
    hdrs = _sign(method, url, headers, components, body, key)
    if where == "url":
        url = _mutate(url, pos, byte)
    elif where == "method":
        method = _mutate(method, pos, byte)
    elif where == "header":
        name = sorted(hdrs)[pos % len(hdrs)]
        hdrs[name] = _mutate(hdrs[name], pos, byte).strip(" \t") or "x"
    else:
        name = "Signature-Input" if where == "signature-input" else "Signature"
        hdrs[name] = _mutate(hdrs[name], pos, byte)
    vkey = key.verification_key()
    ours = raw_verify(method, url, hdrs, label="hookproof", key=vkey)
    theirs = library_verify(method, url, hdrs, label="hookproof", tag=None, key=vkey)
    try:
        parsed = parse_signature(normalize_headers(hdrs), "hookproof")
    except SignatureFormatError:
        parsed = None
    if ours[0]:
        assert theirs, ("the fast path accepted what the library refuses", method, url, hdrs)
    elif theirs:
        # only our canonical-form and URL refusals may reject what the library accepts
        assert ours[1] == "malformed", ours
    if parsed is not None and parsed.fast:
        # the same parse through the library path gives the same decision
        hn = normalize_headers(hdrs)
        slow = parse_signature(hn, "hookproof", fast=False)
        try:
            base = build_signature_base(method, url, hn, slow.components, slow.signature_params)
        except SignatureFormatError:
            return
        tag = slow.params.get("tag")
        assert check_signature(base, method, url, hn, slow, vkey, tag=tag) is ours[0]  # type: ignore[arg-type]


@SETTINGS
@given(body=st.binary(max_size=300), other=st.binary(max_size=8))
def test_content_digest_matches_the_library(body: bytes, other: bytes) -> None:
    assert content_digest(body) == ContentDigest.create(body)
    value = content_digest(body)
    assert verify_content_digest(value, body)
    assert verify_content_digest(value, body + other) is (other == b"")


def test_a_second_label_is_verified_by_the_library() -> None:
    # rotation: hookproof + hookproof-next in one dictionary (not the fast path's shape)
    from hookproof.engine.keys.signing import Signer, sign_headers

    hdrs = dict(HEADERS)
    hdrs.update(
        sign_headers(
            "POST",
            URL,
            HEADERS,
            BODY,
            [Signer(SIG_V1.name, ED_KEY), Signer(SIG_V1.name, HMAC_KEY)],
            created=NOW,
            lifetime=300,
        )
    )
    parsed = parse_signature(normalize_headers(hdrs), "hookproof")
    assert not parsed.fast
    assert verify_request("POST", URL, hdrs, BODY, keys=RESOLVER, now=NOW).reason is Reason.OK
    hdrs["Webhook-Generation"] = "4"
    res = verify_request("POST", URL, hdrs, BODY, keys=RESOLVER, now=NOW)
    assert res.reason is Reason.BAD_SIGNATURE


# What stays hand-written, and why.


def test_the_librarys_signer_cannot_emit_the_profile_parameter_order() -> None:
    msg = LibraryMessage("POST", URL, dict(HEADERS))
    library_signer(ED_KEY).sign(
        msg,
        key_id=ED_KEY.key_id,
        created=datetime.datetime.fromtimestamp(NOW, datetime.UTC),
        expires=datetime.datetime.fromtimestamp(NOW + 300, datetime.UTC),
        nonce="bm9uY2UtMDE",
        label="hookproof",
        tag=SIG_V1.tag,
        covered_component_ids=PROFILE_COMPONENTS,
        body=BODY,
    )
    ours = signed(ED_KEY)
    # profile (schemas/signature_profile.md): created;expires;keyid;alg;nonce;tag
    assert ";created=1700000000;expires=1700000300;keyid=" in ours["Signature-Input"]
    assert ";created=1700000000;keyid=" in msg.headers["Signature-Input"]
    assert msg.headers["Signature-Input"] != ours["Signature-Input"]
    # both are valid RFC 9421: each side verifies the other's
    assert verify_request("POST", URL, msg.headers, BODY, keys=RESOLVER, now=NOW).ok


def test_the_librarys_verifier_reads_the_wall_clock() -> None:
    # A signature valid at NOW (2023) is "expired" to the stock verifier today; the
    # profile checks created/expires against the caller's clock with its own reason codes.
    hdrs = signed(ED_KEY)
    stock = HTTPMessageVerifier(
        signature_algorithm=library_signer(ED_KEY).signature_algorithm,
        key_resolver=library_signer(ED_KEY).key_resolver,
    )
    with pytest.raises(InvalidSignature, match="expires"):
        stock.verify(
            LibraryMessage("POST", URL, hdrs), max_age=None, expect_tag=SIG_V1.tag, body=BODY
        )
    assert verify_request("POST", URL, hdrs, BODY, keys=RESOLVER, now=NOW).reason is Reason.OK
    assert (
        verify_request("POST", URL, hdrs, BODY, keys=RESOLVER, now=NOW + 10_000).reason
        is Reason.EXPIRED
    )


def test_the_library_accepts_a_non_canonical_encoding_that_the_profile_refuses() -> None:
    hdrs = signed(HMAC_KEY)
    label, _, rest = hdrs["Signature-Input"].partition("=")
    hdrs["Signature-Input"] = f"{label}={rest.replace('(', '(  ', 1)}"  # extra SP in the list
    vkey = HMAC_KEY.verification_key()
    assert library_verify("POST", URL, hdrs, label="hookproof", tag=SIG_V1.tag, key=vkey)
    res = verify_request("POST", URL, hdrs, BODY, keys=RESOLVER, now=NOW)
    assert res.reason is Reason.MALFORMED and "canonical" in res.detail


def test_the_library_has_no_reason_codes() -> None:
    # a wrong body and a wrong signature are the same exception to the library
    hdrs = signed(HMAC_KEY)
    verifier = HTTPMessageVerifier(
        signature_algorithm=library_signer(HMAC_KEY).signature_algorithm,
        key_resolver=library_signer(HMAC_KEY).key_resolver,
    )
    verifier.max_clock_skew = datetime.timedelta(days=365 * 100)
    for h, body in ((hdrs, BODY + b" "), ({**hdrs, "Webhook-Id": "evt_02"}, BODY)):
        with pytest.raises(InvalidSignature):
            verifier.verify(
                LibraryMessage("POST", URL, h), max_age=None, expect_tag=SIG_V1.tag, body=body
            )
    assert (
        verify_request("POST", URL, hdrs, BODY + b" ", keys=RESOLVER, now=NOW).reason
        is Reason.DIGEST_MISMATCH
    )


def test_receipt_profile_signatures_verify_with_the_library() -> None:
    from hookproof_subscriber import RECEIPT_V1

    hdrs = {"Content-Type": "application/json"}
    url = "https://hookproof.example.com/v1/receipts"
    hdrs.update(
        sign_request(
            "POST", url, hdrs, BODY, key=ED_KEY, created=NOW, profile=RECEIPT_V1, nonce="r-1"
        )
    )
    vkey = ED_KEY.verification_key()
    assert library_verify("POST", url, hdrs, label="receipt", tag=RECEIPT_V1.tag, key=vkey)
    assert not library_verify("POST", url, hdrs, label="receipt", tag=SIG_V1.tag, key=vkey)
    res = verify_request("POST", url, hdrs, BODY, keys=RESOLVER, now=NOW, profile=RECEIPT_V1)
    assert res.reason is Reason.OK


@SETTINGS
@given(req=_requests(), key=KEYS, nonce=_TOKEN, label=st.sampled_from(["hookproof", "sig1", "a-b"]))
def test_library_signatures_verify_with_ours(req, key, nonce, label) -> None:  # type: ignore[no-untyped-def]
    method, url, headers, components, body = req
    msg = LibraryMessage(method, url, dict(headers))
    library_signer(key).sign(
        msg,
        key_id=key.key_id,
        created=datetime.datetime.fromtimestamp(NOW, datetime.UTC),
        nonce=nonce,
        label=label,
        covered_component_ids=components,
        body=body,
    )
    vkey = key.verification_key()
    assert raw_verify(method, url, msg.headers, label=label, key=vkey) == (True, "ok")
    assert parse_signature(normalize_headers(msg.headers), label).fast
    assert verify_content_digest(msg.headers["Content-Digest"], body)
