"""Two ``serve`` worker processes (SO_REUSEPORT) on one database: a type changed through one
connection judges the next events in both workers. Each request opens its own connection, so
the kernel spreads them over the workers (40 requests all on one worker: about 2^-39); both
workers judge under the first definition before the change and under the second after it."""

from __future__ import annotations

import copy
import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.daemon import run_cli, start_daemon

from .conftest import ORDER_EXAMPLE, ORDER_SCHEMA, order, order_type

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _call(base: str, method: str, path: str, token: str, body: Any) -> tuple[int, Any]:
    req = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        method=method,
        headers={
            "Authorization": f"Bearer {token}",
            "Content-Type": "application/json",
            "Connection": "close",
        },
    )
    try:
        with _OPENER.open(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_two_worker_processes_judge_by_the_current_definition(
    db_url_sync: str, tmp_path: Path
) -> None:
    env = {
        "HOOKPROOF_DATABASE_URL": db_url_sync,
        "HOOKPROOF_DATA_DIR": str(tmp_path),
        "HOOKPROOF_WORKERS": "2",
        "HOOKPROOF_ROLES": "api",
    }
    created = run_cli(["tenant", "create", "acme", "--json"], env)
    token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
    d = start_daemon(env, tmp_path)
    try:
        deadline = time.monotonic() + 30
        while "workers_ready" not in d.log() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "workers_ready" in d.log(), d.log()[-2000:]
        loose = copy.deepcopy(ORDER_SCHEMA)
        loose["properties"]["currency"] = {"type": "string"}
        body = order_type(versions={"1": {"schema": loose, "example": ORDER_EXAMPLE}})
        status, doc = _call(d.base_url, "PUT", "/v1/event-types/order.created", token, body)
        assert status == 200, doc
        chf = {**ORDER_EXAMPLE, "currency": "CHF"}
        for i in range(40):  # every worker compiles and caches the loose definition
            status, doc = _call(d.base_url, "POST", "/v1/events", token, order(f"a{i}", chf))
            assert status == 202, doc

        status, doc = _call(d.base_url, "PUT", "/v1/event-types/order.created", token, order_type())
        assert status == 200 and doc["version"] == 2, doc
        for i in range(40):  # no worker judges by the definition it had cached
            status, doc = _call(d.base_url, "POST", "/v1/events", token, order(f"b{i}", chf))
            assert status == 400 and doc["code"] == "payload_schema_invalid", (i, doc)
            assert doc["errors"][0]["pointer"] == "/currency"
    finally:
        d.stop()
    assert "api_unhandled" not in d.log()
