"""``hookproof rollout ...``, ``hookproof audit rollout ID`` and ``hookproof gates`` against a
real database, through the real command parser."""

from __future__ import annotations

import base64
import json
import secrets
from pathlib import Path

import asyncpg
import msgspec
import pytest

from hookproof.config import Settings
from hookproof.engine.cli import build_parser
from hookproof.engine.recording.registry import inline_hooks
from hookproof.engine.subscriptions import SubscriptionService
from hookproof.events import EventStore
from hookproof.schemas.api import SubscriptionCreate


@pytest.fixture
def cli_settings(db_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=db_url,
        data_dir=tmp_path,
        master_key_b64=base64.urlsafe_b64encode(secrets.token_bytes(32)).decode(),
    )


async def run(settings: Settings, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    args = build_parser().parse_args(list(argv))
    code = await args.handler(args, settings)
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if "[info " not in ln and "[warning" not in ln]
    return f"{code}\n" + "\n".join(lines)


async def test_rollout_cli_stage_by_stage_with_audit_and_gates(
    pool: asyncpg.Pool, cli_settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    subs = SubscriptionService(EventStore(pool, inline=inline_hooks()), cli_settings)
    ids = []
    for i in range(3):
        body = {
            "endpoint": f"https://hooks{i}.example.com/x",
            "topics": ["t"],
            "eventVersions": [1],
            "region": "eu",
            "signatureAlgorithm": "ed25519",
            "owner": "o",
            "signatureProfile": "standard-webhooks.v1",
        }
        state, _ = await subs.register(
            "ten_1", msgspec.convert(body, SubscriptionCreate), actor="t"
        )
        ids.append(state.subscription_id)
    out = await run(
        cli_settings,
        capsys,
        "rollout",
        "create",
        "--profile",
        "hookproof.sig.v1",
        "--internal",
        ids[0],
        "--json",
    )
    code, doc = out.split("\n", 1)
    ro = json.loads(doc.splitlines()[-1])
    assert code == "0" and ro["stage"] == "SHADOW" and ro["internalSubscriptions"] == [ids[0]]
    rid = ro["id"]
    assert (
        await run(cli_settings, capsys, "rollout", "advance", rid, "--stage", "INTERNAL")
    ).startswith("0")
    text = await run(
        cli_settings, capsys, "rollout", "advance", rid, "--stage", "CUTOVER", "--percent", "100"
    )
    assert "CUTOVER 100%" in text and "switched 3/3" in text
    text = await run(cli_settings, capsys, "rollout", "pause", rid)
    assert "PAUSED (operator)" in text
    text = await run(cli_settings, capsys, "rollout", "resume", rid)
    assert "RUNNING" in text
    text = await run(cli_settings, capsys, "rollout", "status")
    assert rid in text and "SHADOW" in text and "INTERNAL" in text
    text = await run(cli_settings, capsys, "audit", "rollout", rid)
    assert "SHADOW -> INTERNAL" in text and "INTERNAL -> CUTOVER 100%" in text
    assert "paused: operator" in text and "resumed" in text
    text = await run(cli_settings, capsys, "gates", "--json")
    gates = json.loads(text.split("\n", 1)[1].splitlines()[-1])["gates"]
    [gate] = [g for g in gates if g["gate"] == f"rollout:{rid}"]
    assert gate["status"] == "n/a"  # no attempts judged yet; nothing violated
    assert gate["detail"]["stage"] == "CUTOVER"
    text = await run(cli_settings, capsys, "rollout", "rollback", rid)
    assert "ROLLED_BACK" in text
