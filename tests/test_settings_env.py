"""Every environment variable is read through ``Settings`` (hookproof/config.py)."""

from __future__ import annotations

import ast
from pathlib import Path

from hookproof.config import Settings

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / d for d in ("engine", "events", "projections", "schemas", "hookproof")]


def test_no_environment_read_outside_settings() -> None:
    found = []
    for folder in SOURCES:
        for path in sorted(folder.rglob("*.py")):
            if path == ROOT / "hookproof" / "config.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                text = ast.unparse(node) if isinstance(node, ast.Attribute) else ""
                if text in ("os.environ", "os.getenv", "os.environb"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert found == []


def test_tokens_and_switches_are_read_when_used() -> None:
    env = {"HOOKPROOF_ROLES": "api, dispatcher"}
    settings = Settings.from_env(env)
    assert settings.roles == frozenset({"api", "dispatcher"})
    assert settings.admin_token is None
    env["HOOKPROOF_ADMIN_TOKEN"] = "rotated"
    assert settings.admin_token == "rotated"
    env["HOOKPROOF_PUBLIC_URL"] = "https://engine.example/"
    assert settings.receipts_url == "https://engine.example/v1/receipts"


def test_token_cache_is_capped_so_a_revoked_token_stops_within_a_minute() -> None:
    def cache_s(value: str) -> float:
        return Settings.from_env({"HOOKPROOF_TOKEN_CACHE_S": value}).token_cache_s

    assert cache_s("2.5") == 2.5
    assert cache_s("1e9") == cache_s("inf") == 60.0
    assert cache_s("-3") == cache_s("nan") == 0.0
    assert Settings.from_env({}).token_cache_s == 1.0
