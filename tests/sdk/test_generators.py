"""Issue 49 item 4: four generators turn the engine's ``/openapi.json`` into clients that a
sender uses as they are. Each generator (openapi-python-client 0.29.1, openapi-typescript
7.13 with default options + openapi-fetch, OpenAPI Generator 7.26 ``python`` and
``typescript-fetch``, its jar from the ``openapi-generator-cli`` package) generates into a
temporary folder once per session; the client is type-checked or compiled (mypy --strict,
tsc --strict, byte-compiled and imported), then a user's program built only on it
(tests/sdk/generators/) runs issue 49's sender scenario against a real ``hookproof serve`` and a
real HTTPS receiver (trustme): event types, a consumer, a subscription made ACTIVE and changed
with ``If-Match`` from its ``ETag`` (the same ETag again: 412), single and batch publishes (the
same event twice: not a conflict), the delivery log paged with filters, a delivery and its
attempts, a portal session, a dead letter replayed and another recovered, and the problems
409 ``event_payload_conflict``, 404, 400.

Without java or node (or clients/typescript's ``npm ci``) a test skips and says why; with
``HOOKPROOF_REQUIRE_GENERATORS`` set (``.ci/run`` sets it) it fails instead. Every generator's
output is used as it is: openapi-typescript's default options (no member is required for
having a default: the document says ``x-default``), typescript-fetch compiling with no error
(tagged unions are ``oneOf`` with a discriminator), OpenAPI Generator python's times sent as
it formats them (``+0000``: the engine takes an offset without its colon)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import trustme

from hookproof.engine.api.openapi import openapi_document

from ..delivery.conftest import Subscriber, ca
from ..live import engine_env, new_tenant, start, stop
from .test_typescript_client import receiver_on

__all__ = ["ca"]

#: generating (java, node) and two tsc runs come before a scenario: more than the usual 120 s
pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent / "generators"
TS = ROOT / "clients" / "typescript"
TSC = TS / "node_modules" / "typescript" / "bin" / "tsc"
OPENAPI_TS = TS / "node_modules" / "openapi-typescript" / "bin" / "cli.js"
REQUIRED = bool(os.environ.get("HOOKPROOF_REQUIRE_GENERATORS"))


def unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(reason + " and HOOKPROOF_REQUIRE_GENERATORS is set")
    pytest.skip(reason)


def run(cmd: list[str], cwd: Path, what: str, timeout: float = 300) -> str:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"{what} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout


@pytest.fixture(scope="session")
def document(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("openapi") / "openapi.json"
    path.write_text(json.dumps(openapi_document()))
    return path


@pytest.fixture(scope="session")
def node_modules() -> Path:
    if shutil.which("node") is None:
        unavailable("node is not installed")
    if not TSC.exists() or not OPENAPI_TS.exists():
        unavailable("clients/typescript is not installed: `npm ci` there (.ci/run does)")
    return TS / "node_modules"


@pytest.fixture(scope="session")
def og_jar() -> list[str]:
    """The command of OpenAPI Generator's CLI: java and the jar the package ships."""
    if shutil.which("java") is None:
        unavailable("java (17+) is not installed")
    try:
        import openapi_generator_cli
    except ImportError:
        unavailable("the openapi-generator-cli package is not installed")
    jar = Path(openapi_generator_cli.__file__).parent / "openapi-generator.jar"
    if not jar.exists():
        unavailable(f"{jar} is missing")
    return ["java", "-jar", str(jar)]


class FirstTryFails(Subscriber):
    """The delivery receiver of tests/delivery; on ``flaky`` each event's first delivery gets
    a 500 (a dead letter under ``maxAttempts: 1``) and every later one is accepted."""

    async def handle(self, request: Any) -> Any:
        path = request.path.strip("/")
        if path.startswith("flaky"):
            body = await request.read()
            seen = {r.body for r in self.deliveries(path)}
            self.modes[path] = "ok" if body in seen else "fail500"
        return await super().handle(request)


@pytest.fixture
async def engine(
    db_url: str, tmp_path: Path, ca: trustme.CA
) -> AsyncIterator[tuple[dict[str, str], FirstTryFails]]:
    async with receiver_on(FirstTryFails(), ca) as sub:
        env = engine_env(db_url, tmp_path, sub.port, ca)
        daemon = await start(env, tmp_path)
        try:
            _, token = await new_tenant(env, "acme")
            yield (
                {
                    "HOOKPROOF_URL": daemon.base_url,
                    "HOOKPROOF_TOKEN": token,
                    "OK_ENDPOINT": sub.url("ok"),
                    "FLAKY_ENDPOINT": sub.url("flaky"),
                },
                sub,
            )
        finally:
            await stop(daemon)


class ScenarioFailed(AssertionError):
    """The user's program exited with an error (its output in the message)."""


async def scenario(cmd: list[str], env: dict[str, str], cwd: Path) -> dict[str, Any]:
    proc = await asyncio.create_subprocess_exec(
        *cmd,
        cwd=cwd,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={"PATH": os.environ.get("PATH", ""), **env},
    )
    try:
        async with asyncio.timeout(240):
            out, err = await proc.communicate()
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    lines = out.decode().strip().splitlines()
    if proc.returncode != 0 or not lines:
        raise ScenarioFailed(f"exit {proc.returncode}\n{out.decode()}\n{err.decode()[-4000:]}")
    report: dict[str, Any] = json.loads(lines[-1])
    return report


def check(report: dict[str, Any], sub: Subscriber, run: str = "") -> None:
    """What every generated client's scenario must have seen, checked against the receiver
    (``run``: the suffix of a second run's consumer and receiver paths)."""
    assert report["eventTypes"] == ["order.created", "order.failed"]
    assert report["consumer"] == "cust-g" + run
    patch = report["patch"]
    assert patch["after"] == patch["before"] + 1
    assert patch["etagBefore"] == f'"{patch["before"]}"'
    assert patch["etagAfter"] == f'"{patch["after"]}"'
    assert patch["stale"] == {"status": 412, "code": "generation_mismatch", "field": None}
    published = report["published"]
    assert len(set(published)) == 3 and report["again"] is False
    pages = report["logPages"]
    assert len(pages) == 3 and all(len(p) == 1 for p in pages)
    assert {e for p in pages for e in p} == set(published)
    assert {json.loads(r.body)["eventId"] for r in sub.deliveries("ok" + run)} == set(published)
    assert report["delivery"]["state"] == "ENDPOINT_ACCEPTED"
    assert report["delivery"]["attempts"] >= 1
    assert report["portalSession"].startswith("ps_")
    dead = report["dead"]
    assert report["dead"]["recovered"] == dead["ids"][1:]
    assert len(sub.deliveries("flaky" + run)) == 4  # two refused, one replayed, one recovered
    problems = report["problems"]
    assert problems["conflict"]["status"] == 409
    assert problems["conflict"]["code"] == "event_payload_conflict"
    assert problems["notFound"]["status"] == 404
    assert problems["invalid"]["status"] == 400
    assert problems["invalid"]["field"] in ("id", "state")


@pytest.fixture(scope="session")
def opc_client(document: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """openapi-python-client (pinned in pyproject.toml): package ``hp_opc``, type-checked
    with the user's program by mypy --strict."""
    out = tmp_path_factory.mktemp("opc")
    config = out / "config.yaml"
    config.write_text("project_name_override: hp-opc\npackage_name_override: hp_opc\n")
    gen = Path(sys.executable).parent / "openapi-python-client"
    log = run(
        [
            str(gen),
            "generate",
            "--path",
            str(document),
            "--config",
            str(config),
            "--meta",
            "none",
            "--output-path",
            str(out / "hp_opc"),
        ],
        out,
        "openapi-python-client",
    )
    assert "warning" not in log.lower(), log
    shutil.copy(HERE / "scenario_opc.py", out / "scenario.py")
    run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "scenario.py"],
        out,
        "mypy --strict of the user's program and the generated client",
    )
    return out


async def test_openapi_python_client(
    opc_client: Path, engine: tuple[dict[str, str], FirstTryFails]
) -> None:
    env, sub = engine
    report = await scenario([sys.executable, "scenario.py"], env, opc_client)
    check(report, sub)


@pytest.fixture(scope="session")
def og_python(document: Path, og_jar: list[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """OpenAPI Generator ``python``: package ``hp_og``, byte-compiled and imported."""
    out = tmp_path_factory.mktemp("og-python")
    run(
        [
            *og_jar,
            "generate",
            "-g",
            "python",
            "-i",
            str(document),
            "-o",
            str(out),
            "--package-name",
            "hp_og",
        ],
        out,
        "OpenAPI Generator python",
    )
    run([sys.executable, "-m", "compileall", "-q", "hp_og"], out, "compileall hp_og")
    shutil.copy(HERE / "scenario_og_python.py", out / "scenario.py")
    run(
        [
            sys.executable,
            "-c",
            "import hp_og, py_compile; py_compile.compile('scenario.py', doraise=True)",
        ],
        out,
        "importing the client, compiling the user's program",
    )
    return out


async def test_openapi_generator_python(
    og_python: Path, engine: tuple[dict[str, str], FirstTryFails]
) -> None:
    env, sub = engine
    report = await scenario([sys.executable, "scenario.py"], env, og_python)
    check(report, sub)


TSCONFIG = {
    "compilerOptions": {
        "target": "ES2022",
        "module": "NodeNext",
        "moduleResolution": "NodeNext",
        "lib": ["ES2022", "DOM"],
        "types": [],
        "strict": True,
        "noUncheckedIndexedAccess": True,
        "skipLibCheck": True,
        "outDir": "dist",
    },
}


def node_project(out: Path, node_modules: Path, include: list[str], **options: Any) -> None:
    """*out* as an ES-module TypeScript project on clients/typescript's pinned packages."""
    (out / "node_modules").symlink_to(node_modules, target_is_directory=True)
    (out / "package.json").write_text(json.dumps({"type": "module", "private": True}))
    compiler = {**TSCONFIG["compilerOptions"], **options}
    (out / "tsconfig.json").write_text(
        json.dumps({"compilerOptions": compiler, "include": include})
    )


def test_the_user_file_calls_every_operation(document: Path) -> None:
    """generators/every_operation.ts (compiled with the openapi-typescript client) calls each
    operation of the document once."""
    doc = json.loads(document.read_text())
    ops = sorted(
        (method.upper(), path)
        for path, item in doc["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    )
    text = (HERE / "every_operation.ts").read_text()
    called = sorted(re.findall(r'api\.(GET|POST|PUT|PATCH|DELETE)\("([^"]+)"', text))
    assert called == ops


@pytest.fixture(scope="session")
def openapi_ts(
    document: Path, node_modules: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """openapi-typescript (clients/typescript's pin) with its default options, and the user's
    program on openapi-fetch (the scenario, and a file calling every operation), compiled by
    tsc --strict."""
    out = tmp_path_factory.mktemp("openapi-ts")
    node_project(out, node_modules, ["*.ts"])
    shutil.copy(HERE / "scenario_openapi_ts.ts", out / "scenario.ts")
    shutil.copy(HERE / "every_operation.ts", out / "every_operation.ts")
    run(["node", str(OPENAPI_TS), str(document), "-o", "openapi.ts"], out, "openapi-typescript")
    run(["node", str(TSC), "-p", "tsconfig.json"], out, "tsc of the user's program")
    return out


async def test_openapi_typescript(
    openapi_ts: Path, engine: tuple[dict[str, str], FirstTryFails]
) -> None:
    env, sub = engine
    report = await scenario(["node", "dist/scenario.js"], env, openapi_ts)
    check(report, sub)


@pytest.fixture(scope="session")
def ts_fetch(
    document: Path,
    og_jar: list[str],
    node_modules: Path,
    tmp_path_factory: pytest.TempPathFactory,
) -> Path:
    """OpenAPI Generator ``typescript-fetch`` (ES modules: ``importFileExtension=.js``) and the
    user's program, compiled by tsc --strict with no error."""
    out = tmp_path_factory.mktemp("ts-fetch")
    run(
        [
            *og_jar,
            "generate",
            "-g",
            "typescript-fetch",
            "-i",
            str(document),
            "-o",
            str(out / "client"),
            "--additional-properties=importFileExtension=.js,supportsES6=true",
        ],
        out,
        "OpenAPI Generator typescript-fetch",
    )
    node_project(out, node_modules, ["*.ts", "client/**/*.ts"], noUncheckedIndexedAccess=False)
    shutil.copy(HERE / "scenario_ts_fetch.ts", out / "scenario.ts")
    run(["node", str(TSC), "-p", "tsconfig.json"], out, "tsc of the client and the user's program")
    return out


async def test_openapi_generator_typescript_fetch(
    ts_fetch: Path, engine: tuple[dict[str, str], FirstTryFails]
) -> None:
    env, sub = engine
    report = await scenario(["node", "dist/scenario.js"], env, ts_fetch)
    check(report, sub)
