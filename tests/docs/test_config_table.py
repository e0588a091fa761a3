"""The README's configuration table is what ``hookproof/config.py`` reads: the variables
``Settings`` actually looks up (recorded while it reads an environment), the names written in
that file, and the catalogue the table is made from are one set, and the README holds the
table exactly as ``make config-table`` writes it."""

from __future__ import annotations

import ast
import importlib.util
from collections.abc import Iterator, Mapping
from pathlib import Path

import hookproof.config as config
from hookproof.config import VARIABLES, Settings

ROOT = Path(__file__).resolve().parents[2]


class Recording(Mapping[str, str]):
    """An empty environment that remembers every name asked of it."""

    def __init__(self) -> None:
        self.asked: set[str] = set()

    def __getitem__(self, key: str) -> str:
        self.asked.add(key)
        raise KeyError(key)

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        self.asked.add(key)
        return default

    def __contains__(self, key: object) -> bool:
        self.asked.add(str(key))
        return False

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


def _read_names() -> set[str]:
    env = Recording()
    settings = Settings.from_env(env)
    for name in dir(Settings):  # the variables read when used, not at start
        if isinstance(getattr(Settings, name), property):
            getattr(settings, name)
    return {n for n in env.asked if n.startswith("HOOKPROOF_")}


def _written_names() -> set[str]:
    tree = ast.parse(Path(config.__file__).read_text())
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.startswith("HOOKPROOF_")
        and node.value.replace("_", "").isalnum()
        and node.value.isupper()
    }


def test_the_catalogue_is_what_settings_reads() -> None:
    catalogue = [v.name for v in VARIABLES]
    assert len(catalogue) == len(set(catalogue)), "a variable listed twice"
    assert set(catalogue) == _read_names()
    assert set(catalogue) == _written_names()


def test_the_readme_table_is_the_generated_one() -> None:
    spec = importlib.util.spec_from_file_location("config_table", ROOT / "scripts/config_table.py")
    assert spec is not None and spec.loader is not None
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    text = (ROOT / "README.md").read_text()
    assert script.with_table(text) == text, "run make config-table"
    for v in VARIABLES:
        assert f"| `{v.name}` |" in text
