"""Every module imports on its own, the layers only import downwards, and no import circle
exists (imports under ``if TYPE_CHECKING:`` are for annotations and do not count; imports
inside functions do)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {
    "hookproof": ROOT / "hookproof",
    "hookproof.schemas": ROOT / "schemas",
    "hookproof.events": ROOT / "events",
    "hookproof.projections": ROOT / "projections",
    "hookproof.engine": ROOT / "engine",
}
LAYERS = ["hookproof.schemas", "hookproof.events", "hookproof.projections", "hookproof.engine"]


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _imports(module: str, path: Path) -> set[str]:
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def base_of(node: ast.ImportFrom) -> str:
        if node.level == 0:
            return node.module or ""
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        return ".".join(parts + ([node.module] if node.module else []))

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                found.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = base_of(child)
                for alias in child.names:
                    full = f"{base}.{alias.name}"
                    found.add(full if full in MODULES else base)
            else:
                visit(child)

    visit(ast.parse(path.read_text()))
    return {m for m in found if m in MODULES and m != module}


def _graph() -> dict[str, set[str]]:
    return {m: _imports(m, p) for m, p in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_no_import_circles() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _layer(module: str) -> int | None:
    for i, layer in enumerate(LAYERS):
        if module == layer or module.startswith(layer + "."):
            return i
    return None


def test_layers_only_import_downwards() -> None:
    upward = [
        f"{m} -> {d}"
        for m, deps in _graph().items()
        for d in deps
        if (a := _layer(m)) is not None and (b := _layer(d)) is not None and b > a
    ]
    assert upward == []


@pytest.mark.parametrize("module", sorted(MODULES))
def test_every_module_imports_on_its_own(module: str) -> None:
    if module.endswith("__main__"):
        pytest.skip("an entry point")
    importlib.import_module(module)
