"""The delivery ledger's state names are defined once, in the table of
``projections/ledger.py``: Python derives every subset from it; SQL and console.js, which
cannot import it, spell lists out, and each such list must be one of the table's named subsets
(``ledger.SUBSETS``): in the query files, in the live database (index predicates and functions
the migrations left, whichever migration wrote them) and in the console's script."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import asyncpg

from hookproof.engine.subscriptions.machine import STATES as SUBSCRIPTION_STATES
from hookproof.projections import ledger

ROOT = Path(__file__).resolve().parents[2]
NAMES = frozenset(ledger.LEDGER_STATES)
SUBSET_BY_VALUE = {v: k for k, v in ledger.SUBSETS.items()}
QUERY_DIRS = sorted(
    p for d in ("engine", "events", "projections") for p in (ROOT / d).rglob("sql/queries")
)
CONSOLE_JS = ROOT / "engine" / "console" / "static" / "console.js"

_QUOTED = re.compile(r"""['"]([A-Z][A-Z_]+)['"]""")
#: a parenthesised / bracketed list of quoted names: SQL ``IN (...)``, ``ARRAY[...]``, JS ``[...]``
_LIST = re.compile(
    r"""[(\[]\s*((?:['"][A-Z][A-Z_]*['"](?:::text)?\s*,\s*)*['"][A-Z][A-Z_]*['"](?:::text)?)\s*[)\]]"""
)


def ledger_lists(text: str) -> list[frozenset[str]]:
    """Every list of quoted names in ``text`` that names a ledger state."""
    out = []
    for m in _LIST.finditer(text):
        names = frozenset(_QUOTED.findall(m.group(1)))
        if names & NAMES:
            out.append(names)
    return out


def _unnamed(lists: list[frozenset[str]]) -> list[list[str]]:
    return [sorted(x) for x in lists if len(x) > 1 and x not in SUBSET_BY_VALUE]


def test_subsets_are_derived_from_the_table() -> None:
    table = ledger.LEDGER_TRANSITIONS
    assert ledger.SUBSETS["ADMITTING"] == ledger.sources("admit")
    assert ledger.OPEN == ledger.ADMITTING | {table[s, "admit"] for s in ledger.ADMITTING}
    assert ledger.TERMINAL == NAMES - ledger.OPEN
    assert ledger.ORDER_RELEASING <= ledger.TERMINAL
    assert "DEAD_LETTER" in ledger.TERMINAL - ledger.ORDER_RELEASING
    assert ledger.SUBSETS["REPLAYABLE"] == ledger.sources("replay")
    assert ledger.SUBSETS["SKIPPABLE"] == ledger.sources("skip")
    for state, command in ledger.EVIDENCE_ONLY:  # evidence moves nothing
        assert table[state, command] == state


def test_python_spells_no_ledger_state_outside_the_table() -> None:
    """A state name as a string literal anywhere but ``projections/ledger.py`` is a copy of
    the table (use ``LedgerState`` or a named subset)."""
    found = []
    for folder in ("engine", "projections", "events", "schemas", "hookproof"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == ROOT / "projections" / "ledger.py":
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and node.value in NAMES:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value}")
    assert found == []


def test_query_files_list_only_named_subsets() -> None:
    seen: dict[str, list[str]] = {}
    bad: dict[str, list[list[str]]] = {}
    for folder in QUERY_DIRS:
        for f in sorted(folder.glob("*.sql")):
            text = re.sub(r"--[^\n]*", "", f.read_text())  # comments may name states freely
            lists = ledger_lists(text)
            if _unnamed(lists):
                bad[f.name] = _unnamed(lists)
            if lists:
                seen[f.name] = [SUBSET_BY_VALUE.get(x, next(iter(x))) for x in lists]
            for name in _QUOTED.findall(text):  # a lone name close to a state is a typo
                if "_" in name and name not in NAMES:
                    assert not any(name.replace("_", "") == n.replace("_", "") for n in NAMES)
    assert bad == {}
    # the lists whose meaning is known: the claim, the queue metrics
    assert set(seen["dispatch_claim.sql"]) == {"ADMITTING"}  # once per step of the claim
    assert seen["metrics_queue.sql"] == ["ADMITTING", "ADMITTING"]


async def test_the_live_database_lists_only_named_subsets(pool: asyncpg.Pool) -> None:
    """What the migrations left in the database, whichever migration wrote it: the partial
    indexes of ``deliveries`` and every function that names a ledger state."""
    indexes = await pool.fetch(
        "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'deliveries'"
    )
    predicates = {
        r["indexname"]: r["indexdef"].partition(" WHERE ")[2]
        for r in indexes
        if " WHERE " in r["indexdef"]
    }
    functions = await pool.fetch(
        "SELECT p.proname, pg_get_functiondef(p.oid) AS body FROM pg_proc AS p"
        " JOIN pg_namespace AS n ON n.oid = p.pronamespace"
        " WHERE n.nspname = current_schema() AND p.prokind = 'f'"
    )
    bodies = {r["proname"]: r["body"] for r in functions}
    bad = {}
    named: dict[str, list[str]] = {}
    for where, text in [*predicates.items(), *bodies.items()]:
        lists = ledger_lists(text)
        singles = {n for n in _QUOTED.findall(text) if "state" in text} - NAMES
        if _unnamed(lists):
            bad[where] = _unnamed(lists)
        if lists:
            named[where] = [SUBSET_BY_VALUE.get(x, next(iter(x))) for x in lists]
        assert not any(re.search(rf"state = '{n}'", text) for n in singles), where
    assert bad == {}
    assert "ADMITTING" in {n for v in named.values() for n in v}  # the due index
    assert named["hookproof_ordering_ready"] == ["ORDER_RELEASING"]


def test_console_lists_only_named_subsets() -> None:
    js = CONSOLE_JS.read_text()
    sets = dict(re.findall(r"const (\w+) = new Set\(\[([^\]]*)\]\)", js))
    declared = {k: frozenset(_QUOTED.findall(v)) for k, v in sets.items()}
    ledger_sets = {k: v for k, v in declared.items() if v & NAMES}
    assert ledger_sets == {
        "OPEN": ledger.OPEN,
        "REPLAYABLE": ledger.SUBSETS["REPLAYABLE"],
        "SKIPPABLE": ledger.SUBSETS["SKIPPABLE"],
    }
    # outside those declarations, a state is compared only as a single known name
    rest = re.sub(r"const \w+ = new Set\(\[[^\]]*\]\);", "", js)
    assert _unnamed(ledger_lists(rest)) == []
    compared = re.findall(r"""\.state\s*[!=]==?\s*['"]([A-Z_]+)['"]""", rest)
    # a subscription's state (engine/subscriptions/machine.py) is compared the same way
    assert set(compared) <= NAMES | frozenset(SUBSCRIPTION_STATES)
