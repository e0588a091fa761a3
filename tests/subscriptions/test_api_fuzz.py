"""Fuzz the API from its own OpenAPI document (schemathesis) against a daemon process: no 5xx."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from hookproof.engine.api.openapi import openapi_document

from ..daemon import Daemon, run_cli, start_daemon

schema = schemathesis.openapi.from_dict(openapi_document())


@pytest.fixture(scope="module")
def daemon(
    module_db_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Daemon, str]]:
    folder: Path = tmp_path_factory.mktemp("fuzz")
    env = {"HOOKPROOF_DATABASE_URL": module_db_url, "HOOKPROOF_DATA_DIR": str(folder)}
    created = run_cli(["tenant", "create", "fuzz", "--json"], env)
    token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
    d = start_daemon(env, folder)
    try:
        yield d, token
    finally:
        d.stop()
        log = d.log()
        assert "api_unhandled" not in log, log[-4000:]


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_server_errors(case, daemon) -> None:  # type: ignore[no-untyped-def]
    d, token = daemon
    case.call_and_validate(
        base_url=d.base_url,
        headers={"Authorization": f"Bearer {token}"},
        checks=[not_a_server_error],
        timeout=15,
    )
