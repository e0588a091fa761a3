"""Issue 32, point 3: schema work priced by what it costs, against a real ``hookproof serve``.

``[ab]*a[ab]{600}c`` was accepted in a definition and took ~1.2 s to validate one 250 KB
payload, twice for a refused one, on the event loop, inside ingest's group transaction
(``/healthz`` stalled 3.5 s). Now: the definition is refused (``pattern_too_complex``); a type
stored before this bound still judges, but its payloads are priced by what the regex costs
(``payload_too_complex`` at once for the 250 KB ones) and those within the price are validated
off the loop, outside the group's transaction, within a deadline. ``/healthz`` is probed on
fresh connections all along. A refused event writes nothing.
"""

from __future__ import annotations

import asyncio
import json
import random
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg

from hookproof.engine.event_types.decide import Define, decide
from hookproof.engine.event_types.definition import digest_of
from hookproof.engine.recording.registry import inline_hooks
from hookproof.events import NO_STREAM, EventStore, Metadata, StreamAppend
from hookproof.events.event_type_events import event_type_stream_id
from tests.api.hostile_client import HealthProbe
from tests.daemon import Daemon, run_cli, start_daemon

HOSTILE = "[ab]*a[ab]{600}c"
SCHEMA = {
    "type": "object",
    "required": ["s"],
    "properties": {"s": {"type": "string", "pattern": HOSTILE}},
}
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def _call(base: str, method: str, path: str, token: str, body: Any = None) -> tuple[int, Any]:
    req = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode() if body is not None else None,
        method=method,
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
    )
    try:
        with _OPENER.open(req, timeout=60) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _event(event_id: str, s: str, topic: str = "legacy.hostile") -> dict[str, Any]:
    return {
        "eventId": event_id,
        "topic": topic,
        "version": "1.0",
        "aggregateId": "a",
        "aggregateVersion": 1,
        "occurredAt": "2026-11-30T10:00:00Z",
        "payload": {"s": s},
    }


async def _store_legacy_type(db_url: str, tenant_id: str, topic: str) -> None:
    """Write the hostile type as one defined before this bound existed: straight to the log
    (the real store and its inline projection), past the definition's checks."""
    pool = await asyncpg.create_pool(db_url, min_size=1, max_size=2)
    try:
        store = EventStore(pool, inline=inline_hooks())  # the catalogue row kept inline
        versions = {"1": (SCHEMA, {"s": "a" + "b" * 600 + "c"})}
        digest = digest_of("legacy", versions, False)
        at = datetime.now(UTC).isoformat()
        events = decide(None, Define(tenant_id, topic, "legacy", versions, False, digest, at))
        stream = event_type_stream_id(tenant_id, topic)
        await store.append([StreamAppend(stream, events, NO_STREAM, Metadata(actor="test"))])
    finally:
        await pool.close()


def _serve(db_url: str, tmp_path: Path, **extra: str) -> tuple[Daemon, str, str]:
    env = {
        "HOOKPROOF_DATABASE_URL": db_url,
        "HOOKPROOF_DATA_DIR": str(tmp_path),
        "HOOKPROOF_ROLES": "api",
        **extra,
    }
    created = run_cli(["tenant", "create", "acme", "--json"], env)
    assert created.returncode == 0, created.stderr
    doc = json.loads(created.stdout.strip().splitlines()[-1])
    return start_daemon(env, tmp_path), doc["tenantId"], doc["token"]


def test_a_hostile_regex_type_stalls_nothing(db_url_sync: str, tmp_path: Path) -> None:
    daemon, tenant_id, token = _serve(db_url_sync, tmp_path)
    try:
        base = daemon.base_url
        example = {"s": "a" + "b" * 600 + "c"}  # valid: the old code accepted the type
        body = {"description": "x", "versions": {"1": {"schema": SCHEMA, "example": example}}}
        status, doc = _call(base, "PUT", "/v1/event-types/hostile", token, body)
        assert (status, doc.get("code")) == (400, "pattern_too_complex"), doc
        assert doc["field"] == "versions.1.schema" and doc["positions"] == 603, doc
        assert _call(base, "GET", "/v1/event-types/hostile", token)[0] == 404

        asyncio.run(_store_legacy_type(db_url_sync, tenant_id, "legacy.hostile"))
        rng = random.Random(32)
        big = "".join(rng.choice("ab") for _ in range(250_000))
        with HealthProbe(base, every_s=0.01) as probe, ThreadPoolExecutor(3) as pool:
            refused = list(
                pool.map(
                    lambda i: _call(base, "POST", "/v1/events", token, _event(f"big-{i}", big)),
                    range(3),
                )
            )
            # within the price: validated in the validation process, outside the group
            small_bad = _call(base, "POST", "/v1/events", token, _event("small-bad", big[:900]))
            small_ok = _call(
                base, "POST", "/v1/events", token, _event("small-ok", "a" + "b" * 600 + "c")
            )
            batch = _call(
                base,
                "POST",
                "/v1/events/batch",
                token,
                {
                    "events": [
                        _event("b-bad", big[:900]),
                        _event("b-ok", "ba" + "b" * 600 + "c"),
                        _event("b-big", big),
                    ]
                },
            )
        for status, doc in refused:
            assert (status, doc["code"]) == (400, "payload_too_complex"), doc
        assert small_bad[0] == 400 and small_bad[1]["code"] == "payload_schema_invalid"
        assert small_bad[1]["errors"][0]["pointer"] == "/s", small_bad
        assert small_ok[0] == 202, small_ok
        assert batch[0] == 200, batch
        codes = [(r["status"], r.get("problem", {}).get("code")) for r in batch[1]["results"]]
        assert codes == [(400, "payload_schema_invalid"), (202, None), (400, "payload_too_complex")]
        # a refused event wrote nothing; the accepted ones are there
        for event_id in ("big-0", "big-1", "big-2", "small-bad", "b-bad", "b-big"):
            assert _call(base, "GET", f"/v1/events/{event_id}", token)[0] == 404, event_id
        for event_id in ("small-ok", "b-ok"):
            assert _call(base, "GET", f"/v1/events/{event_id}", token)[0] == 200, event_id
        assert probe.results and not probe.failures, probe.failures
        print(f"healthz: {len(probe.results)} probes, worst {probe.worst_s * 1000:.1f} ms")
    finally:
        daemon.stop()
    log = daemon.log()
    assert "api_unhandled" not in log
    assert "schema_validator_started" in log  # the dear ones went to the validation process


def test_a_validation_past_its_deadline_is_refused(db_url_sync: str, tmp_path: Path) -> None:
    daemon, tenant_id, token = _serve(db_url_sync, tmp_path, HOOKPROOF_SCHEMA_DEADLINE_MS="1")
    try:
        asyncio.run(_store_legacy_type(db_url_sync, tenant_id, "legacy.hostile"))
        rng = random.Random(7)
        payload = "".join(rng.choice("ab") for _ in range(1_200))
        status, doc = _call(daemon.base_url, "POST", "/v1/events", token, _event("late", payload))
        assert (status, doc["code"]) == (400, "payload_too_complex"), doc
        assert "longer than 1 ms" in doc["detail"], doc
        assert _call(daemon.base_url, "GET", "/v1/events/late", token)[0] == 404
    finally:
        daemon.stop()
    assert "schema_validator_killed" in daemon.log()
