"""Endpoint normalisation: canonical forms, hostile URLs with their codes, and properties."""

from __future__ import annotations

import hashlib
import ipaddress

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from hookproof.engine.egress.endpoint import ENDPOINT_CODES, Endpoint, normalise_endpoint
from hookproof.errors import ValidationError

CANONICAL = [
    ("HTTPS://Example.COM", "https://example.com/"),
    ("https://example.com:443/", "https://example.com/"),
    ("https://example.com:0443/a", "https://example.com/a"),
    ("https://example.com:8443", "https://example.com:8443/"),
    ("https://example.com.", "https://example.com/"),
    ("https://example.com?", "https://example.com/?"),
    ("https://example.com?b=2&a=1", "https://example.com/?b=2&a=1"),
    ("https://example.com/A/./b/../C", "https://example.com/A/C"),
    ("https://example.com/a/..", "https://example.com/"),
    ("https://example.com/%7euser/%2e%2E/x", "https://example.com/x"),
    ("https://example.com/%7Euser", "https://example.com/~user"),
    ("https://example.com/a%2fb%3a", "https://example.com/a%2Fb%3A"),
    ("https://example.com/caf\u00e9 ".strip(), "https://example.com/caf%C3%A9"),
    ("https://example.com/p?q=\u00e9&r=<x>", "https://example.com/p?q=%C3%A9&r=%3Cx%3E"),
    ("https://B\u00fccher.Example/", "https://xn--bcher-kva.example/"),
    ("https://xn--bcher-kva.example/", "https://xn--bcher-kva.example/"),
    ("https://\u4f8b\u3048.\u30c6\u30b9\u30c8/", "https://xn--r8jz45g.xn--zckzah/"),
    ("https://\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444", "https://xn--e1afmkfd.xn--p1ai/"),
    ("https://stra\u00dfe.de/", "https://xn--strae-oqa.de/"),
    ("https://example\u3002com/", "https://example.com/"),
    ("https://r3---sn-abc.googlevideo.com/", "https://r3---sn-abc.googlevideo.com/"),
    ("https://8.8.8.8/", "https://8.8.8.8/"),
    ("https://[2606:4700:0:0::1111]/", "https://[2606:4700::1111]/"),
    ("https://[2606:4700::AB]:8443", "https://[2606:4700::ab]:8443/"),
    ("https://[::FFFF:8.8.8.8]/", "https://[::ffff:8.8.8.8]/"),
    ("https://[::ffff:808:808]/", "https://[::ffff:8.8.8.8]/"),
    ("https://a-b.c0.example/", "https://a-b.c0.example/"),
    ("https://1.2.3.4.example/", "https://1.2.3.4.example/"),
]


@pytest.mark.parametrize(("url", "expected"), CANONICAL)
def test_canonical_forms(url, expected):
    endpoint = normalise_endpoint(url)
    assert endpoint.url == expected
    assert endpoint.digest == hashlib.sha256(expected.encode()).hexdigest()
    assert normalise_endpoint(expected) == endpoint


def test_endpoint_fields():
    e = normalise_endpoint("https://Hooks.Example:8443/in?x=1")
    assert (e.host, e.port, e.path, e.query, e.ip) == ("hooks.example", 8443, "/in", "x=1", None)
    v6 = normalise_endpoint("https://[2606:4700::1111]/")
    assert v6.host == "2606:4700::1111" and v6.port == 443 and v6.is_ip_literal


HOSTILE = [
    ("http://example.com/", "endpoint_scheme_not_https"),
    ("HTTP://example.com/", "endpoint_scheme_not_https"),
    ("ftp://example.com/", "endpoint_scheme_not_https"),
    ("javascript:alert(1)", "endpoint_scheme_not_https"),
    ("file:///etc/passwd", "endpoint_scheme_not_https"),
    ("gopher://127.0.0.1:6379/_", "endpoint_scheme_not_https"),
    ("https://user@example.com/", "endpoint_userinfo"),
    ("https://user:pass@example.com/", "endpoint_userinfo"),
    ("https://@example.com/", "endpoint_userinfo"),
    ("https://example.com@10.0.0.1/", "endpoint_userinfo"),
    ("https://example.com/#", "endpoint_fragment"),
    ("https://example.com/a#b", "endpoint_fragment"),
    ("https://example.com:8080/", "endpoint_port_not_allowed"),
    ("https://example.com:80/", "endpoint_port_not_allowed"),
    ("https://example.com:22/", "endpoint_port_not_allowed"),
    ("https://8.8.8.8:6379/", "endpoint_port_not_allowed"),
    ("https://10.0.0.1/", "endpoint_ip_forbidden"),
    ("https://127.0.0.1/", "endpoint_ip_forbidden"),
    ("https://169.254.169.254/latest/meta-data/", "endpoint_ip_forbidden"),
    ("https://100.64.0.1/", "endpoint_ip_forbidden"),
    ("https://0.0.0.0/", "endpoint_ip_forbidden"),
    ("https://[::1]/", "endpoint_ip_forbidden"),
    ("https://[::]/", "endpoint_ip_forbidden"),
    ("https://[::ffff:127.0.0.1]/", "endpoint_ip_forbidden"),
    ("https://[::ffff:7f00:1]/", "endpoint_ip_forbidden"),
    ("https://[64:ff9b::a00:1]/", "endpoint_ip_forbidden"),
    ("https://[2002:a00:1::]/", "endpoint_ip_forbidden"),
    ("https://[2001::1]/", "endpoint_ip_forbidden"),
    ("https://[fd00::1]/", "endpoint_ip_forbidden"),
    ("https://[fe80::1]/", "endpoint_ip_forbidden"),
    ("https://[fec0::1]/", "endpoint_ip_forbidden"),
    ("https://[3fff::1]/", "endpoint_ip_forbidden"),
    ("https://localhost/", "endpoint_ip_forbidden"),
    ("https://LOCALHOST./", "endpoint_ip_forbidden"),
    ("https://admin.localhost/", "endpoint_ip_forbidden"),
    ("https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", "endpoint_ip_forbidden"),
    ("https://0x7f000001/", "endpoint_numeric_host"),
    ("https://0X7F000001/", "endpoint_numeric_host"),
    ("https://0177.0.0.1/", "endpoint_numeric_host"),
    ("https://0177.0000.0000.0001/", "endpoint_numeric_host"),
    ("https://2130706433/", "endpoint_numeric_host"),
    ("https://017700000001/", "endpoint_numeric_host"),
    ("https://127.1/", "endpoint_numeric_host"),
    ("https://127.0.1/", "endpoint_numeric_host"),
    ("https://0x7f.0x0.0x0.0x1/", "endpoint_numeric_host"),
    ("https://0x7f.1/", "endpoint_numeric_host"),
    ("https://8.8.8.08/", "endpoint_numeric_host"),
    ("https://8.8.8.8./", "endpoint_numeric_host"),
    ("https://256.1.1.1/", "endpoint_numeric_host"),
    ("https://1.2.3.4.5/", "endpoint_numeric_host"),
    ("https://example.0x10/", "endpoint_numeric_host"),
    ("https://example.123/", "endpoint_numeric_host"),
    ("https://0/", "endpoint_numeric_host"),
    ("https://" + "a" * 64 + ".example/", "endpoint_host_too_long"),
    ("https://" + ".".join(["a" * 63] * 4) + "/", "endpoint_host_too_long"),
    ("https://" + "\u00e9" * 70 + ".example/", "endpoint_host_too_long"),
    ("https://", "endpoint_invalid"),
    ("https:///path", "endpoint_invalid"),
    ("https:example.com", "endpoint_invalid"),
    ("//example.com/", "endpoint_invalid"),
    ("example.com", "endpoint_invalid"),
    ("", "endpoint_invalid"),
    ("https://exa mple.com/", "endpoint_invalid"),
    ("https://example.com/a b", "endpoint_invalid"),
    (" https://example.com/", "endpoint_invalid"),
    ("https://example.com/\n", "endpoint_invalid"),
    ("https://example.com\\@evil.test/", "endpoint_invalid"),
    ("https://example.com:/", "endpoint_invalid"),
    ("https://example.com:x/", "endpoint_invalid"),
    ("https://example.com:65536/", "endpoint_invalid"),
    ("https://example.com:0/", "endpoint_invalid"),
    ("https://example.com:+443/", "endpoint_invalid"),
    ("https://ex%61mple.com/", "endpoint_invalid"),
    ("https://%31%32%37.0.0.1/", "endpoint_invalid"),
    ("https://exa_mple.com/", "endpoint_invalid"),
    ("https://-example.com/", "endpoint_invalid"),
    ("https://example-.com/", "endpoint_invalid"),
    ("https://a..b/", "endpoint_invalid"),
    ("https://./", "endpoint_invalid"),
    ("https://xn--zz.example/", "endpoint_invalid"),
    ("https://[::1/", "endpoint_invalid"),
    ("https://[::1]x/", "endpoint_invalid"),
    ("https://[fe80::1%25eth0]/", "endpoint_invalid"),
    ("https://[v1.fe]/", "endpoint_invalid"),
    ("https://[127.0.0.1]/", "endpoint_invalid"),
    ("https://::1/", "endpoint_invalid"),
    ("https://example.com/%zz", "endpoint_invalid"),
    ("https://example.com/%4", "endpoint_invalid"),
    ("https://example.com/" + "a" * 2100, "endpoint_invalid"),
    ("https://\u2764.example/", "endpoint_invalid"),
]


@pytest.mark.parametrize(("url", "code"), HOSTILE)
def test_hostile_urls_rejected_with_their_code(url, code):
    with pytest.raises(ValidationError) as info:
        normalise_endpoint(url)
    assert info.value.code == code, info.value.detail
    assert info.value.field == "endpoint"
    assert info.value.to_problem()["field"] == "endpoint"


def test_exact_pair_allows_a_denied_literal_and_its_port_only():
    pairs = frozenset({("127.0.0.1", 8999), ("::1", 9001)})
    assert normalise_endpoint("https://127.0.0.1:8999/", allow_pairs=pairs).port == 8999
    assert normalise_endpoint("https://[::1]:9001/", allow_pairs=pairs).host == "::1"
    for url, code in [
        ("https://127.0.0.1:9001/", "endpoint_ip_forbidden"),
        ("https://127.0.0.2:8999/", "endpoint_ip_forbidden"),
        ("https://8.8.8.8:8999/", "endpoint_port_not_allowed"),
        ("https://[::ffff:127.0.0.1]:8999/", "endpoint_ip_forbidden"),
    ]:
        with pytest.raises(ValidationError) as info:
            normalise_endpoint(url, allow_pairs=pairs)
        assert info.value.code == code, url
    # A host name may use a pair's port: the transport then checks the resolved pair exactly.
    assert normalise_endpoint("https://hooks.test:8999/", allow_pairs=pairs).port == 8999


def test_allowed_ports_configurable():
    assert normalise_endpoint("https://a.example:9443/", allowed_ports={443, 9443}).port == 9443
    with pytest.raises(ValidationError):
        normalise_endpoint("https://a.example:8443/", allowed_ports={443})


# -- properties --------------------------------------------------------------------------

_label = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,14}[a-z0-9])?", fullmatch=True).filter(
    lambda s: not s.isdigit() and s != "localhost"
)
_unicode_label = st.sampled_from(
    [
        "b\u00fccher",
        "\u4f8b\u3048",
        "\u043f\u0440\u0438\u043c\u0435\u0440",
        "caf\u00e9",
        "stra\u00dfe",
    ]
)
_tld = st.sampled_from(["example", "test", "com", "org", "xn--p1ai", "de"])
_host = st.builds(
    lambda labels, tld: ".".join([*labels, tld]),
    st.lists(st.one_of(_label, _unicode_label), min_size=1, max_size=3),
    _tld,
)
_segment = st.text(
    alphabet=st.sampled_from(list("abcXYZ019-._~!$&'()*+,;=:@%\u00e9/")), max_size=8
).map(lambda s: s.replace("%", "%25"))
_path = st.lists(_segment, max_size=4).map(lambda segs: "".join("/" + s for s in segs))
_query = st.one_of(
    st.none(),
    st.text(alphabet=st.sampled_from(list("ab=&?/%\u00e9")), max_size=8).map(
        lambda s: s.replace("%", "%41")
    ),
)
_port = st.sampled_from([None, 443, 8443])


def _render(host: str, port: int | None, path: str, query: str | None) -> str:
    url = f"https://{host}"
    if port is not None:
        url += f":{port}"
    url += path
    if query is not None:
        url += "?" + query
    return url


def _flip_case(text: str, data: st.DataObject) -> str:
    return "".join(c.upper() if data.draw(st.booleans()) else c for c in text)


@given(_host, _port, _path, _query)
@example("example.com", None, "", None)
def test_idempotent(host, port, path, query):
    url = _render(host, port, path, query)
    try:
        first = normalise_endpoint(url)
    except ValidationError as exc:
        assert exc.code in ENDPOINT_CODES
        return
    assert normalise_endpoint(first.url) == first
    assert first.digest == hashlib.sha256(first.url.encode()).hexdigest()


@given(_host, _path, _query, st.data())
def test_equal_urls_have_equal_digests(host, path, query, data):
    try:
        base = normalise_endpoint(_render(host, None, path, query))
    except ValidationError:
        assume(False)
        return
    ascii_host = base.host
    variants = [
        _render(host, 443, path, query),
        _render(host + ".", None, path, query),
        _render(ascii_host, None, path, query),
        _render(_flip_case(ascii_host, data), 443, path, query),
        _render(host, None, "/." + path if path else "/.", query),
        _render(host, None, "/x/.." + path, query),
        "HTTPS" + _render(host, None, path, query)[5:],
    ]
    for variant in variants:
        assert normalise_endpoint(variant).digest == base.digest, variant


@given(st.text(max_size=60))
@example("https://[::ffff:1.2.3.4]:8443/a?b#c")
def test_total_on_arbitrary_text(text):
    for candidate in (text, "https://" + text, "https://example.com/" + text):
        try:
            endpoint = normalise_endpoint(candidate)
        except ValidationError as exc:
            assert exc.code in ENDPOINT_CODES
        else:
            assert isinstance(endpoint, Endpoint)
            assert endpoint.url.startswith("https://") and endpoint.url.isascii()
            assert normalise_endpoint(endpoint.url) == endpoint


@given(st.integers(min_value=0, max_value=2**32 - 1), st.data())
def test_only_the_canonical_dotted_quad_is_an_ipv4_host(value, data):
    addr = ipaddress.IPv4Address(value)
    octets = [int(o) for o in str(addr).split(".")]
    forms = [
        str(value),
        hex(value),
        ".".join(f"0{o:o}" for o in octets),
        ".".join(hex(o) for o in octets),
        f"{octets[0]}.{(octets[1] << 16) | (octets[2] << 8) | octets[3]}",
        f"{octets[0]}.{octets[1]}.{(octets[2] << 8) | octets[3]}",
        str(addr) + ".",
    ]
    for form in forms:
        with pytest.raises(ValidationError) as info:
            normalise_endpoint(f"https://{form}/")
        assert info.value.code == "endpoint_numeric_host", form
    try:
        endpoint = normalise_endpoint(f"https://{addr}/")
    except ValidationError as exc:
        assert exc.code == "endpoint_ip_forbidden"
    else:
        assert endpoint.host == str(addr) and endpoint.ip == addr
