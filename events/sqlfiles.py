"""Named SQL kept in ``.sql`` files beside the code that runs it.

Each layer has one :class:`Queries` registry over its ``sql/queries`` folder (``queries.py``
of ``events``, ``projections`` and ``engine``). A module declares the statements it runs at
import time, ``SQL = EVENT_QUERIES.named("append", "read_stream")``, so a missing file fails
the import, not a request. ``tests/test_sql_files.py`` checks that no file is unused.

A statement may share a fragment with another: a line ``-- include: name`` (alone on its
line) is replaced, when the statement loads, by the text of ``sql/queries/name.sql`` of the
same package, or ``-- include: package:name`` by that of a lower layer's package (the engine
writes the projections' ledger columns once; ``tests/test_sql_files.py`` keeps includes
pointing down the layers). Fragments may include others; a circle raises
:class:`MissingQuery`. Plain text, not a view: the fragment resolves its tables where it
lands (the gates run against a temporary ``events`` that shadows the real one).

Statements over a table chosen at run time (projection tables, rebuild copies) are templates
with ``{placeholders}``; :func:`render` fills them with quoted identifiers only.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import cache
from importlib.resources import files

__all__ = [
    "INCLUDE",
    "MissingQuery",
    "NamedQueries",
    "Queries",
    "identifier",
    "included",
    "migration_files",
    "query",
    "render",
]


class MissingQuery(LookupError):
    """A named query without its ``.sql`` file (raised when the module declaring it loads)."""


#: the line that pulls a fragment into a statement: ``-- include: [package:]name``
INCLUDE = re.compile(r"^\s*--\s*include:\s*((?:[A-Za-z0-9_.]+:)?[A-Za-z0-9_.]+)\s*$")


def included(text: str) -> list[str]:
    """The fragments ``text`` includes, in order, as written (``name`` or ``package:name``)."""
    return [m.group(1) for line in text.splitlines() if (m := INCLUDE.match(line))]


def _load(name: str, package: str, within: tuple[str, ...]) -> str:
    here = f"{package}:{name}"
    if here in within:
        raise MissingQuery(f"query {name!r} in {package} includes itself: {' > '.join(within)}")
    path = files(package) / "sql" / "queries" / f"{name}.sql"
    if not path.is_file():
        raise MissingQuery(f"no query {name!r} in {package} (sql/queries/{name}.sql)")
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines(keepends=True):
        m = INCLUDE.match(line)
        if m is None:
            lines.append(line)
        else:
            owner, _, fragment_name = m.group(1).rpartition(":")
            fragment = _load(fragment_name, owner or package, (*within, here))
            lines.append(fragment if fragment.endswith("\n") else fragment + "\n")
    return "".join(lines)


@cache
def query(name: str, package: str = "hookproof.events") -> str:
    """The text of ``<package>/sql/queries/<name>.sql``, its ``-- include:`` lines expanded."""
    return _load(name, package, ())


class NamedQueries(Mapping[str, str]):
    """The statements one module runs, loaded when it was imported: ``SQL["name"]``."""

    def __init__(self, package: str, names: tuple[str, ...]) -> None:
        self._text = {name: query(name, package) for name in names}

    def __getitem__(self, name: str) -> str:
        return self._text[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._text)

    def __len__(self) -> int:
        return len(self._text)


class Queries:
    """One layer's named-query registry (its ``sql/queries`` folder)."""

    def __init__(self, package: str) -> None:
        self.package = package

    def named(self, *names: str) -> NamedQueries:
        """Load ``names`` now; a missing file raises :class:`MissingQuery` at import."""
        return NamedQueries(self.package, names)

    def available(self) -> list[str]:
        """Every query name the folder holds."""
        folder = files(self.package) / "sql" / "queries"
        return sorted(e.name[:-4] for e in folder.iterdir() if e.name.endswith(".sql"))


def identifier(name: str) -> str:
    """``name`` as a quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def render(template: str, **identifiers: str) -> str:
    """``template`` with each ``{name}`` replaced by the quoted identifier given for it."""
    out = template
    for key, value in identifiers.items():
        out = out.replace("{" + key + "}", identifier(value))
    return out


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
