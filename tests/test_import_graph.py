"""Every module imports on its own in a fresh interpreter, the layers only import downwards,
engine/'s top folders import each other one way only, no product module is over 600 lines,
and no import circle exists (imports under ``if TYPE_CHECKING:`` are for annotations and do
not count; imports inside functions do; importing ``a.b.c`` imports the packages ``a`` and
``a.b`` first, so it counts as importing them too)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
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
    return {p for m in found for p in _with_parents(m, module) if p in MODULES and p != module}


def _with_parents(target: str, importer: str) -> list[str]:
    """``target`` and the packages Python imports before it (``a``, ``a.b`` for ``a.b.c``),
    except those of ``importer``'s own ancestors: they are being imported already."""
    parts = target.split(".")
    prefixes = [".".join(parts[:i]) for i in range(1, len(parts))]
    return [p for p in prefixes if not importer.startswith(p + ".")] + [target]


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


def test_importing_a_module_counts_as_importing_its_packages() -> None:
    """The circle that ``rollouts.gates -> audit.gate_result`` once made through
    ``engine/audit/__init__.py`` (which imports ``audit.gates``, which imported
    ``rollouts.gates``) is an edge to the package, not only to the module."""
    got = _with_parents("hookproof.engine.audit.gate_result", "hookproof.engine.rollouts.gates")
    assert got == ["hookproof.engine.audit", "hookproof.engine.audit.gate_result"]
    assert _with_parents("hookproof.engine.audit.timeline", "hookproof.engine.audit.gates") == [
        "hookproof.engine.audit.timeline"
    ]


ENGINE = "hookproof.engine"
#: product code: every module of these folders stays under this many lines (DESIGN: small
#: modules with names that say what they hold)
MAX_LINES = 600


def _folder(module: str) -> str | None:
    """The top folder of engine/ a module lives in (a loose module at engine/'s root is its
    own); None outside the engine or for the engine package itself."""
    if not module.startswith(ENGINE + "."):
        return None
    return module[len(ENGINE) + 1 :].split(".")[0]


def _folder_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """engine/'s top folders, with an arrow where a module of one imports a module of another."""
    folders: dict[str, set[str]] = {}
    for module, deps in graph.items():
        a = _folder(module)
        if a is None:
            continue
        folders.setdefault(a, set())
        for dep in deps:
            b = _folder(dep)
            if b is not None and b != a:
                folders[a].add(b)
                folders.setdefault(b, set())
    return folders


def test_no_folder_level_circles_in_the_engine() -> None:
    """engine/'s folders import each other one way only: the path of an event (api -> ingest
    -> delivery -> destinations/egress) and the parts beside it never loop back."""
    graph = _graph()
    folders = _folder_graph(graph)
    circles = _cycles(folders)
    detail = [
        f"{m} -> {d}"
        for circle in circles
        for m, deps in graph.items()
        for d in deps
        if _folder(m) in circle and _folder(d) in circle and _folder(m) != _folder(d)
    ]
    assert circles == [], detail


def test_the_folder_graph_sees_a_circle_through_two_folders() -> None:
    graph = {
        "hookproof.engine.front.handler": {"hookproof.engine.back.worker"},
        "hookproof.engine.back.worker": {"hookproof.engine.back.store"},
        "hookproof.engine.back.store": {"hookproof.engine.front.errors"},
        "hookproof.engine.front.errors": set(),
        "hookproof.events.store": set(),
    }
    assert _cycles(_folder_graph(graph)) == [["back", "front"]]
    graph["hookproof.engine.back.store"] = set()
    assert _cycles(_folder_graph(graph)) == []


def _long_modules(paths: dict[str, Path], root: Path = ROOT) -> list[str]:
    out = []
    for _, path in sorted(paths.items()):
        lines = len(path.read_text().splitlines())
        if lines > MAX_LINES:
            out.append(f"{path.relative_to(root)}: {lines} lines")
    return out


def test_no_product_module_is_over_600_lines() -> None:
    assert _long_modules(MODULES) == []


def test_the_line_limit_counts_lines(tmp_path: Path) -> None:
    small, big = tmp_path / "small.py", tmp_path / "big.py"
    small.write_text("x = 1\n" * MAX_LINES)
    big.write_text("x = 1\n" * (MAX_LINES + 1))
    got = _long_modules({"small": small, "big": big}, root=tmp_path)
    assert got == [f"big.py: {MAX_LINES + 1} lines"]


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


# A fresh interpreter that has imported none of hookproof (only the third-party modules ours
# import, to keep it quick) forks one child per module, two at a time: each child imports its
# module first, as ``python -c "import <module>"`` would. Prints {module: error or null}.
_FORK_IMPORTER = r"""
import importlib, json, os, sys, traceback
job = json.loads(sys.stdin.read())
for lib in job["preload"]:
    try:
        importlib.import_module(lib)
    except Exception:
        pass
assert not [m for m in sys.modules if m == "hookproof" or m.startswith("hookproof.")]
modules = job["modules"]
results, running = {}, {}

def reap():
    pid, status = os.wait()
    name, fd = running.pop(pid)
    with os.fdopen(fd) as f:
        message = f.read()
    results[name] = None if os.waitstatus_to_exitcode(status) == 0 else (message or "died")

for name in modules:
    if len(running) >= 2:
        reap()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        code = 0
        try:
            importlib.import_module(name)
        except BaseException:
            os.write(w, traceback.format_exc(limit=-3).encode()[-2000:])
            code = 1
        os._exit(code)
    os.close(w)
    running[pid] = (name, r)
while running:
    reap()
print(json.dumps(results))
"""

IMPORTABLE = sorted(m for m in MODULES if not m.endswith("__main__"))


def _third_party() -> list[str]:
    """Every module outside hookproof our modules import by name (preloaded: they are not
    what the test is about, and importing them once keeps 160 fresh imports quick)."""
    names: set[str] = set()
    for path in MODULES.values():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module)
    return sorted(n for n in names if n.split(".")[0] not in ("hookproof", "__future__"))


@pytest.fixture(scope="module")
def fresh_imports() -> dict[str, str | None]:
    done = subprocess.run(
        [sys.executable, "-c", _FORK_IMPORTER],
        input=json.dumps({"modules": IMPORTABLE, "preload": _third_party()}),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    results: dict[str, str | None] = json.loads(done.stdout.strip().splitlines()[-1])
    return results


@pytest.mark.timeout(900)  # the first one waits for all (~25 s of CPU over 2 cores)
@pytest.mark.parametrize("module", IMPORTABLE)
def test_every_module_imports_on_its_own(module: str, fresh_imports: dict[str, str | None]) -> None:
    assert fresh_imports[module] is None, fresh_imports[module]
