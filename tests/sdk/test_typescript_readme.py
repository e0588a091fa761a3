"""The README's TypeScript sender examples compile against ``hookproof-client`` as a user
installs it (strict ``tsc`` over the built package): a renamed method or option breaks this."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from .test_typescript_client import CLIENT, ts_client

__all__ = ["ts_client"]

ROOT = CLIENT.parents[1]
BLOCK = re.compile(r"```ts\n(.*?)```", re.S)


def _snippets() -> list[tuple[str, str]]:
    out = []
    main = (ROOT / "README.md").read_text()
    section = main.split("### Sending events from TypeScript", 1)[1].split("\n### ", 1)[0]
    out += [("README.md", b) for b in BLOCK.findall(section)]
    pkg = (CLIENT / "README.md").read_text()
    out += [("clients/typescript/README.md", b) for b in BLOCK.findall(pkg)]
    return out


def test_the_readmes_have_typescript_sender_examples() -> None:
    where = [w for w, _ in _snippets()]
    assert where.count("README.md") >= 1
    assert where.count("clients/typescript/README.md") >= 1
    assert all("hookproof-client" in b and ".publish(" in b for _, b in _snippets())


@pytest.mark.parametrize("index", range(len(_snippets())))
def test_readme_example_compiles(ts_client: Path, tmp_path: Path, index: int) -> None:
    where, code = _snippets()[index]
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "hookproof-client").symlink_to(CLIENT)
    # the examples read their token from the environment (Node.js); nothing else is assumed
    (tmp_path / "env.d.ts").write_text(
        "declare const process: { env: Record<string, string | undefined> };\n"
    )
    (tmp_path / "example.mts").write_text(code)
    tsc = CLIENT / "node_modules" / "typescript" / "bin" / "tsc"
    args = ["--noEmit", "--strict", "--target", "es2022", "--module", "nodenext"]
    args += ["--moduleResolution", "nodenext", "--lib", "es2022,dom"]
    done = subprocess.run(
        ["node", str(tsc), *args, "env.d.ts", "example.mts"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, f"{where} example {index}:\n{done.stdout}{done.stderr}"
