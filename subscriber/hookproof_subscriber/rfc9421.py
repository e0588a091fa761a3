"""A small, strict RFC 9421 (HTTP Message Signatures) core for requests.

Supports the derived components ``@method``, ``@target-uri``, ``@authority``, ``@scheme``,
``@request-target``, ``@path`` and ``@query``, and plain HTTP fields (without component
parameters); algorithms ``ed25519`` and ``hmac-sha256``. A broker message (DESIGN.md section
13) has no request: its one derived component is ``@destination``, the destination URI
without credentials (:func:`build_message_base`). A signature whose Signature-Input
member or Signature value is not in canonical RFC 8941 form is refused, so no two encodings
of one signature both verify.

Two paths: a regex fast path for the common case (one canonical member per field, as
hookproof signs) computes the signature base and checks the bytes here; every other input
is parsed with ``http_sf`` (the RFC 8941 parser of ``http-message-signatures``) and its
signature is decided by the ``http-message-signatures`` verifier (``hms``). Property tests
(``tests/sig/test_library.py``) compare the fast path with the library over generated input.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from http_sf.compat import InnerList, Item

from .hms import library_verify, parse_sf_dictionary
from .keys import ED25519, HMAC_SHA256, SigningKey, VerificationKey

__all__ = [
    "DERIVED_COMPONENTS",
    "MESSAGE_DERIVED_COMPONENTS",
    "ParsedSignature",
    "SignatureFormatError",
    "Target",
    "build_message_base",
    "build_signature_base",
    "check_signature",
    "normalize_headers",
    "parse_signature",
    "parse_target",
    "raw_verify",
    "serialize_signature_params",
    "sign_bytes",
    "verify_bytes",
]

DERIVED_COMPONENTS = frozenset(
    {"@method", "@target-uri", "@authority", "@scheme", "@request-target", "@path", "@query"}
)
#: The derived components of a broker message (no method, no request target).
MESSAGE_DERIVED_COMPONENTS = frozenset({"@destination"})
_ALL_DERIVED = DERIVED_COMPONENTS | MESSAGE_DERIVED_COMPONENTS
_SIG_LENGTH = {ED25519: 64, HMAC_SHA256: 32}
_FIELD_NAME = re.compile(r"[!#$%&'*+\-.^_`|~0-9a-z]+")
_METHOD = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
# An absolute request URL (RFC 3986 / RFC 9110 4.2): scheme "://" host [":" port] [path]
# ["?" query]. Userinfo and fragments are refused: they are never part of a request target.
_UNRESERVED = r"A-Za-z0-9._~\-"
_SUB_DELIMS = r"!$&'()*+,;="
_PCT = r"%[0-9A-Fa-f]{2}"
_URL = re.compile(
    r"(?P<scheme>[A-Za-z][A-Za-z0-9+.\-]*)://"
    rf"(?P<host>\[[0-9A-Fa-f:.]+\]|(?:[{_UNRESERVED}{_SUB_DELIMS}]|{_PCT})+)"
    r"(?::(?P<port>[0-9]*))?"
    rf"(?P<path>/(?:[{_UNRESERVED}{_SUB_DELIMS}:@/]|{_PCT})*)?"
    rf"(?:\?(?P<query>(?:[{_UNRESERVED}{_SUB_DELIMS}:@/?]|{_PCT})*))?"
)
_DEFAULT_PORTS = {"http": "80", "https": "443"}


class SignatureFormatError(ValueError):
    """Input that is not a well-formed signature; ``reason`` is a verifier reason code."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Target:
    """The parts of an absolute request URL that derived components use."""

    scheme: str
    host: str
    port: str | None
    path: str
    query: str | None

    @property
    def target_uri(self) -> str:
        q = "" if self.query is None else "?" + self.query
        port = "" if self.port is None else ":" + self.port
        return f"{self.scheme}://{self.host}{port}{self.path or '/'}{q}"

    @property
    def authority(self) -> str:
        host = self.host.lower()
        port = self.port
        if port is not None and (
            port == "" or port.lstrip("0") == _DEFAULT_PORTS.get(self.scheme.lower())
        ):
            port = None
        return host if port is None else f"{host}:{port}"


_TARGETS: dict[str, Target] = {}
_TARGETS_MEMO = 4096


def parse_target(url: str) -> Target:
    """Parse an absolute ASCII URL strictly (no userinfo, no fragment).

    Targets are immutable; the last few thousand URLs parsed are kept (a sender signs for
    the same endpoints over and over)."""
    if not isinstance(url, str):
        raise SignatureFormatError("malformed", "URL must be a string")
    target = _TARGETS.get(url)
    if target is not None:
        return target
    m = _URL.fullmatch(url)
    if m is None:
        raise SignatureFormatError("malformed", "URL is not an absolute RFC 3986 URL")
    target = Target(m["scheme"], m["host"], m["port"], m["path"] or "", m["query"])
    if len(_TARGETS) >= _TARGETS_MEMO:
        _TARGETS.clear()
    _TARGETS[url] = target
    return target


_BAD_CHARS = re.compile(r"[^\t\x20-\x7e]")
_DESTINATION = re.compile(r"[\x21-\x7e]{1,4096}")
#: valid field names seen, with their lower case (names repeat: the same few per profile)
_NAMES: dict[str, str] = {}
_NAMES_MEMO = 1024


def normalize_headers(headers: Any) -> dict[str, str]:
    """Lower-case names; combine repeated field lines with ``", "``; strip OWS.

    Accepts a Mapping, a multidict (anything with ``.items()``) or an iterable of pairs;
    values may be ``str`` or ASCII ``bytes``. Raises SignatureFormatError on bad input.
    """
    items: Iterable[tuple[Any, Any]]
    if hasattr(headers, "items"):
        items = headers.items()
    else:
        items = headers
    out: dict[str, str] = {}
    names = _NAMES
    try:
        for name, value in items:
            if type(name) is not str or type(value) is not str:
                if isinstance(name, bytes):
                    name = name.decode("ascii")
                if isinstance(value, bytes):
                    value = value.decode("ascii")
                if not isinstance(name, str) or not isinstance(value, str):
                    raise SignatureFormatError(
                        "malformed", "header names and values must be strings"
                    )
            lname = names.get(name)
            if lname is None:
                lname = name.lower()
                if not _FIELD_NAME.fullmatch(lname):
                    raise SignatureFormatError("malformed", "invalid header field name")
                if len(names) >= _NAMES_MEMO:
                    names.clear()
                names[name] = lname
            if _BAD_CHARS.search(value):
                raise SignatureFormatError(
                    "malformed", f"field {lname!r} has non-ASCII or control chars"
                )
            value = value.strip(" \t")
            prev = out.get(lname)
            out[lname] = value if prev is None else f"{prev}, {value}"
    except (UnicodeError, TypeError, ValueError) as exc:
        if isinstance(exc, SignatureFormatError):
            raise
        raise SignatureFormatError("malformed", "headers are not name/value pairs") from exc
    return out


@dataclass(frozen=True, slots=True)
class ParsedSignature:
    """One labelled signature: covered component ids, parameters and signature bytes."""

    label: str
    components: tuple[str, ...]
    params: Mapping[str, int | str | bool | bytes]
    signature: bytes
    signature_params: str
    fast: bool = False
    """True when the regex fast path parsed it (canonical single members)."""

    @property
    def key_id(self) -> str | None:
        v = self.params.get("keyid")
        return v if type(v) is str else None


def _member_is_canonical(raw: str, member: str) -> bool:
    """True if *member* (``label=value``) occurs in *raw* at a member boundary."""
    start = 0
    while True:
        i = raw.find(member, start)
        if i < 0:
            return False
        end = i + len(member)
        before_ok = i == 0 or raw[i - 1] in ", \t"
        after_ok = end == len(raw) or raw[end] in ", \t"
        if before_ok and after_ok:
            return True
        start = i + 1


def _parse_dictionary(raw: str, field: str) -> dict[str, Item | InnerList]:
    """RFC 8941 Dictionary via ``http_sf`` (duplicate labels refused, as the library does)."""
    try:
        parsed = parse_sf_dictionary(raw)
    except (ValueError, UnicodeError, IndexError, TypeError) as exc:
        raise SignatureFormatError("malformed", f"{field} is not a structured Dictionary") from exc
    out: dict[str, Item | InnerList] = {}
    for label, (member, params) in parsed.items():
        node: Item | InnerList
        if isinstance(member, list):
            node = InnerList()
            for bare, item_params in member:
                item = Item(bare)
                item.params.update(item_params)
                node.append(item)
        else:
            node = Item(member)
        node.params.update(params)
        out[label] = node
    return out


_KEY = r"[a-z*][a-z0-9_\-.*]*"
_STR = r'"(?:[\x20\x21\x23-\x5b\x5d-\x7e]|\\["\\])*"'
_INT = r"(?:0|-?[1-9][0-9]{0,14})"
_PARAM = rf";({_KEY})=({_INT}|{_STR})"
_CANON_INPUT = re.compile(rf"({_KEY})=(\(((?:{_STR}(?: {_STR})*)?)\)((?:{_PARAM})*))")
_B64 = r"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?"
_CANON_SIG = re.compile(rf"({_KEY})=:({_B64}):")
_STR_RE = re.compile(_STR)
_PARAM_RE = re.compile(_PARAM)
_UNESCAPE = re.compile(r'\\(["\\])')


def _unquote(text: str) -> str:
    inner = text[1:-1]
    return _UNESCAPE.sub(r"\1", inner) if "\\" in inner else inner


def _fast_parse(raw_input: str, raw_sig: str, label: str) -> ParsedSignature | None:
    """Parse single-member, canonical RFC 8941 fields with regexes; None to fall back."""
    mi = _CANON_INPUT.fullmatch(raw_input)
    ms = _CANON_SIG.fullmatch(raw_sig)
    if mi is None or ms is None or mi[1] != label or ms[1] != label:
        return None
    components = tuple(_unquote(m[0]) for m in _STR_RE.finditer(mi[3]))
    params: dict[str, Any] = {}
    for m in _PARAM_RE.finditer(mi[4]):
        name, value = m[1], m[2]
        if name in params:
            return None
        params[name] = _unquote(value) if value.startswith('"') else int(value)
    signature = base64.b64decode(ms[2])
    if base64.b64encode(signature).decode("ascii") != ms[2]:
        return None
    _check_components(components)
    _check_params(params)
    return ParsedSignature(label, components, params, signature, mi[2], fast=True)


def _check_components(components: Sequence[str]) -> None:
    if len(set(components)) != len(components):
        raise SignatureFormatError("malformed", "a component is covered twice")
    for value in components:
        if value.startswith("@"):
            if value not in _ALL_DERIVED:
                raise SignatureFormatError("malformed", f"unsupported component {value!r}")
        elif not _FIELD_NAME.fullmatch(value):
            raise SignatureFormatError("malformed", f"invalid component name {value!r}")


def _check_params(params: Mapping[str, Any]) -> None:
    for name, pval in params.items():
        if name in ("created", "expires"):
            if type(pval) is not int:
                raise SignatureFormatError("malformed", f"{name} must be an Integer")
        elif name in ("keyid", "alg", "nonce", "tag") and type(pval) is not str:
            raise SignatureFormatError("malformed", f"{name} must be a String")


def parse_signature(
    headers: Mapping[str, str], label: str, *, fast: bool = True
) -> ParsedSignature:
    """Select the signature *label* from normalised *headers* (see ``normalize_headers``).

    ``fast=False`` skips the regex fast path (the property tests compare both paths).
    """
    raw_input = headers.get("signature-input")
    raw_sig = headers.get("signature")
    if raw_input is None or raw_sig is None:
        raise SignatureFormatError("malformed", "Signature-Input or Signature missing")
    if fast:
        parsed = _fast_parse(raw_input, raw_sig, label)
        if parsed is not None:
            return parsed
    return _general_parse(raw_input, raw_sig, label)


def _general_parse(raw_input: str, raw_sig: str, label: str) -> ParsedSignature:
    """General RFC 8941 path (any dictionary); the member must still be canonical."""
    inputs = _parse_dictionary(raw_input, "Signature-Input")
    sigs = _parse_dictionary(raw_sig, "Signature")
    member = inputs.get(label)
    sig_member = sigs.get(label)
    if member is None or sig_member is None:
        raise SignatureFormatError("malformed", f"no signature labelled {label!r}")
    if not isinstance(member, InnerList):
        raise SignatureFormatError("malformed", "Signature-Input member is not an Inner List")
    if not isinstance(sig_member, Item) or type(sig_member.value) is not bytes or sig_member.params:
        raise SignatureFormatError("malformed", "Signature member is not a Byte Sequence")
    components: list[str] = []
    for item in member:
        if type(item.value) is not str:
            raise SignatureFormatError("malformed", "component identifiers must be sf-strings")
        if item.params:
            raise SignatureFormatError("malformed", "component parameters are not supported")
        components.append(item.value)
    _check_components(components)
    params = dict(member.params)
    _check_params(params)
    serialised = str(member)
    if not _member_is_canonical(raw_input, f"{label}={serialised}"):
        raise SignatureFormatError("malformed", "Signature-Input member is not canonical RFC 8941")
    sig_bytes = sig_member.value
    if not _member_is_canonical(raw_sig, f"{label}=:{base64.b64encode(sig_bytes).decode()}:"):
        raise SignatureFormatError("malformed", "Signature value is not canonical base64")
    return ParsedSignature(label, tuple(components), params, sig_bytes, serialised)


_SF_STRING_OK = re.compile(r"[\x20-\x7e]*")


def _ser_string(value: str) -> str:
    if not _SF_STRING_OK.fullmatch(value):
        raise ValueError("sf-string must be printable ASCII")
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


_KEY_RE = re.compile(_KEY)
#: serialised inner lists of component identifiers, per component tuple
_INNER_LISTS: dict[tuple[str, ...], str] = {}


def _ser_key(key: str) -> str:
    if not _KEY_RE.fullmatch(key):
        raise ValueError(f"invalid structured-field key {key!r}")
    return key


def serialize_signature_params(
    components: Sequence[str], params: Sequence[tuple[str, int | str]]
) -> str:
    """RFC 8941 serialisation of the ``@signature-params`` inner list (strings and ints)."""
    comps = tuple(components)
    inner = _INNER_LISTS.get(comps)
    if inner is None:
        inner = "(" + " ".join(_ser_string(c) for c in comps) + ")"
        if len(_INNER_LISTS) >= _NAMES_MEMO:
            _INNER_LISTS.clear()
        _INNER_LISTS[comps] = inner
    out = [inner]
    for name, value in params:
        if type(value) is int:
            if not -999_999_999_999_999 <= value <= 999_999_999_999_999:
                raise ValueError(f"parameter {name!r} out of Integer range")
            out.append(f";{_ser_key(name)}={value}")
        elif type(value) is str:
            out.append(f";{_ser_key(name)}={_ser_string(value)}")
        else:
            raise ValueError(f"parameter {name!r} must be int or str")
    return "".join(out)


def _component_value(name: str, method: str, target: Target, headers: Mapping[str, str]) -> str:
    if name == "@method":
        return method
    if name == "@target-uri":
        return target.target_uri
    if name == "@authority":
        return target.authority
    if name == "@scheme":
        return target.scheme.lower()
    if name == "@path":
        return target.path or "/"
    if name == "@query":
        return "?" + (target.query or "")
    if name == "@request-target":
        return (target.path or "/") + ("" if target.query is None else "?" + target.query)
    value = headers.get(name)
    if value is None:
        raise SignatureFormatError("component_missing", f"covered field {name!r} is absent")
    return value


def build_signature_base(
    method: str,
    url: str | Target,
    headers: Mapping[str, str],
    components: Sequence[str],
    signature_params: str,
) -> bytes:
    """The RFC 9421 signature base (ASCII bytes, no trailing newline).

    *headers* must be normalised (``normalize_headers``). Raises SignatureFormatError.
    """
    if not isinstance(method, str) or not _METHOD.fullmatch(method) or method != method.upper():
        # upper case, as http-message-signatures requires (both paths refuse alike)
        raise SignatureFormatError("malformed", "invalid request method")
    target = url if isinstance(url, Target) else parse_target(url)
    lines = []
    for name in components:
        lines.append(f'"{name}": {_component_value(name, method, target, headers)}')
    lines.append(f'"@signature-params": {signature_params}')
    base = "\n".join(lines)
    if not base.isascii():
        raise SignatureFormatError("malformed", "signature base is not ASCII")
    return base.encode("ascii")


def build_message_base(
    destination: str,
    headers: Mapping[str, str],
    components: Sequence[str],
    signature_params: str,
) -> bytes:
    """The RFC 9421 signature base of a broker message: ``"@destination"`` is *destination*
    (the destination URI without credentials), fields come from normalised *headers*; an
    HTTP derived component has no value in a message (``component_missing``).
    Raises SignatureFormatError."""
    if not isinstance(destination, str) or not _DESTINATION.fullmatch(destination):
        raise SignatureFormatError("malformed", "destination must be printable ASCII, no spaces")
    lines = []
    for name in components:
        if name == "@destination":
            value = destination
        elif name.startswith("@"):
            raise SignatureFormatError("component_missing", f"{name!r} has no value in a message")
        else:
            found = headers.get(name)
            if found is None:
                raise SignatureFormatError("component_missing", f"covered field {name!r} is absent")
            value = found
        lines.append(f'"{name}": {value}')
    lines.append(f'"@signature-params": {signature_params}')
    base = "\n".join(lines)
    if not base.isascii():
        raise SignatureFormatError("malformed", "signature base is not ASCII")
    return base.encode("ascii")


def sign_bytes(key: SigningKey, base: bytes) -> bytes:
    """Sign a signature base with *key*."""
    if key.alg == ED25519:
        assert key.private_key is not None
        return key.private_key.sign(base)
    assert key.secret is not None
    return hmac.new(key.secret, base, hashlib.sha256).digest()


def verify_bytes(key: VerificationKey, base: bytes, signature: bytes) -> bool:
    """Check *signature* over *base*; False on any mismatch."""
    if len(signature) != _SIG_LENGTH.get(key.alg, -1):
        return False
    if key.alg == ED25519:
        assert key.public_key is not None
        try:
            key.public_key.verify(signature, base)
        except InvalidSignature:
            return False
        return True
    if key.alg == HMAC_SHA256:
        assert key.secret is not None
        return hmac.compare_digest(hmac.new(key.secret, base, hashlib.sha256).digest(), signature)
    return False


def check_signature(
    base: bytes,
    method: str,
    url: str,
    headers: Mapping[str, str],
    parsed: ParsedSignature,
    key: VerificationKey,
    *,
    tag: str | None,
) -> bool:
    """Whether *parsed* (from normalised *headers*, with our signature *base*) verifies.

    Callers build *base* first (``build_signature_base``), so a bad method, URL or absent
    covered field is already a reason code. A fast-path parse is checked here over *base*;
    any other one is decided by the ``http-message-signatures`` verifier.
    """
    if parsed.fast:
        return verify_bytes(key, base, parsed.signature)
    return library_verify(method, url, headers, label=parsed.label, tag=tag, key=key)


def raw_verify(
    method: str, url: str, headers: Any, *, label: str, key: VerificationKey
) -> tuple[bool, str]:
    """Plain RFC 9421 verification of one labelled signature, with no profile policy.

    No time, tag, nonce or coverage requirement is applied (as in the RFC Appendix B
    examples); only an ``alg`` parameter, when present, must match the key. Returns
    ``(ok, reason)`` and never raises.
    """
    try:
        hdrs = normalize_headers(headers)
        parsed = parse_signature(hdrs, label)
        alg = parsed.params.get("alg")
        if alg is not None and alg != key.alg:
            return False, "alg_mismatch"
        base = build_signature_base(method, url, hdrs, parsed.components, parsed.signature_params)
        tag = parsed.params.get("tag")
        if check_signature(
            base, method, url, hdrs, parsed, key, tag=tag if type(tag) is str else None
        ):
            return True, "ok"
        return False, "bad_signature"
    except SignatureFormatError as exc:
        return False, exc.reason
    except Exception:
        return False, "malformed"
