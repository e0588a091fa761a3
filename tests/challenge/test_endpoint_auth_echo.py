"""Issue 46, item 3: an endpoint that echoes the attempt's credential (header auth: a bearer
token, basic credentials) in its answer's body and headers, in plain text, another letter
case, percent-encoded, base64 and JSON-escaped: the credential is in no stored event (the
``events`` table, read directly) and in no served copy (the delivery, its timeline, the
subscription's timeline and history, the delivery log). Before the fix ``GET
/v1/deliveries/{id}`` showed ``Bearer abc123`` back."""

from __future__ import annotations

import base64
import json
import secrets
import urllib.parse
from typing import Any

import pytest
from aiohttp import web
from structlog.testing import capture_logs

from .auth_support import dispatch, publish
from .conftest import MakeHarness, Seen


def _json_escaped(text: str) -> str:
    """Every character as a JSON ``\\uXXXX`` escape (what a JSON encoder may write)."""
    return "".join(f"\\u{ord(c):04x}" for c in text)


def _forms(value: str, hidden: list[str]) -> dict[str, str]:
    """The echoes a peer may send of ``value`` (and of the parts that are secret)."""
    out: dict[str, str] = {}
    for i, text in enumerate([value, *hidden]):
        out |= {
            f"plain{i}": text,
            f"lower{i}": text.lower(),
            f"upper{i}": text.upper(),
            f"percent{i}": urllib.parse.quote(text, safe=""),
            f"percent_lower_hex{i}": urllib.parse.quote(text, safe="").lower(),
            f"form{i}": urllib.parse.quote_plus(text),
            f"base64_{i}": base64.b64encode(text.encode()).decode(),
            f"base64url{i}": base64.urlsafe_b64encode(text.encode()).decode().rstrip("="),
            f"json{i}": _json_escaped(text),
        }
    # inside a longer encoded text (the secret's bytes at another base64 alignment)
    out["base64_header"] = base64.b64encode(f"Authorization: {value}".encode()).decode()
    return out


CASES = {
    "bearer": lambda t: (f"Bearer {t}", [t]),
    "basic": lambda t: (
        "Basic " + base64.b64encode(f"svc:{t}".encode()).decode(),
        [t, base64.b64encode(f"svc:{t}".encode()).decode()],
    ),
    "short": lambda _t: ("Bearer abc123", ["abc123"]),  # the review's own value
}


def _absent(text: str, value: str, hidden: list[str]) -> list[str]:
    """Which forms of the credential ``text`` still holds (case-insensitively where the form
    is; base64 exactly)."""
    found = []
    low = text.lower()
    for name, form in _forms(value, hidden).items():
        if name.startswith(("base64", "json")):
            if form in text or form in text.replace("\\\\", "\\"):
                found.append(name)
        elif form.lower() in low:
            found.append(name)
    return found


@pytest.mark.parametrize("case", sorted(CASES))
async def test_an_echoed_credential_is_in_no_stored_or_served_copy(
    make_harness: MakeHarness, case: str
) -> None:
    h = await make_harness()
    value, hidden = CASES[case](secrets.token_urlsafe(18))
    view = await h.register(auth={"type": "header", "name": "Authorization", "value": value})
    h.endpoint.configure(h.subscriber(view))
    await h.engine.drain()
    assert (await h.get(view["id"]))["state"] == "ACTIVE"

    async def echo(seen: Seen) -> web.StreamResponse:
        sent = seen.header("Authorization") or ""
        assert sent == value  # the credential did reach the endpoint
        forms = _forms(sent, hidden)
        doc = {"headers": dict(seen.headers), "forms": forms}
        headers = {f"X-Echo-{k.replace('_', '-')}": v for k, v in forms.items() if len(v) < 200}
        body = json.dumps(doc).replace(json.dumps(forms["json0"])[1:-1], forms["json0"])
        return web.Response(status=200, headers=headers, body=body.encode())

    async def redirect(seen: Seen) -> web.StreamResponse:  # the credential in a Location
        sent = urllib.parse.quote(seen.header("Authorization") or "", safe="")
        return web.Response(status=302, headers={"Location": f"https://else.test/?a={sent}"})

    with capture_logs() as logs:  # what the engine logs of these exchanges, too
        h.endpoint.raw = redirect
        redirected = await publish(h, f"redirect-{case}", 1)
        assert await dispatch(h) == 1
        h.endpoint.raw = echo
        planned = await publish(h, f"echo-{case}", 1)
        # the echo's delivery, and the redirected one's retry when it is already due (a slow
        # machine): both are answered by the echo, and both must come out scrubbed
        assert await dispatch(h) in (1, 2)
        h.endpoint.raw = redirect
        await h.challenge(view["id"])  # a failed challenge keeps the redirect target
    assert logs and _absent(json.dumps(logs, default=str), value, hidden) == []
    failed = await h.events(view["id"], "subscription.challenge_failed")
    assert failed[-1]["reason"] == "redirect" and "else.test" in failed[-1]["location"]
    delivery_id = planned[0]["deliveryId"]
    status, _, moved = await h.api.call(
        "GET", f"/v1/deliveries/{redirected[0]['deliveryId']}", token=h.token
    )
    assert status == 200 and "else.test" in json.dumps(moved)  # the redirect was kept

    served: dict[str, Any] = {}
    for path in (
        f"/v1/deliveries/{delivery_id}",
        f"/v1/deliveries/{delivery_id}/timeline",
        f"/v1/deliveries/{redirected[0]['deliveryId']}",
        f"/v1/subscriptions/{view['id']}/timeline",
        f"/v1/subscriptions/{view['id']}/history",
        f"/v1/deliveries?subscriptionId={view['id']}",
    ):
        status, _, body = await h.api.call("GET", path, token=h.token)
        assert status == 200, (path, body)
        served[path] = body
    attempts = served[f"/v1/deliveries/{delivery_id}"]["attempts"]
    response = attempts[-1]["response"]
    assert response is not None and "[redacted]" in response["excerpt"]  # the echo was kept
    assert any(v == "[redacted]" for _, v in response["headers"])
    for path, body in served.items():
        assert _absent(json.dumps(body), value, hidden) == [], path
    rows = await h.engine.pool.fetch("SELECT type, data::text AS d FROM events")
    for row in rows:
        assert _absent(row["d"], value, hidden) == [], row["type"]


async def test_signature_names_are_reserved_for_header_auth(make_harness: MakeHarness) -> None:
    """The README reserves ``Signature*``: ``Signature-Agent`` (web bot auth) included."""
    h = await make_harness()
    for name in ("Signature-Agent", "signature-agent", "SIGNATURE-X", "Signature"):
        status, _, body = await h.api.call(
            "POST",
            "/v1/subscriptions",
            token=h.token,
            json={
                **_sub(h),
                "auth": {"type": "header", "name": name, "value": "v" * 20},
            },
        )
        assert (status, body["code"], body["field"]) == (400, "auth_header_reserved", "auth.name")


def _sub(h: Any) -> dict[str, Any]:
    from tests.subscriptions.conftest import sub_body

    return sub_body(endpoint=h.endpoint.url)  # type: ignore[no-any-return]
