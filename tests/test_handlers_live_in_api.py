"""HTTP handlers live under ``engine/api`` (issue 12): no other module defines a function
that takes an aiohttp request."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("engine", "events", "projections", "schemas", "hookproof")


def takes_a_request(path: Path) -> list[int]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for arg in node.args.args + node.args.kwonlyargs:
                if arg.annotation is not None and ast.unparse(arg.annotation).endswith(
                    "web.Request"
                ):
                    out.append(node.lineno)
    return out


def test_only_engine_api_defines_handlers() -> None:
    outside = sorted(
        f"{path.relative_to(ROOT)}:{lines}"
        for folder in FOLDERS
        for path in (ROOT / folder).rglob("*.py")
        if not str(path.relative_to(ROOT)).startswith("engine/api/")
        and (lines := takes_a_request(path))
    )
    assert outside == []


def test_the_check_sees_a_handler(tmp_path: Path) -> None:
    module = tmp_path / "handler.py"
    module.write_text("async def h(request: web.Request) -> None: ...\n")
    assert takes_a_request(module) == [1]
