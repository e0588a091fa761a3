"""Write (or ``--check``) the README's configuration table from ``hookproof/config.py``.

python scripts/config_table.py          # rewrite the table between the README's markers
python scripts/config_table.py --check  # exit 1 when the README's table differs
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from hookproof.config import config_table

README = Path(__file__).resolve().parents[1] / "README.md"
BEGIN, END = "<!-- config-table:begin -->", "<!-- config-table:end -->"


def with_table(text: str) -> str:
    """``text`` with the generated table between the markers."""
    pattern = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise SystemExit(f"README.md has no {BEGIN} ... {END} markers")
    return pattern.sub(lambda _m: f"{BEGIN}\n{config_table()}{END}", text, count=1)


def main(argv: list[str]) -> int:
    text = README.read_text()
    wanted = with_table(text)
    if "--check" in argv:
        if wanted != text:
            print(
                "README.md's configuration table differs from hookproof/config.py:"
                " run make config-table",
                file=sys.stderr,
            )
            return 1
        return 0
    README.write_text(wanted)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
