"""Issue 11, defect 7: a failed challenge tells the tenant a code, never the engine's view of
DNS. A name resolving to a denied address and a name that does not exist look the same
(``endpoint_ip_forbidden``); the address goes to the operator log only."""

from __future__ import annotations

import json
from typing import Any

from structlog.testing import capture_logs

from tests.subscriptions.conftest import sub_body

from .conftest import Harness, MakeHarness


async def register(h: Harness, endpoint: str) -> dict[str, Any]:
    status, _, body = await h.api.call(
        "POST", "/v1/subscriptions", token=h.token, json=sub_body(endpoint=endpoint)
    )
    assert status == 201, body
    return body  # type: ignore[no-any-return]


async def test_denied_address_and_nxdomain_look_the_same(make_harness: MakeHarness) -> None:
    h = await make_harness()
    h.dns.records["internal.test"] = ["10.20.30.40"]
    port = h.endpoint.port
    with capture_logs() as logs:
        denied = await register(h, f"https://internal.test:{port}/hook")
        missing = await register(h, f"https://nowhere.test:{port}/hook")
        await h.engine.drain()
    reasons = []
    for view in (denied, missing):
        history = await h.history(view["id"])
        text = json.dumps(history)
        assert "10.20.30.40" not in text and "ipv4_private" not in text, text
        assert "NXDOMAIN" not in text.upper() and "denied" not in text, text
        [failed] = [e["data"] for e in history if e["type"] == "subscription.challenge_failed"]
        assert "detail" not in failed
        reasons.append(failed["reason"])
        got = await h.get(view["id"])
        assert got["lastReason"] == "endpoint_ip_forbidden"
        assert "10.20.30.40" not in json.dumps(got)
        status, _, timeline = await h.api.call(
            "GET", f"/v1/subscriptions/{view['id']}/timeline", token=h.token
        )
        assert status == 200, timeline
        text = json.dumps(timeline)
        assert "egress_refused_address" not in text and "dns_failure" not in text, text
        assert "endpoint_ip_forbidden" in text
        outcome = await h.challenge(view["id"])  # the synchronous answer says no more
        assert outcome["challenge"]["reason"] == "endpoint_ip_forbidden"
        assert "10.20.30.40" not in json.dumps(outcome)
    assert reasons == ["endpoint_ip_forbidden", "endpoint_ip_forbidden"]
    # the operator log keeps the specifics
    refused = [e for e in logs if e.get("event") == "challenge_endpoint_refused"]
    assert any("10.20.30.40" in str(e.get("detail")) for e in refused), refused
    codes = {e["subscription_id"]: e["code"] for e in refused}
    assert codes[denied["id"]] == "egress_refused_address"
    assert codes[missing["id"]] == "dns_failure"
