"""The README's "Filters" section: its example (one expression per dialect) holds, each
expression for the event shown, through the library and the evaluate route's answer."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hookproof.engine.filters import (
    DIALECTS,
    compile_filters,
    evaluate_filters,
    filter_event_of,
)

ROOT = Path(__file__).resolve().parents[2]


def _example() -> dict[str, object]:
    text = (ROOT / "README.md").read_text()
    block = re.search(
        r"<!-- filters:begin -->\n```json\n(.*?)```\n<!-- filters:end -->", text, re.S
    )
    assert block is not None, "the README's Filters example is missing"
    example: dict[str, object] = json.loads(block.group(1))
    return example


def test_the_readme_example_holds_for_every_dialect() -> None:
    example = _example()
    filters = example["filters"]
    assert isinstance(filters, list)
    assert {next(iter(f)) for f in filters} == set(DIALECTS)  # one per dialect
    event = filter_event_of(example["event"], tenant_id="t1")  # type: ignore[arg-type]
    answer = evaluate_filters(filters, event)
    assert answer["matches"] is True, answer
    assert all("error" not in r and r["value"] is True for r in answer["results"]), answer
    assert compile_filters(filters).matches(event)
    # and each one alone decides: negated, the array no longer holds
    for i, f in enumerate(filters):
        flipped = [*filters[:i], {"not": f}, *filters[i + 1 :]]
        assert not compile_filters(flipped).matches(event), f
