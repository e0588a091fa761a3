"""Schemathesis with ALL its checks against a real ``hookproof serve`` and its own
``/openapi.json`` (issue 38): zero failures, not only zero 5xx.

Three tokens: a tenant's for the tenant routes, the operator's for the operator routes, and a
portal session's over the routes its scope opens. Fixtures made through the API (a consumer,
an event type, subscriptions, events and so deliveries) are the real ids that path parameters
take half of the time (schemathesis dictionaries), so generated requests reach the success
paths; the document's links carry created ids on in the stateful phase.

Seeded (``--seed``) and bounded (``--max-examples``) so a run fits CI: about a minute per pass
on the 2-core machine.

What no JSON Schema can say is waived for one check only, ``positive_data_acceptance``, on the
operations named in ``SEMANTIC`` (with why): there a schema-valid request may still be refused
with a typed 4xx for a reason that depends on state or cryptography. Every other check runs on
every operation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..daemon import Daemon, run_cli, start_daemon

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
pytestmark = pytest.mark.timeout(900)  # three schemathesis runs against one daemon

OPERATOR = "operator-token-for-the-contract-run"
SEED = 38
MAX_EXAMPLES = 6
#: operations whose body holds a ``filters`` array: the coverage phase (which ignores
#: ``--max-examples`` and generates every boundary case the schema defines) is off for them,
#: because a filter expression holds filter expressions (``all``/``any``/``not``) and seven
#: dialects, and their cases alone outran the run's 600 s; the fuzzing and stateful phases
#: still send them generated bodies (tests/filters and tests/search cover each dialect)
NO_COVERAGE = {
    "/v1/subscriptions$": "POST: filters",
    "/v1/subscriptions/\\{id\\}$": "PATCH: filters",
    "/v1/filters/evaluate$": "filters and an event",
    "/v1/(deliveries|events)/search$": "a search's filters",
    "/v1/replays$": "a replay's search",
}
#: operations where a schema-valid request can be refused for what no schema says
SEMANTIC = {
    "/v1/subscriptions$": "the endpoint must be an https URL whose host and port the egress "
    "rules allow, topics/filter/retry policy are judged together",
    "/v1/subscriptions/\\{id\\}$": "PATCH: the same judgement of a changed configuration",
    "/v1/subscriptions/\\{id\\}/(recover|resume|revoke|suspend)$": "time ranges and states "
    "are judged against the subscription's state",
    "/v1/events(/batch)?$": "a payload must validate against the event type's schema, "
    "aggregate versions against the aggregate's",
    "/v1/event-types/\\{topic\\}$": "a definition's schema must itself be valid JSON Schema "
    "2020-12 and its example valid under it",
    "/v1/receipts$": "a receipt is signed and digested (Content-Digest, Signature)",
    "/v1/consumers/\\{id\\}/portal-sessions$": "a disabled consumer (an earlier case may "
    "disable it) starts no session: 400 consumer_disabled",
    "/v1/rollouts$": "a rollout target must be a usable key or a different profile",
    "/v1/rollouts/\\{id\\}/advance$": "stages advance in order",
    "/v1/consumers$": "a consumer id is the tenant's choice, once",
    "/v1/deliveries$": "the log's filters are judged together (since before until)",
    "/v1/portal/branding$": "the accent colour must keep white text readable (4.5:1), the "
    "logo URL and the frame ancestors must be https origins",
    "/v1/(deliveries|events)/search$": "filters are compiled (CESQL must parse), times are "
    "RFC 3339 with since before until, state and evidence from their sets, a cursor one we "
    "gave; a search no index narrows within its budget is search_too_broad",
    "/v1/replays$": "the same judgement of its search",
    "/v1/replays/\\{id\\}/cancel$": "only a running replay can be cancelled",
    "/v1/subscriptions/\\{id\\}/test-events$": "the topic must be one the endpoint takes, "
    "with a catalogue example, and the endpoint active",
    "/v1/challenges/\\{challengeId\\}/response$": "the answer is a proof over a pending "
    "challenge's nonce",
    "/v1/filters/evaluate$": "a hookproof event is judged as POST /v1/events judges it (an "
    "occurredAt that parses, a printable topic, a URI-reference source), filters nest at most "
    "16 deep",
}
#: the routes only the operator token opens
OPERATOR_PATHS = "^/(metrics|v1/(tenants|rollouts.*|keys/rotate|gates))$"


def _call(base: str, method: str, path: str, token: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base + path, data=data, method=method)
    req.add_header("Authorization", f"Bearer {token}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    with _OPENER.open(req, timeout=30) as r:
        return json.loads(r.read() or b"null")


@pytest.fixture(scope="module")
def world(
    module_db_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Daemon, dict[str, Any]]]:
    folder: Path = tmp_path_factory.mktemp("contract")
    env = {
        "HOOKPROOF_DATABASE_URL": module_db_url,
        "HOOKPROOF_DATA_DIR": str(folder),
        "HOOKPROOF_ADMIN_TOKEN": OPERATOR,
        # no packet leaves: names resolve through a dead loopback port
        "HOOKPROOF_DNS_SERVERS": "127.0.0.1:9",
    }
    created = run_cli(["tenant", "create", "contract", "--json"], env)
    tenant = json.loads(created.stdout.strip().splitlines()[-1])["token"]
    d = start_daemon(env, folder)
    try:
        yield d, _fixtures(d.base_url, tenant)
    finally:
        d.stop()
        log = d.log()
        assert "api_unhandled" not in log, log[-4000:]


def _fixtures(base: str, tenant: str) -> dict[str, Any]:
    """Real objects through the API: what path parameters take half of the time."""
    _call(base, "POST", "/v1/consumers", tenant, {"id": "acme", "name": "Acme"})
    _call(base, "POST", "/v1/consumers", tenant, {"id": "globex", "name": "Globex"})
    _call(
        base,
        "PUT",
        "/v1/event-types/invoice.paid",
        tenant,
        {"description": "paid", "versions": {"1": {"schema": {"type": "object"}, "example": {}}}},
    )
    subs = [
        _call(
            base,
            "POST",
            "/v1/subscriptions",
            tenant,
            {
                "endpoint": f"https://hooks.example.com/{n}",
                "topics": ["invoice.paid"],
                "eventVersions": [1],
                "region": "eu",
                "signatureAlgorithm": "hmac-sha256",
                "owner": "billing",
                "consumerId": consumer,
            },
        )["id"]
        for n, consumer in enumerate(["acme", "acme", None])
    ]
    events, deliveries = [], []
    for n in range(3):
        out = _call(
            base,
            "POST",
            "/v1/events",
            tenant,
            {
                "eventId": f"evt-{n}",
                "topic": "invoice.paid",
                "version": "1.0",
                "aggregateId": "inv-1",
                "aggregateVersion": n + 1,
                "occurredAt": "2026-12-02T06:00:00Z",
                "payload": {"n": n},
                "consumerId": "acme",
            },
        )
        events.append(out["eventId"])
        deliveries += [d["deliveryId"] for d in out["deliveries"]]
    session = _call(base, "POST", "/v1/consumers/acme/portal-sessions", tenant, {})
    return {
        "tenant": tenant,
        "portal": session["token"],
        "subs": subs,
        "events": events,
        # planned only for verified subscriptions (no receiver here): a well-formed id else
        "deliveries": deliveries or ["dlv_" + "0" * 28],
        "sessions": [session["sessionId"]],
        "consumers": ["acme", "globex"],
        "topics": ["invoice.paid"],
    }


def _config(ids: dict[str, Any], token: str) -> str:
    def values(name: str) -> str:
        return json.dumps(ids[name])

    lines = [
        f'headers = {{ Authorization = "Bearer {token}" }}',
        "request-timeout = 120  # a batch of 1,000 events on a loaded 2-core machine",
        "",
        "[checks.missing_required_header]",
        "expected-statuses = [400, 428]  # If-Match missing: 428 Precondition Required",
        "",
        "[generation]",
        'codec = "ascii"',
        "",
    ]
    for name in ("subs", "events", "deliveries", "sessions", "consumers", "topics"):
        lines += [f"[dictionaries.{name}]", f"values = {values(name)}", ""]
    for prefix, param, dictionary in (
        ("^/v1/subscriptions/", "path.id", "subs"),
        ("^/v1/deliveries/", "path.id", "deliveries"),
        ("^/v1/consumers/", "path.id", "consumers"),
        ("^/v1/portal-sessions/", "path.id", "sessions"),
        ("^/v1/events/", "path.eventId", "events"),
        ("^/v1/event-types/", "path.topic", "topics"),
        ("^/v1/(deliveries|attempt-stats)$", "query.subscriptionId", "subs"),
    ):
        lines += [
            "[[operations]]",
            f"include-path-regex = {json.dumps(prefix)}",
            f'parameters = {{ "{param}" = {{ dictionary = "{dictionary}", probability = 0.5 }} }}',
            "",
        ]
    # one [[operations]] block per path pattern, with every setting it takes
    blocks: dict[str, list[str]] = {}
    for pattern, why in NO_COVERAGE.items():
        blocks.setdefault(pattern, []).extend([f"# {why}", "phases.coverage.enabled = false"])
    for pattern, why in SEMANTIC.items():
        blocks.setdefault(pattern, []).extend(
            [f"# {why}", "checks.positive_data_acceptance.enabled = false"]
        )
    for pattern, settings in blocks.items():
        lines += [
            "[[operations]]",
            f"include-path-regex = {json.dumps('^' + pattern)}",
            *settings,
            "",
        ]
    return "\n".join(lines)


def _run(d: Daemon, ids: dict[str, Any], token: str, tmp: Path, *select: str) -> str:
    config = tmp / "schemathesis.toml"
    config.write_text(_config(ids, token))
    cmd = [
        str(Path(sys.executable).with_name("schemathesis")),
        "--config-file",
        str(config),
        "run",
        d.base_url + "/openapi.json",
        "--seed",
        str(SEED),
        "--max-examples",
        str(MAX_EXAMPLES),
        "--no-color",
        *select,
    ]
    root = Path(__file__).resolve().parents[2]
    env = {
        **os.environ,
        "SCHEMATHESIS_HOOKS": "tests.subscriptions.schemathesis_hooks",
        "PYTHONPATH": str(root),
    }
    # run in tmp: schemathesis keeps its cache (.schemathesis/) in the working folder
    done = subprocess.run(
        cmd, capture_output=True, text=True, timeout=600, env=env, check=False, cwd=tmp
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[:8000] + "\n...\n" + out[-8000:]
    return out


def test_tenant_token_all_checks(world: tuple[Daemon, dict[str, Any]], tmp_path: Path) -> None:
    d, ids = world
    out = _run(d, ids, ids["tenant"], tmp_path, "--exclude-path-regex", OPERATOR_PATHS)
    assert "0 failures" in out or "passed" in out, out[-3000:]


def test_operator_token_all_checks(world: tuple[Daemon, dict[str, Any]], tmp_path: Path) -> None:
    d, ids = world
    _run(d, ids, OPERATOR, tmp_path, "--include-path-regex", OPERATOR_PATHS)


def test_portal_token_all_checks(world: tuple[Daemon, dict[str, Any]], tmp_path: Path) -> None:
    """The portal scope's reads (and every route, which it must refuse with 403)."""
    d, ids = world
    _run(d, ids, ids["portal"], tmp_path, "--include-method", "GET")
