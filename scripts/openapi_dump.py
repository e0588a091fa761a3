"""Write the API's OpenAPI document (the one ``/openapi.json`` serves, every operation) as
sorted, indented JSON: the single input of the sender SDKs' generators (``make sdk``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hookproof.engine.api.openapi import openapi_document


def main(argv: list[str]) -> int:
    text = json.dumps(openapi_document(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if len(argv) > 1:
        Path(argv[1]).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
