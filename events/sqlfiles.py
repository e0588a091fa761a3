"""Named SQL kept in ``.sql`` files beside the code that runs it."""

from __future__ import annotations

from functools import cache
from importlib.resources import files

__all__ = ["migration_files", "query"]


@cache
def query(name: str, package: str = "hookproof.events") -> str:
    """The text of ``<package>/sql/queries/<name>.sql``."""
    return (files(package) / "sql" / "queries" / f"{name}.sql").read_text(encoding="utf-8")


def migration_files(package: str) -> list[tuple[int, str, str]]:
    """``(number, name, sql)`` of ``<package>/sql/migrations/NNNN_name.sql``, in order."""
    folder = files(package) / "sql" / "migrations"
    if not folder.is_dir():
        return []
    found: list[tuple[int, str, str]] = []
    for entry in folder.iterdir():
        stem, _dot, ext = entry.name.partition(".")
        if ext != "sql" or "_" not in stem:
            continue
        number, _, name = stem.partition("_")
        if number.isdigit():
            found.append((int(number), name, entry.read_text(encoding="utf-8")))
    return sorted(found)
