"""The document's problem codes (``engine/api/problem_codes.py``, listed per response as
``x-problem-codes``) are the scan of the code (``scripts/problem_codes.py``): a code added
where an error is raised is in the document, or this fails (regenerate the module)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hookproof.engine.api.openapi import openapi_document
from hookproof.engine.api.problem_codes import PROBLEM_CODES

ROOT = Path(__file__).resolve().parents[2]


def test_the_table_is_the_scan() -> None:
    spec = importlib.util.spec_from_file_location(
        "problem_codes", ROOT / "scripts/problem_codes.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = (ROOT / "engine/api/problem_codes.py").read_text()
    assert module.render(module.scan()) == text, "run scripts/problem_codes.py"


def test_every_problem_response_lists_its_codes() -> None:
    doc = openapi_document()
    for name, response in doc["components"]["responses"].items():
        status = int(name.removeprefix("Problem"))
        assert response["x-problem-codes"] == list(PROBLEM_CODES[status]), name
    assert "event_payload_conflict" in PROBLEM_CODES[409]
    assert {"uri_too_long"} == set(PROBLEM_CODES[414])
    assert {"header_too_large", "too_many_headers"} == set(PROBLEM_CODES[431])
