"""Property tests: any single mutation of a signed request is refused, never raises."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookproof_subscriber import PROFILE_COMPONENTS, Reason, SigningKey, verify_request
from hookproof_subscriber.rfc9421 import (
    _fast_parse,
    _general_parse,
    serialize_signature_params,
)

from .helpers import BODY, ED_KEY, HMAC_KEY, NOW, RESOLVER, URL, signed

SIGNED = {alg: signed(k) for alg, k in (("ed25519", ED_KEY), ("hmac-sha256", HMAC_KEY))}
COVERED = [
    "content-digest",
    "content-type",
    "webhook-id",
    "webhook-delivery-id",
    "webhook-subscription",
    "webhook-generation",
]
TARGETS = ["body", "url", "method", "signature-input", "signature", *COVERED]
SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _field(headers: dict[str, str], name: str) -> str:
    return next(k for k in headers if k.lower() == name)


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
    # truncate
    return data[:pos]


@SETTINGS
@given(
    alg=st.sampled_from(sorted(SIGNED)),
    target=st.sampled_from(TARGETS),
    op=st.sampled_from(["replace", "insert", "delete", "truncate"]),
    pos=st.integers(min_value=0, max_value=10_000),
    byte=st.integers(min_value=0, max_value=255),
)
def test_any_single_mutation_is_never_ok(
    alg: str, target: str, op: str, pos: int, byte: int
) -> None:
    headers = dict(SIGNED[alg])
    body, url, method = BODY, URL, "POST"
    if target == "body":
        body = _apply(body, op, pos, byte)
    elif target == "url":
        url = _apply(url.encode(), op, pos, byte).decode("latin-1")
    elif target == "method":
        method = _apply(method.encode(), op, pos, byte).decode("latin-1")
    else:
        name = _field(headers, target)
        headers[name] = _apply(headers[name].encode(), op, pos, byte).decode("latin-1")
    res = verify_request(method, url, headers, body, keys=RESOLVER, now=NOW)
    if (method, url, body, headers) == ("POST", URL, BODY, SIGNED[alg]):
        assert res.ok  # the mutation was a no-op (e.g. truncate at the end)
        return
    # An equivalent header value (only surrounding whitespace changed) is the same message.
    same = all(headers[k].strip(" \t") == SIGNED[alg][k] for k in headers) and (
        (method, url, body) == ("POST", URL, BODY)
    )
    if same:
        return
    assert not res.ok, (target, op, pos, byte)
    assert isinstance(res.reason, Reason)


@SETTINGS
@given(
    alg=st.sampled_from(sorted(SIGNED)),
    param=st.sampled_from(["created", "expires", "keyid", "alg", "nonce", "tag"]),
    value=st.one_of(
        st.integers(min_value=-(10**15) + 1, max_value=10**15 - 1),
        st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=30),
    ),
)
def test_changing_any_signature_parameter_is_never_ok(
    alg: str, param: str, value: int | str
) -> None:
    key: SigningKey = ED_KEY if alg == "ed25519" else HMAC_KEY
    params: list[tuple[str, int | str]] = [
        ("created", NOW),
        ("expires", NOW + 300),
        ("keyid", key.key_id),
        ("alg", key.alg),
        ("nonce", "bm9uY2UtMDE"),
        ("tag", "hookproof.sig.v1"),
    ]
    original = dict(params)
    if original[param] == value:
        return
    params = [(n, value if n == param else v) for n, v in params]
    headers = dict(SIGNED[alg])
    headers["Signature-Input"] = "hookproof=" + serialize_signature_params(
        PROFILE_COMPONENTS, params
    )
    res = verify_request("POST", URL, headers, BODY, keys=RESOLVER, now=NOW)
    assert not res.ok


@SETTINGS
@given(
    headers=st.dictionaries(
        st.sampled_from(
            [
                "Signature-Input",
                "Signature",
                "Content-Digest",
                "Content-Type",
                "Webhook-Id",
                "signature-input",
                "X",
            ]
        ),
        st.text(max_size=120),
        max_size=6,
    ),
    body=st.binary(max_size=64),
)
def test_arbitrary_headers_never_raise_and_never_pass(headers: dict[str, str], body: bytes) -> None:
    res = verify_request("POST", URL, headers, body, keys=RESOLVER, now=NOW)
    assert not res.ok and isinstance(res.reason, Reason)


_sf_text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=12)


@SETTINGS
@given(
    comps=st.lists(
        st.sampled_from(
            ["@method", "@target-uri", "@path", "content-type", "webhook-id", "x-a", "date"]
        ),
        unique=True,
        max_size=6,
    ),
    params=st.lists(
        st.tuples(
            st.sampled_from(["created", "expires", "keyid", "alg", "nonce", "tag", "x-y", "*z"]),
            st.one_of(st.integers(min_value=-(10**15) + 1, max_value=10**15 - 1), _sf_text),
        ),
        max_size=6,
        unique_by=lambda t: t[0],
    ),
    sig=st.binary(min_size=0, max_size=70),
)
def test_fast_parser_agrees_with_the_structured_field_parser(
    comps: list[str], params: list[tuple[str, int | str]], sig: bytes
) -> None:
    import base64

    from hookproof_subscriber.rfc9421 import SignatureFormatError

    raw_input = "hookproof=" + serialize_signature_params(comps, params)
    raw_sig = f"hookproof=:{base64.b64encode(sig).decode()}:"
    try:
        slow = _general_parse(raw_input, raw_sig, "hookproof")
    except SignatureFormatError as exc:
        slow_err = exc.reason
        slow = None
    try:
        fast = _fast_parse(raw_input, raw_sig, "hookproof")
    except SignatureFormatError as exc:
        assert slow is None and exc.reason == slow_err
        return
    assert fast is not None  # canonical input always takes the fast path
    assert slow is not None
    assert fast.components == slow.components
    assert dict(fast.params) == dict(slow.params)
    assert fast.signature == slow.signature
    assert fast.signature_params == slow.signature_params == raw_input[len("hookproof=") :]
