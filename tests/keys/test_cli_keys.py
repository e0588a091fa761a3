"""``hookproof keys ...`` against a real database, with and without --json."""

from __future__ import annotations

import argparse
import base64
import json
import secrets
from pathlib import Path

import pytest

from hookproof.config import Settings
from hookproof.engine.cli import keys as cli_keys


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hookproof")
    sub = parser.add_subparsers(dest="command", required=True)

    def add_json(p: argparse.ArgumentParser) -> None:
        p.add_argument("--json", action="store_true")

    cli_keys.register(sub, add_json)
    return parser


@pytest.fixture
def cli_settings(db_url: str, tmp_path: Path) -> Settings:
    return Settings(
        database_url=db_url,
        data_dir=tmp_path,
        master_key_b64=base64.urlsafe_b64encode(secrets.token_bytes(32)).decode(),
    )


async def run(settings: Settings, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    args = _parser().parse_args(["keys", *argv])
    assert await args.handler(args, settings) == 0
    out = capsys.readouterr().out
    # structlog's default logger writes to stdout until the CLI routes it to stderr: keep only
    # the command's own output (the --json document is the last line).
    lines = [ln for ln in out.splitlines() if "[info " not in ln and "[warning" not in ln]
    return "\n".join(lines) + "\n"


async def test_keys_cli_life_cycle(
    cli_settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    assert json.loads(await run(cli_settings, capsys, "list", "--json")) == {"keys": []}
    first = json.loads(await run(cli_settings, capsys, "create", "--json"))
    assert first["state"] == "ACTIVE" and first["keyGeneration"] == 1
    again = json.loads(await run(cli_settings, capsys, "create", "--json"))
    assert again["keyId"] == first["keyId"]
    nxt = json.loads(
        await run(cli_settings, capsys, "rotate", "--publish-only", "--json", "--actor", "ops:bob")
    )
    assert nxt["state"] == "NOT_BEFORE" and nxt["keyGeneration"] == 2
    promoted = json.loads(await run(cli_settings, capsys, "promote", "--json"))
    assert promoted["keyId"] == nxt["keyId"] and promoted["state"] == "ACTIVE"
    listed = json.loads(await run(cli_settings, capsys, "list", "--json"))["keys"]
    assert {k["keyId"]: k["state"] for k in listed} == {
        first["keyId"]: "VERIFY_ONLY",
        nxt["keyId"]: "ACTIVE",
    }
    assert all("secret" not in json.dumps(k).lower() for k in listed)
    back = json.loads(await run(cli_settings, capsys, "rollback", first["keyId"], "--json"))
    assert back["state"] == "ACTIVE"
    assert json.loads(await run(cli_settings, capsys, "retire", "--json")) == {"keys": []}
    report = json.loads(await run(cli_settings, capsys, "compromise", first["keyId"], "--json"))
    assert report["signingPaused"] is True and report["previousState"] == "ACTIVE"
    destroyed = json.loads(await run(cli_settings, capsys, "destroy", first["keyId"], "--json"))
    assert destroyed["materialDestroyedAt"] is not None
    text = await run(cli_settings, capsys, "list")
    assert first["keyId"] in text and "compromised" in text and "material destroyed" in text


async def test_keys_cli_refusals(
    cli_settings: Settings, capsys: pytest.CaptureFixture[str]
) -> None:
    from hookproof.engine.keys import KeyTransitionForbidden

    first = json.loads(await run(cli_settings, capsys, "create", "--json"))
    with pytest.raises(KeyTransitionForbidden) as info:
        await run(cli_settings, capsys, "destroy", first["keyId"])
    assert info.value.code == "destroy_refused"
    with pytest.raises(KeyTransitionForbidden) as info:
        await run(cli_settings, capsys, "rollback", first["keyId"])
    assert info.value.code == "rollback_refused"


async def test_states_diagram(cli_settings: Settings, capsys: pytest.CaptureFixture[str]) -> None:
    out = await run(cli_settings, capsys, "states")
    assert "stateDiagram-v2" in out and "VERIFY_ONLY --> ACTIVE: rollback" in out
