"""The README reads in order for a newcomer: the quick start first, then concepts, then
operating; benchmarks live in bench/README.md; no pointer to a document outside the
repository; every relative link resolves to a file of the checkout."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_order_and_contents() -> None:
    text = (ROOT / "README.md").read_text()
    heads = [h for h in re.findall(r"^## (.+)$", text, re.M)]
    assert heads[0].startswith("Quick start")
    assert heads.index("Concepts") < heads.index("Operating")
    assert "DESIGN.md" not in text
    assert "| benchmark | result | goal |" not in text
    assert "| benchmark | result | goal |" in (ROOT / "bench/README.md").read_text()
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
        assert (ROOT / target).exists(), f"README links to a missing {target}"
