"""``projections rebuild --verify`` against a real daemon process: a projector that was behind
is a lag (exit 0, reported as such), never a mismatch; tampering still exits 1 naming the row.

The sequence is the one an incident reviewer runs: register, PATCH, revoke, stop the daemon at
once, verify. Before the fix the stream catalogue lagged the log when the daemon stopped and
``--verify`` exited 1 with ``DIFF stream_id=subscription-... version: live=5 rebuilt=7``.
"""

from __future__ import annotations

import asyncio
import json
import signal
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import asyncpg
import trustme

from ..daemon import free_port, run_cli, start_daemon
from ..live import engine_env

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))

#: enough rounds to have failed on the old main (it failed 5 runs in 6 there)
ROUNDS = 5


def _call(
    method: str, url: str, token: str, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, Any]:
    req = urllib.request.Request(
        url, method=method, data=json.dumps(body).encode() if body is not None else None
    )
    req.add_header("Authorization", f"Bearer {token}")
    req.add_header("Content-Type", "application/json")
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with _OPENER.open(req, timeout=20) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


def _env(db_url: str, tmp: Path, **extra: str) -> tuple[dict[str, str], str]:
    """A daemon allowed to reach only a closed loopback port (its challenges fail at once)."""
    port = free_port()
    env = engine_env(db_url, tmp, port, trustme.CA(), **extra)
    return env, f"https://127.0.0.1:{port}"


def _token(env: dict[str, str]) -> str:
    out = run_cli(["tenant", "create", "acme", "--json"], env)
    assert out.returncode == 0, out.stderr
    return str(json.loads(out.stdout.strip().splitlines()[-1])["token"])


def _register_patch_revoke(base: str, token: str, endpoint: str) -> str:
    status, sub = _call(
        "POST",
        base + "/v1/subscriptions",
        token,
        {
            "endpoint": endpoint + "/in",
            "topics": ["a"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "team",
        },
    )
    assert status == 201, sub
    sid = str(sub["id"])
    status, got = _call(
        "PATCH",
        f"{base}/v1/subscriptions/{sid}",
        token,
        {"endpoint": endpoint + "/moved"},
        {"If-Match": f'"{sub["generation"]}"'},
    )
    assert status == 200, got
    status, got = _call("POST", f"{base}/v1/subscriptions/{sid}/revoke", token)
    assert status == 200 and got["state"] == "REVOKED", got
    return sid


def _verify(env: dict[str, str]) -> tuple[int, list[dict[str, Any]], str]:
    r = run_cli(["projections", "rebuild", "--verify", "--json"], env, timeout=120)
    lines = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    return r.returncode, lines, r.stdout + r.stderr


def test_sigterm_right_after_changes_verifies_clean(db_url_sync: str, tmp_path: Path) -> None:
    """The daemon stopped by SIGTERM right after the last change: its projector reached the
    committed head before it exited, so ``--verify`` finds neither a lag nor a difference."""
    env, endpoint = _env(db_url_sync, tmp_path)
    token = _token(env)
    for _ in range(ROUNDS):
        daemon = start_daemon(env, tmp_path)
        try:
            _register_patch_revoke(daemon.base_url, token, endpoint)
        finally:
            assert daemon.stop(signal.SIGTERM) == 0, daemon.log()
        assert "projector_settled" in daemon.log()
        code, lines, out = _verify(env)
        assert code == 0, out
        assert all(not line["differences"] for line in lines), out
        catalogue = next(line for line in lines if line["projection"] == "stream_catalogue")
        assert catalogue["lag"]["events"] == 0, out


def test_a_projector_behind_is_a_lag_not_a_mismatch(db_url_sync: str, tmp_path: Path) -> None:
    """No projector in the daemon (role off), then a daemon killed outright: the stream
    catalogue is behind the log. ``--verify`` applies what it had not, says how much (LAG),
    then compares: exit 0, never DIFF."""
    env, endpoint = _env(db_url_sync, tmp_path)
    token = _token(env)
    no_projector = {**env, "HOOKPROOF_ROLES": "api,dispatcher,scheduler"}
    daemon = start_daemon(no_projector, tmp_path)
    try:
        _register_patch_revoke(daemon.base_url, token, endpoint)
    finally:
        assert daemon.stop(signal.SIGTERM) == 0, daemon.log()
    code, lines, out = _verify(env)
    assert code == 0, out
    assert all(not line["differences"] for line in lines), out
    catalogue = next(line for line in lines if line["projection"] == "stream_catalogue")
    # what the projector had not applied is applied first and reported, then compared
    assert catalogue["caughtUp"] > 0, out
    assert catalogue["lag"]["events"] == 0, out
    assert catalogue["lag"]["checkpoint"] == catalogue["lag"]["head"], out
    # the attempt statistics are kept by the projector too: caught up the same way
    stats = next(line for line in lines if line["projection"] == "attempt_stats")
    assert stats["caughtUp"] > 0 and stats["lag"]["checkpoint"] == stats["lag"]["head"], out
    asynchronous = (catalogue, stats)
    assert all(line["lag"] is None for line in lines if line not in asynchronous), out
    daemon = start_daemon(no_projector, tmp_path)  # behind again, for the text output
    try:
        _register_patch_revoke(daemon.base_url, token, endpoint)
    finally:
        assert daemon.stop(signal.SIGTERM) == 0, daemon.log()
    plain = run_cli(["projections", "rebuild", "--verify"], env, timeout=120)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert "DIFF" not in plain.stdout
    lags = [x for x in plain.stdout.splitlines() if "LAG" in x]
    assert len(lags) == 2, plain.stdout  # the stream catalogue and the attempt statistics
    for lag in lags:
        assert "event(s) behind the log: applied them before comparing" in lag, plain.stdout

    daemon = start_daemon(env, tmp_path)  # a projector again, then changes, then SIGKILL
    try:
        _register_patch_revoke(daemon.base_url, token, endpoint)
    finally:
        daemon.stop(signal.SIGKILL)
    code, lines, out = _verify(env)
    assert code == 0, out
    assert all(not line["differences"] for line in lines), out


def test_tampering_while_behind_still_fails(db_url_sync: str, tmp_path: Path) -> None:
    """An UPDATE to a projection row is a difference even when the projector is behind: exit
    1, the row named."""
    env, endpoint = _env(db_url_sync, tmp_path, HOOKPROOF_ROLES="api,dispatcher,scheduler")
    token = _token(env)
    with_projector = {**env, "HOOKPROOF_ROLES": "api,dispatcher,projector,scheduler"}
    daemon = start_daemon(with_projector, tmp_path)
    try:
        first = _register_patch_revoke(daemon.base_url, token, endpoint)
    finally:
        assert daemon.stop(signal.SIGTERM) == 0, daemon.log()
    daemon = start_daemon(env, tmp_path)  # no projector: what follows is a lag
    try:
        _register_patch_revoke(daemon.base_url, token, endpoint)
    finally:
        assert daemon.stop(signal.SIGTERM) == 0, daemon.log()

    async def tamper() -> None:
        conn = await asyncpg.connect(db_url_sync)
        try:
            done = await conn.execute(
                "UPDATE proj_stream_catalogue SET version = version + 40 WHERE stream_id = $1",
                f"subscription-{first}",
            )
            assert done == "UPDATE 1"
        finally:
            await conn.close()

    asyncio.run(tamper())
    code, lines, out = _verify(env)
    assert code == 1, out
    catalogue = next(line for line in lines if line["projection"] == "stream_catalogue")
    assert catalogue["caughtUp"] > 0, out  # behind, and caught up before comparing
    [diff] = catalogue["differences"]
    assert diff.startswith(f"stream_id=subscription-{first} version: live="), out
    r = run_cli(["projections", "rebuild", "--verify"], env, timeout=120)
    assert r.returncode == 1
    assert f"DIFF stream_id=subscription-{first} version: live=" in r.stdout, r.stdout
