"""The daemon as a real process: start, register, read, SIGTERM, restart, state intact."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

from ..daemon import run_cli, start_daemon

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def call(method: str, url: str, token: str, body: dict | None = None) -> tuple[int, dict]:  # type: ignore[type-arg]
    req = urllib.request.Request(
        url, method=method, data=json.dumps(body).encode() if body else None
    )
    req.add_header("Authorization", f"Bearer {token}")
    req.add_header("Content-Type", "application/json")
    try:
        with _OPENER.open(req, timeout=10) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def test_daemon_restart_keeps_state(db_url_sync: str, tmp_path: Path) -> None:
    env = {"HOOKPROOF_DATABASE_URL": db_url_sync, "HOOKPROOF_DATA_DIR": str(tmp_path)}
    created = run_cli(["tenant", "create", "acme", "--json"], env)
    assert created.returncode == 0, created.stderr
    token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
    plain = run_cli(["tenant", "create", "other"], env)
    assert plain.stdout.strip().splitlines()[-1].startswith("hp_")

    daemon = start_daemon(env, tmp_path)
    try:
        status, sub = call(
            "POST",
            daemon.base_url + "/v1/subscriptions",
            token,
            {
                "endpoint": "https://hooks.example.com/in",
                "topics": ["a"],
                "eventVersions": [1],
                "region": "eu",
                "signatureAlgorithm": "ed25519",
                "owner": "team",
            },
        )
        assert status == 201, sub
    finally:
        assert daemon.stop() == 0, daemon.log()
    assert "serve_stopped" in daemon.log()

    again = start_daemon(env, tmp_path)
    try:
        status, got = call("GET", f"{again.base_url}/v1/subscriptions/{sub['id']}", token)
        assert status == 200
        assert (got["id"], got["generation"], got["state"], got["endpointDigest"]) == (
            sub["id"],
            1,
            "PENDING_CHALLENGE",
            sub["endpointDigest"],
        )
    finally:
        assert again.stop() == 0
