"""The TypeScript SDK's reason codes are the Python SDK's: same names, same spelling, same order
(``subscriber-ts/src/reasons.ts`` parsed here; the TS tests compare the exported fixture too)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from hookproof_subscriber import Reason

TS = Path(__file__).resolve().parents[2] / "subscriber-ts"


def _ts_reasons() -> list[str]:
    source = (TS / "src" / "reasons.ts").read_text()
    m = re.search(r"export const REASONS = \[(.*?)\] as const;", source, re.S)
    assert m is not None, "REASONS not found in reasons.ts"
    return re.findall(r'"([a-z_]+)"', m[1])


def test_typescript_reason_codes_equal_the_python_sdks() -> None:
    assert _ts_reasons() == [str(r) for r in Reason]


def test_the_committed_fixture_lists_the_python_reasons() -> None:
    exported = json.loads((TS / "test" / "fixtures" / "reasons.json").read_text())
    assert exported == [str(r) for r in Reason]
