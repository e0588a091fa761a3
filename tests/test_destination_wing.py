"""The destinations wing (issue 47, DESIGN.md section 15): kinds come from the
``hookproof.destinations`` entry points through one registry, nothing outside
``engine/destinations/`` imports a kind's subpackage, and the dispatcher names no kind."""

from __future__ import annotations

import ast
import json
from importlib.metadata import EntryPoint, entry_points
from pathlib import Path

import pytest

from hookproof.engine.cli import main
from hookproof.engine.destinations.kind import KindSpec
from hookproof.engine.destinations.registry import GROUP, KindLoadError, installed, load

from .test_import_graph import MODULES, _graph

WING = "hookproof.engine.destinations"
BUILT_IN = {"https", "amqp", "nats", "relay", "sqs"}
#: the relay feature (hub, sessions, the ``listen`` client) serves the relay kind: it reads
#: the kind's codes and session results by name (docs/layout.md)
SERVES = {"hookproof.engine.relay": "relay", "hookproof.engine.cli.listen": "relay"}
#: what still reads a kind's vocabulary by name outside the wing: the subscription side
#: checks a relay's loopback receiver and binds its config itself (a kind's own parse of its
#: ``destination`` object is issue 47's next step). The list may only shrink.
KNOWN = {"hookproof.engine.subscriptions.service": "relay"}


def test_the_built_in_kinds_are_entry_points_of_one_group() -> None:
    names = {e.name for e in entry_points(group=GROUP)}
    assert names >= BUILT_IN
    registry = installed()
    assert set(registry.names) == names
    assert all(isinstance(registry.get(n), KindSpec) for n in names)
    assert registry.default.name == "https"


@pytest.mark.parametrize(
    ("endpoint", "kind", "signs"),
    [
        ("https://hooks.example.com/x", "https", False),
        ("amqps://b.example.com:5671/%2F", "amqp", True),
        ("amqp://127.0.0.1:5672/", "amqp", True),
        ("tls://n.example.com:4222", "nats", True),
        ("nats://127.0.0.1:4222", "nats", True),
        ("http://localhost:3000/hooks", "relay", False),
        ("ftp://x/", "https", False),  # the default refuses what it cannot carry
    ],
)
def test_an_attempt_finds_its_kind_by_its_endpoint(endpoint: str, kind: str, signs: bool) -> None:
    registry = installed()
    assert registry.kind_of(endpoint).name == kind
    assert registry.signs_own_form(endpoint) is signs


def _entry(name: str, value: str) -> EntryPoint:
    return EntryPoint(name=name, value=value, group=GROUP)


@pytest.mark.parametrize(
    ("entries", "code"),
    [
        ([_entry("https", "hookproof.engine.destinations.amqp.kind:KIND")], "kind_name_mismatch"),
        ([_entry("x", "hookproof.engine.destinations.kind:FIELD_TYPES")], "kind_not_a_spec"),
        ([_entry("x", "hookproof_no_such_module:KIND")], "kind_import_failed"),
        ([_entry("amqp", "hookproof.engine.destinations.amqp.kind:KIND")], "kind_default"),
        (
            [
                _entry("https", "hookproof.engine.destinations.https.kind:KIND"),
                _entry("https", "hookproof.engine.destinations.https.kind:KIND"),
            ],
            "kind_duplicate",
        ),
    ],
)
def test_a_bad_entry_is_a_typed_load_error(entries: list[EntryPoint], code: str) -> None:
    with pytest.raises(KindLoadError) as caught:
        load(entries)
    assert caught.value.code == code


def _kind_packages() -> dict[str, str]:
    """Each kind's subpackage of the wing (a folder named for an installed kind)."""
    return {f"{WING}.{name}": name for name in installed().names if f"{WING}.{name}" in MODULES}


def _kind_imports() -> dict[str, set[str]]:
    packages = _kind_packages()
    found: dict[str, set[str]] = {}
    for module, deps in _graph().items():
        if module == WING or module.startswith(WING + "."):
            continue
        for dep in deps:
            for package, kind in packages.items():
                if dep == package or dep.startswith(package + "."):
                    found.setdefault(module, set()).add(kind)
    return found


def test_no_module_outside_the_wing_imports_a_kind() -> None:
    assert set(_kind_packages().values()) == BUILT_IN
    found = _kind_imports()
    served = {
        m: kinds
        for m, kinds in found.items()
        if not any(m == f or m.startswith(f + ".") for f in SERVES)
    }
    for module, kinds in found.items():
        for folder, kind in SERVES.items():
            if module == folder or module.startswith(folder + "."):
                assert kinds == {kind}, module
    assert {m: sorted(k) for m, k in served.items()} == {m: [k] for m, k in KNOWN.items()}


def _strings(path: str) -> set[str]:
    tree = ast.parse(Path(path).read_text())
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in docstrings
    }


def test_the_dispatcher_names_no_kind() -> None:
    path = MODULES["hookproof.engine.delivery.dispatcher"]
    named = _strings(str(path)) & set(installed().names)
    assert named == set()
    imports = _graph()["hookproof.engine.delivery.dispatcher"]
    assert not [d for d in imports if any(d.startswith(p) for p in _kind_packages())]


def test_the_kind_finder_sees_a_string(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text('"""doc: amqp"""\nif kind == "nats":\n    pass\n')
    assert _strings(str(path)) == {"nats"}


def test_destinations_list_shows_each_kind_with_its_fields(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["destinations", "list", "--json"]) == 0
    shown = {k["name"]: k for k in json.loads(capsys.readouterr().out)["kinds"]}
    assert set(shown) == set(installed().names)
    amqp = {f["name"]: f for f in shown["amqp"]["fields"]}
    assert amqp["credentials"]["secret"] and not amqp["url"]["secret"]
    assert set(amqp) == {"url", "credentials", "exchange", "routingKey"}
    assert shown["https"]["default"] and shown["nats"]["signsOwnForm"]
    assert main(["destinations", "list"]) == 0
    text = capsys.readouterr().out
    assert "credentials (object, optional, write-only)" in text


def test_a_reporting_kind_has_its_own_rooms_and_label() -> None:
    """The relay kind's room key is what the ledger's rows already hold (one room per
    subscription), its acceptance reads RELAY_REPORTED; an HTTPS or broker endpoint keeps
    its digest and the engine's own ENDPOINT_ACCEPTED."""
    from hookproof.engine.destinations.registry import reported_as, reported_by, room_key
    from hookproof.engine.destinations.relay.endpoint import room_key as relay_room_key

    local = "http://localhost:3000/hooks"
    assert room_key("sub_a", local, "d" * 64) == relay_room_key("sub_a", local, "d" * 64)
    assert room_key("sub_a", local, "d" * 64) != room_key("sub_b", local, "d" * 64)
    for endpoint in ("https://a.example.com/x", "tls://n.example.com:4222"):
        assert room_key("sub_a", endpoint, "d" * 64) == "d" * 64
        assert reported_as(endpoint) is None
    assert reported_as(local) == "RELAY_REPORTED"
    assert reported_by("relay:ses_1") == "RELAY_REPORTED"
    assert reported_by("relay:ses_1/cli") == "RELAY_REPORTED"
    assert reported_by("203.0.113.7:443") is None and reported_by(None) is None
    assert reported_by("[2001:db8::1]:443") is None
