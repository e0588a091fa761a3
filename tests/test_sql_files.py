"""SQL lives in ``.sql`` files: each one used, each statement once, none inline in Python."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from hookproof.events.sqlfiles import MissingQuery, Queries, identifier, included, query, render

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
    from hookproof.engine.recording.registry import projections_by_name

    return set(projections_by_name())


def _included_names() -> set[str]:
    return {
        n.rpartition(":")[2]
        for folder in QUERY_DIRS
        for f in folder.glob("*.sql")
        for n in included(f.read_text())
    }


def test_every_query_file_is_used() -> None:
    names = _string_constants() | _included_names()
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


def _probe_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, package: str, **sql: str
) -> str:
    """A throwaway package holding ``sql/queries/<name>.sql`` for each keyword."""
    folder = tmp_path / package / "sql" / "queries"
    folder.mkdir(parents=True)
    (tmp_path / package / "__init__.py").write_text("")
    for name, text in sql.items():
        (folder / f"{name}.sql").write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    return package


def test_an_include_line_is_replaced_by_its_fragment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _probe_package(
        tmp_path,
        monkeypatch,
        "include_probe_expand",
        outer="SELECT a\n  -- include: inner\nFROM t\n",
        inner="-- a fragment\n, b -- include: not_a_line_of_its_own\n",
    )
    assert query("outer", package) == (
        "SELECT a\n-- a fragment\n, b -- include: not_a_line_of_its_own\nFROM t\n"
    )


def test_a_missing_or_circular_include_fails_at_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = _probe_package(
        tmp_path,
        monkeypatch,
        "include_probe_fail",
        lost="SELECT 1\n-- include: nowhere\n",
        ping="-- include: pong\n",
        pong="-- include: ping\n",
    )
    with pytest.raises(MissingQuery, match="nowhere"):
        query("lost", package)
    with pytest.raises(MissingQuery, match="includes itself"):
        query("ping", package)


def test_the_admitted_attempt_outcome_is_written_once_and_shared() -> None:
    fragment = query("admitted_attempt_outcome", "hookproof.engine")
    for name in ("rollout_figures", "gates_rotation_acceptance"):
        text = query(name, "hookproof.engine")
        assert fragment in text and included(text) == []


LAYERS = ["hookproof.schemas", "hookproof.events", "hookproof.projections", "hookproof.engine"]


def _package_of(folder: Path) -> str:
    return f"hookproof.{folder.relative_to(ROOT).parts[0]}"


def test_includes_from_another_package_point_down_the_layers() -> None:
    """``-- include: package:name`` only reaches a lower layer (engine -> projections ...)."""
    upward = []
    for folder in QUERY_DIRS:
        here = LAYERS.index(_package_of(folder))
        for f in sorted(folder.glob("*.sql")):
            for ref in included(f.read_text()):
                owner = ref.rpartition(":")[0]
                if owner and LAYERS.index(owner) >= here:
                    upward.append(f"{f.relative_to(ROOT)} -> {ref}")
    assert upward == []


def test_an_include_may_name_a_lower_layers_package(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lower = _probe_package(tmp_path, monkeypatch, "include_probe_lower", cols="a, b\n")
    upper = _probe_package(
        tmp_path / "up",
        monkeypatch,
        "include_probe_upper",
        pick=f"SELECT\n-- include: {lower}:cols\nFROM t\n",
        cols="not this one\n",
    )
    assert query("pick", upper) == "SELECT\na, b\nFROM t\n"


def test_the_ledger_columns_and_overwrite_are_written_once() -> None:
    """The projection's upsert and ingest's planned-row inserts share the projections'
    fragments: one column list, one ``ON CONFLICT ... DO UPDATE``."""
    columns = query("deliveries_columns", "hookproof.projections")
    overwrite = query("deliveries_upsert_set", "hookproof.projections")
    users = [
        ("deliveries.upsert", "hookproof.projections"),
        ("deliveries_insert_planned", "hookproof.engine"),
        ("deliveries_insert_planned_arrays", "hookproof.engine"),
    ]
    for name, package in users:
        text = query(name, package)
        assert columns in text and overwrite in text, name
    for folder in QUERY_DIRS:
        for f in folder.glob("*.sql"):
            if f.name not in {"deliveries_columns.sql", "deliveries_upsert_set.sql"}:
                assert "ordering_gap_timeout_s = EXCLUDED" not in f.read_text(), f.name
