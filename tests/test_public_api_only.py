"""The product uses its libraries' public interfaces only, and declares every import
(DESIGN.md section 5, "Public interfaces only"; issue 23).

Parsed, not imported (``ast``):

- no private attribute of an imported module (``pycares._lib``, ``asyncio.sslproto`` and any
  ``module._x`` of a module that is not ours), no import of a private module or name
  (``from aiohttp.client_reqrep import ...`` is allowed only when public: no ``_`` segment);
- none of the names the old egress adapter reached into, on any object but ``self``/``cls``
  (``_release``, ``_conns``, ``_closed``, ``set_response_params``,
  ``_timeout_ceil_threshold``, ``_drain_helper``, ``_lib``, ``sslproto``);
- no private method overridden in a subclass of a class that is not ours;
- no assignment to an attribute of an imported module (a process-wide patch);
- every top-level module imported by the product (``engine/``, ``hookproof/``, ``events/``,
  ``projections/``, ``schemas/``) is the standard library, ours, or provided by a distribution
  named in ``pyproject.toml``'s ``[project] dependencies``.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = [ROOT / d for d in ("engine", "hookproof", "events", "projections", "schemas")]
FIRST_PARTY = frozenset({"hookproof", "hookproof_subscriber"})
#: What the adapter of issue 23 used; forbidden on anything but our own ``self``/``cls``.
FORBIDDEN_ATTRS = frozenset(
    {
        "_release",
        "_conns",
        "_closed",
        "set_response_params",
        "_timeout_ceil_threshold",
        "_drain_helper",
        "_lib",
        "sslproto",
    }
)


#: Standard-library modules whose private parts count (the HTTP stack's); argparse's
#: ``_SubParsersAction`` in an annotation is not a way into the HTTP stack.
STDLIB_CHECKED = frozenset({"asyncio", "ssl", "socket", "selectors", "http", "urllib"})


def _checked(module: str) -> bool:
    top = module.split(".")[0]
    return top in STDLIB_CHECKED or top not in sys.stdlib_module_names


def _resolve(dotted: str) -> object | None:
    """The object ``dotted`` names (a module, or an attribute path inside one)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name, None)
            if obj is None:
                return None
        return obj
    return None


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node


def violations(source: str, where: str = "<source>") -> list[str]:
    """Every private access, private import or patch in ``source`` (one line each)."""
    tree = ast.parse(source)
    modules: set[str] = set()  # names bound to modules (or names) imported from elsewhere
    bound_to: dict[str, str] = {}  # such a name -> its dotted origin
    out: list[str] = []

    def bad(node: ast.AST, what: str) -> None:
        out.append(f"{where}:{getattr(node, 'lineno', 0)}: {what}")

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in FIRST_PARTY:
                    continue
                if any(_private(p) or p == "sslproto" for p in alias.name.split(".")):
                    bad(node, f"import of private module {alias.name}")
                name = (alias.asname or alias.name).split(".")[0]
                bound_to[name] = alias.name if alias.asname else name
                if _checked(alias.name):
                    modules.add(name)
        elif isinstance(node, ast.ImportFrom):
            if node.level or (node.module or "").split(".")[0] in FIRST_PARTY:
                continue
            parts = (node.module or "").split(".")
            if any(_private(p) or p == "sslproto" for p in parts):
                bad(node, f"import from private module {node.module}")
            for alias in node.names:
                if _private(alias.name):
                    bad(node, f"import of private name {node.module}.{alias.name}")
                bound = alias.asname or alias.name
                bound_to[bound] = f"{node.module}.{alias.name}"
                if _checked(node.module or ""):
                    modules.add(bound)

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            root = _root(node)
            receiver = root.id if isinstance(root, ast.Name) else None
            if node.attr in FORBIDDEN_ATTRS and receiver not in ("self", "cls"):
                bad(node, f"private access .{node.attr}")
            elif (
                _private(node.attr)
                and isinstance(node.value, ast.Name)
                and node.value.id in modules
            ):
                bad(node, f"private access {node.value.id}.{node.attr}")
        elif isinstance(node, ast.ClassDef):
            for base in node.bases:
                root = _root(base)
                if not isinstance(root, ast.Name) or root.id not in modules:
                    continue
                dotted = ast.unparse(base).replace(root.id, bound_to[root.id], 1)
                cls = _resolve(dotted)
                for item in node.body:
                    if (
                        isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef)
                        and _private(item.name)
                        and (cls is None or hasattr(cls, item.name))
                    ):
                        bad(item, f"override of private method {dotted}.{item.name}")
        elif isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Attribute):
                    root = _root(target)
                    if isinstance(root, ast.Name) and root.id in modules:
                        bad(node, f"patch of {ast.unparse(target)}")
    return out


def _sources() -> list[Path]:
    return sorted(p for d in PRODUCT for p in d.rglob("*.py"))


def test_the_checker_catches_what_the_old_adapter_did() -> None:
    """The patterns of the adapter issue 23 replaced (so the test below can fail)."""
    old = {
        "import asyncio.sslproto\nasyncio.sslproto.SSLProtocol.max_size = 4096\n": 2,
        "import pycares\nreal = pycares._lib\npycares._lib = object()\n": 2,
        "import aiohttp\nclass C(aiohttp.TCPConnector):\n    def _release(self, k, p):\n"
        "        super()._release(k, p)\n        conns = self._conns\n": 1,
        "def f(proto, c):\n    proto.set_response_params(x=1)\n    c._closed\n"
        "    c._timeout_ceil_threshold\n": 3,
        "async def f(proto):\n    await proto._drain_helper()\n": 1,
        "from aiohttp.client_reqrep import ConnectionKey\nfrom aiohttp import _helpers\n": 1,
        "from aiohttp._private import x\n": 1,
        "import yarl\nyarl._thing\n": 1,
        "import ssl\nssl.SSLContext.wrap_bio = None\n": 1,
    }
    for source, expected in old.items():
        assert len(violations(source)) >= expected, source
    fine = (
        "import ssl, asyncio, argparse\nclass A(asyncio.Protocol):\n    def _x(self):\n"
        "        return self._closed\nssl.MemoryBIO()\nx: argparse._SubParsersAction\n"
    )
    assert violations(fine) == []


def test_no_private_access_to_libraries_in_the_product() -> None:
    found: list[str] = []
    for path in _sources():
        found += violations(path.read_text(), str(path.relative_to(ROOT)))
    assert found == []


def _declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = set()
    for spec in project["dependencies"]:
        match = re.match(r"[A-Za-z0-9._-]+", spec)
        assert match is not None
        names.add(_normal(match.group(0)))
    return names


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _top_level_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.split(".")[0])
    return found


def test_every_import_of_the_product_is_declared() -> None:
    declared = _declared()
    providers = importlib.metadata.packages_distributions()
    undeclared: list[str] = []
    for path in _sources():
        for module in sorted(_top_level_imports(path)):
            if module in sys.stdlib_module_names or module in FIRST_PARTY:
                continue
            dists = {_normal(d) for d in providers.get(module, [])}
            if not dists & declared:
                undeclared.append(f"{path.relative_to(ROOT)}: {module} ({sorted(dists)})")
    assert undeclared == []


@pytest.mark.parametrize("module", ["aiohappyeyeballs", "httptools", "yarl", "aiodns", "idna"])
def test_the_egress_libraries_are_declared(module: str) -> None:
    providers = importlib.metadata.packages_distributions()
    assert {_normal(d) for d in providers[module]} & _declared()
