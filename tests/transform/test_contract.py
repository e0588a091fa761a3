"""The Svix contract and the evidence (issue 53, DESIGN.md section 17): the handler sees
``payload``, ``eventType``, ``method``, ``url`` and ``cancel``; the output is canonical JSON
with digests of code, input and output; the clock and the randomness are the caller's, so a
replay gives the same bytes."""

from __future__ import annotations

import hashlib
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hookproof.engine.transform import Bounds, Failure, FailureKind, Output, Sandbox, TransformInput
from hookproof.engine.transform.decide import decide, input_document
from hookproof.errors import ValidationError
from hookproof.events.canonical import canonical_json, decode_json
from tests.transform.conftest import webhook

#: Svix's example transformation (docs.svix.com/transformations, "An example Transformation":
#: redirect when the payload names a custom URL), written out from the page's description with
#: the JSDoc of their editor's template (the stored copy of the page stops at the code's first
#: line). In hookproof the URL is a path, so the custom URL here is a path too.
SVIX_EXAMPLE = """/**
 * @param webhook the webhook object
 * @param webhook.method destination method. Allowed values: "POST", "PUT"
 * @param webhook.url current destination address
 * @param webhook.eventType current webhook Event Type
 * @param webhook.payload JSON payload
 * @param webhook.cancel whether to cancel dispatch of the given webhook
 */
function handler(webhook) {
  if (webhook.payload.customUrl) {
    webhook.url = webhook.payload.customUrl;
  }
  return webhook;
}
"""

SLACK = """function handler(webhook) {
  const user = webhook.payload.user;
  webhook.payload = {
    text: `${webhook.eventType}: ${user.name} (${webhook.payload.id})`,
    blocks: [{ type: "section", text: { type: "mrkdwn", text: "*" + user.name + "*" } }],
  };
  webhook.url = webhook.url + "/slack";
  webhook.method = "PUT";
  return webhook;
}"""

CLOCK_AND_DICE = """function handler(webhook) {
  webhook.payload = {
    now: Date.now(), iso: new Date().toISOString(), year: new Date().getFullYear(),
    perf: typeof performance === "undefined" ? null : performance.now(),
    dice: [Math.random(), Math.random(), Math.random()],
  };
  return webhook;
}"""


async def test_the_svix_example_runs_unchanged(sandbox: Sandbox) -> None:
    same = await sandbox.run(SVIX_EXAMPLE, webhook({"id": "evt_1"}))
    assert isinstance(same, Output)
    assert (same.payload, same.url, same.method, same.cancelled) == (
        b'{"id":"evt_1"}',
        "/hooks/in",
        "POST",
        False,
    )
    moved = await sandbox.run(
        SVIX_EXAMPLE, webhook({"id": "evt_2", "customUrl": "/custom/path?x=1"})
    )
    assert isinstance(moved, Output)
    assert moved.url == "/custom/path?x=1"
    assert moved.payload == b'{"customUrl":"/custom/path?x=1","id":"evt_2"}'


async def test_a_handler_reshapes_payload_path_and_method(sandbox: Sandbox) -> None:
    result = await sandbox.run(SLACK, webhook())
    assert isinstance(result, Output)
    assert result.method == "PUT" and result.url == "/hooks/in/slack"
    assert result.payload == canonical_json(
        {
            "text": "user.created: Ada (evt_1)",
            "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "*Ada*"}}],
        }
    )


async def test_the_handler_sees_the_event_type_and_the_input(sandbox: Sandbox) -> None:
    code = "function handler(w) { w.payload = [w.eventType, w.method, w.url, w.cancel, w.payload]; return w; }"
    result = await sandbox.run(code, webhook({"n": 1}, event_type="invoice.paid", url="/in?q=2"))
    assert isinstance(result, Output)
    assert result.payload == b'["invoice.paid","POST","/in?q=2",false,{"n":1}]'


async def test_cancel_is_an_output_not_a_failure(sandbox: Sandbox) -> None:
    code = "function handler(w) { w.cancel = w.payload.user.name === 'Ada'; return w; }"
    result = await sandbox.run(code, webhook())
    assert isinstance(result, Output) and result.cancelled
    kept = await sandbox.run(code, webhook({"user": {"name": "Grace"}}))
    assert isinstance(kept, Output) and not kept.cancelled


async def test_the_output_is_canonical_json_whatever_the_script_wrote(sandbox: Sandbox) -> None:
    code = "function handler(w) { w.payload = { z: 1, a: [1.5, 'é\\u2028', null], m: { y: true, b: 1e21 } }; return w; }"
    result = await sandbox.run(code, webhook())
    assert isinstance(result, Output)
    assert result.payload == canonical_json(
        {"a": [1.5, "é\u2028", None], "m": {"b": 1e21, "y": True}, "z": 1}
    )


async def test_clock_and_randomness_are_the_callers_so_a_replay_is_byte_identical(
    sandbox: Sandbox,
) -> None:
    first = await sandbox.run(CLOCK_AND_DICE, webhook(now_ms=1_765_000_000_123))
    again = await sandbox.run(CLOCK_AND_DICE, webhook(now_ms=1_765_000_000_123))
    assert isinstance(first, Output) and isinstance(again, Output)
    assert first.payload == again.payload and first.digests == again.digests
    assert first.fuel_used == again.fuel_used  # fuel is deterministic too
    doc = first.payload.decode()
    assert '"now":1765000000123' in doc and '"iso":"2025-12-06T05:46:40.123Z"' in doc
    other_seed = await sandbox.run(
        CLOCK_AND_DICE, webhook(now_ms=1_765_000_000_123, seed=b"another seed")
    )
    assert isinstance(other_seed, Output) and other_seed.payload != first.payload
    assert other_seed.digests.input != first.digests.input
    later = await sandbox.run(CLOCK_AND_DICE, webhook(now_ms=1_765_000_060_000))
    assert isinstance(later, Output) and '"now":1765000060000' in later.payload.decode()


async def test_random_numbers_are_uniform_enough_and_in_range(sandbox: Sandbox) -> None:
    code = "function handler(w) { const xs = []; for (let i = 0; i < 2000; i++) xs.push(Math.random()); w.payload = xs; return w; }"
    result = await sandbox.run(code, webhook())
    assert isinstance(result, Output)
    xs = json.loads(result.payload)
    assert all(0 <= x < 1 for x in xs) and len(set(xs)) == 2000
    assert 0.45 < sum(xs) / len(xs) < 0.55


async def test_digests_are_of_the_code_the_canonical_input_and_the_canonical_output(
    sandbox: Sandbox,
) -> None:
    inp = webhook()
    result = await sandbox.run(SLACK, inp)
    assert isinstance(result, Output)
    assert result.digests.code == hashlib.sha256(SLACK.encode()).hexdigest()
    assert result.digests.input == hashlib.sha256(input_document(inp)).hexdigest()
    output_document = {
        "payload": json.loads(result.payload),
        "method": "PUT",
        "url": "/hooks/in/slack",
        "cancel": False,
    }
    assert result.digests.output == hashlib.sha256(canonical_json(output_document)).hexdigest()
    failed = await sandbox.run("function handler(w) { throw new Error('x'); }", inp)
    assert isinstance(failed, Failure)
    assert failed.digests.input == result.digests.input and failed.digests.output is None


async def test_an_input_that_is_not_json_is_a_typed_error(sandbox: Sandbox) -> None:
    with pytest.raises(ValidationError) as caught:
        await sandbox.run(SVIX_EXAMPLE, webhook({"when": object()}))
    assert caught.value.code == "transformation_input_invalid"
    assert caught.value.__cause__ is not None


def test_decide_refuses_an_envelope_that_is_not_the_runners() -> None:
    bounds = Bounds()
    for envelope in (
        b"not json",
        b"[1]",
        b'{"ok": 5}',
        b'{"ok": {"payload": 1, "method": "GET", "url": "/"}}',
    ):
        verdict = decide(envelope, "code", "0" * 64, bounds, 1)
        assert isinstance(verdict, Failure) and verdict.kind is FailureKind.INVALID_OUTPUT


def test_decide_bounds_the_output_after_canonical_encoding() -> None:
    envelope = canonical_json({"ok": {"payload": "x" * 100, "method": "POST", "url": "/"}})
    verdict = decide(envelope, "code", "0" * 64, Bounds(output_bytes=50), 1)
    assert isinstance(verdict, Failure) and verdict.kind is FailureKind.OUTPUT_TOO_LARGE
    fits = decide(envelope, "code", "0" * 64, Bounds(output_bytes=102), 1)
    assert isinstance(fits, Output) and len(fits.payload) == 102


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**53), max_value=2**53)
    | st.floats(allow_nan=False, allow_infinity=False).map(
        lambda x: x + 0.0
    )  # -0.0 is 0 in JSON.stringify
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=20,
)


def as_doubles(value: object) -> object:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, list):
        return [as_doubles(v) for v in value]
    assert isinstance(value, dict)
    return {k: as_doubles(v) for k, v in value.items()}


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(payload=json_values)
def test_an_identity_handler_gives_back_the_canonical_payload(
    sandbox: Sandbox, payload: object
) -> None:
    """Every JSON value a double can hold crosses the sandbox and back as the same value, in
    canonical bytes (keys such as ``__proto__`` included: the input is parsed, not evaluated)."""
    inp = TransformInput(payload, "t.x", "/in", now_ms=1, seed=b"s")
    result = sandbox.run_sync("function handler(webhook) { return webhook; }", inp)
    assert isinstance(result, Output), result
    # the same value, numbers compared as the doubles JavaScript holds (it writes an integral
    # number without ".0", so 1.0 comes back as 1 and 2.5e16 as 25000000000000000)
    assert as_doubles(decode_json(result.payload)) == as_doubles(payload)
    assert canonical_json(decode_json(result.payload)) == result.payload


async def test_a_proto_key_in_the_payload_is_data(sandbox: Sandbox) -> None:
    payload = {"__proto__": {"polluted": True}, "constructor": {"prototype": {"x": 1}}}
    code = "function handler(w) { w.payload.probe = ({}).polluted === undefined; return w; }"
    result = await sandbox.run(code, webhook(payload))
    assert isinstance(result, Output)
    assert json.loads(result.payload) == {**payload, "probe": True}
