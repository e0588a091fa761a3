"""``--help`` of every command and sub-command, found by reading the help itself: each is
listed with a one-line summary, its own help starts with a description, and none leaks
reStructuredText (double backticks, roles like :class:) from a docstring."""

from __future__ import annotations

import contextlib
import io
import re
from collections.abc import Iterator

import pytest

from hookproof.engine.cli import build_parser

_RST = re.compile(r"``|:(class|func|mod|meth|attr):`")


def _help(path: tuple[str, ...]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        build_parser().parse_args([*path, "--help"])
    assert done.value.code == 0
    return out.getvalue()


def _children(text: str) -> list[tuple[str, str]]:
    """(name, one-line summary) of the sub-commands a help lists ("" when none is given)."""
    found = re.search(r"^  \{([a-z0-9,-]+)\}\n(.*?)(?:\n\S|\noptions:|\Z)", text, re.M | re.S)
    if not found:
        return []
    names = found.group(1).split(",")
    listed = dict(re.findall(r"^    ([a-z0-9-]+)\s+(.+)$", found.group(2), re.M))
    return [(n, listed.get(n, "")) for n in names]


def _walk(path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str, str]]:
    text = _help(path)
    for name, summary in _children(text):
        child = (*path, name)
        yield child, summary, _help(child)
        yield from _walk(child)


COMMANDS = list(_walk())


def test_the_walk_finds_the_commands() -> None:
    names = {" ".join(p) for p, _, _ in COMMANDS}
    assert {"serve", "tenant list", "tenant create", "dev-endpoint", "demo", "db status"} <= names
    assert len(names) > 30
    assert not _RST.search(_help(()))


@pytest.mark.parametrize("path,summary,text", COMMANDS, ids=[" ".join(p) for p, _, _ in COMMANDS])
def test_every_command_says_what_it_does(path: tuple[str, ...], summary: str, text: str) -> None:
    name = "hookproof " + " ".join(path)
    assert summary.strip(), f"{name} has no summary in its parent's list"
    body = text.split("\n\n", 2)
    assert (
        len(body) > 1
        and body[1].strip()
        and not body[1].startswith(("positional arguments:", "options:"))
    ), f"{name} --help has no description:\n{text}"
    assert not _RST.search(text), f"reStructuredText in {name} --help:\n{text}"
