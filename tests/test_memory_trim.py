"""A worker gives the memory malloc holds free back to the system (issue 40: worker RSS grew
with free space inside glibc's arenas while the memory in use stayed flat).

A real process fragments its heap the way a busy worker does (many medium blocks freed
around a few that stay), then runs the engine's trim: its RSS falls by most of what was
freed. Without the trim the pages stay (the first reading proves they were not returned on
their own)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hookproof.engine.observe.memory import malloc_trimmer

CHILD = """
import asyncio, json, os
from hookproof.engine.observe.memory import trim_free_memory

page = os.sysconf("SC_PAGE_SIZE")
def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * page

blocks = [bytearray(4000) for _ in range(20000)]    # ~80 MB from malloc (over pymalloc's 512 B)
kept = blocks[::64]                                   # a few stay, pinning the heap
del blocks
held = rss()
trimmed = asyncio.run(trim_free_memory())
print(json.dumps({"held": held, "after": rss(), "trimmed": trimmed, "kept": len(kept)}))
"""


@pytest.mark.skipif(malloc_trimmer() is None, reason="the C library has no malloc_trim")
def test_the_trim_returns_what_malloc_held_free() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=60, check=True
    )
    out = json.loads(done.stdout)
    freed = 20000 * 4000 * 63 // 64
    assert out["trimmed"] is True
    # the freed blocks were still held (RSS at least half of them above a bare interpreter)
    assert out["held"] > freed // 2
    assert out["held"] - out["after"] > freed * 0.6, out
