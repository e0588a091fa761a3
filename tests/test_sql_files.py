"""SQL lives in ``.sql`` files: each one used, each statement once, none inline in Python."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from hookproof.events.sqlfiles import MissingQuery, Queries, identifier, render

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [ROOT / d for d in ("engine", "events", "projections", "hookproof")]
QUERY_DIRS = sorted(p for d in SOURCES for p in d.rglob("sql/queries") if p.is_dir())
DB_METHODS = {"execute", "executemany", "fetch", "fetchrow", "fetchval", "prepare", "cursor"}


def _python_files() -> list[Path]:
    return sorted(p for d in SOURCES for p in d.rglob("*.py"))


def _string_constants() -> set[str]:
    out: set[str] = set()
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                out.add(node.value)
    return out


def _projection_names() -> set[str]:
    from hookproof.engine.registry import projections_by_name

    return set(projections_by_name())


def test_every_query_file_is_used() -> None:
    names = _string_constants()
    projections = _projection_names()
    unused = []
    for folder in QUERY_DIRS:
        for f in sorted(folder.glob("*.sql")):
            stem = f.name[: -len(".sql")]
            owner, _, which = stem.partition(".")
            used = stem in names or (owner in projections and which in {"load", "upsert"})
            if not used:
                unused.append(str(f.relative_to(ROOT)))
    assert unused == []


def _normalised(text: str) -> str:
    body = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("--"))
    return re.sub(r"\s+", " ", body).strip().rstrip(";")


def test_each_statement_is_written_once() -> None:
    seen: dict[str, str] = {}
    twice = []
    for folder in QUERY_DIRS:
        for f in sorted(folder.glob("*.sql")):
            key = _normalised(f.read_text())
            if key in seen:
                twice.append((seen[key], f.name))
            seen[key] = f.name
    assert twice == []


def test_no_sql_is_written_inline_in_python() -> None:
    inline = []
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if not (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in DB_METHODS
                and node.args
            ):
                continue
            first = node.args[0]
            if isinstance(first, ast.JoinedStr) or (
                isinstance(first, ast.Constant) and isinstance(first.value, str)
            ):
                inline.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert inline == []


def test_every_literal_query_name_has_its_file() -> None:
    """``query("name", PKG)`` and ``REGISTRY.named("name", ...)`` name existing files."""
    files = {f.name[: -len(".sql")] for folder in QUERY_DIRS for f in folder.glob("*.sql")}
    missing = []
    for path in _python_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if called not in {"query", "named"}:
                continue
            for arg in node.args if called == "named" else node.args[:1]:
                if isinstance(arg, ast.Constant) and arg.value not in files:
                    missing.append(f"{path.relative_to(ROOT)}:{node.lineno} {arg.value}")
    assert missing == []


def test_a_missing_name_fails_when_declared() -> None:
    with pytest.raises(MissingQuery):
        Queries("hookproof.engine").named("dispatch_claim", "no_such_query")


def test_generated_ddl_quotes_identifiers() -> None:
    assert identifier('odd"name') == '"odd""name"'
    sql = render("DROP TABLE IF EXISTS {fresh}", fresh="deliveries_rebuild; DROP TABLE events")
    assert sql == 'DROP TABLE IF EXISTS "deliveries_rebuild; DROP TABLE events"'
