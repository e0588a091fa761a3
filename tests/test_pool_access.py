"""Only repositories and adapters reach the database pool; services, handlers, features and
the CLI go through them (issue 12). A new ``.pool`` outside the modules listed here fails."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("engine", "events", "projections", "schemas", "hookproof")
NAMES = {"pool", "_pool"}

#: modules that may read or set a ``.pool`` attribute, and why
ADAPTERS = {
    "events/store.py": "the event store",
    "events/listening.py": "the LISTEN connection that wakes the workers",
    "projections/projector.py": "the projector's page transactions and checkpoints",
    "projections/rebuild.py": "the rebuild's bulk load and its swap with the checkpoint",
    "engine/db/repository.py": "PoolRepository, the base of every engine repository",
    "engine/cli/context.py": "the CLI's composition root opens, hands out and closes the pool",
    "engine/endpoint_auth/materials.py": "the sealed endpoint-auth material: a repository by "
    "another name (its SQL is named queries)",
    "engine/search/search.py": "Search is a PoolRepository: each page's reads in one read-only "
    "transaction under the scan budget's statement timeout (named queries)",
    "engine/search/replay.py": "Replays is a PoolRepository: the replay job's rows (named "
    "queries); its runner reads them through it",
}
#: still reaching the pool outside a repository (none left; keep the mechanism for work in
#: progress, and the staleness check below)
PENDING: dict[str, str] = {}


def allowed(path: str) -> bool:
    return path in ADAPTERS or path in PENDING or path.endswith("repository.py")


def pool_uses(path: Path) -> list[int]:
    return [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr in NAMES
    ]


def _uses() -> dict[str, list[int]]:
    out = {}
    for folder in FOLDERS:
        for path in (ROOT / folder).rglob("*.py"):
            if lines := pool_uses(path):
                out[str(path.relative_to(ROOT))] = lines
    return out


def test_only_repositories_and_adapters_touch_the_pool() -> None:
    outside = sorted(f"{p}:{lines}" for p, lines in _uses().items() if not allowed(p))
    assert outside == []


def test_the_allowances_are_not_stale() -> None:
    uses = _uses()
    assert sorted(p for p in {**ADAPTERS, **PENDING} if p not in uses) == []


def test_the_check_sees_a_service_reaching_into_the_pool(tmp_path: Path) -> None:
    service = tmp_path / "service.py"
    service.write_text("async def f(store):\n    return await store.pool.fetch('SELECT 1')\n")
    assert pool_uses(service) == [2]
