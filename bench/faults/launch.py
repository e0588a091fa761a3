"""``make faults``: run the fault campaign inside a fresh network namespace with only loopback.

``unshare -n`` needs root (CI runs as root). Where a namespace cannot be made, say so plainly
and exit 0 without running anything: the campaign never runs outside a namespace, because it
puts emulated public addresses on ``lo`` and must not be able to reach any real host.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def why_no_netns() -> str | None:
    if not sys.platform.startswith("linux"):
        return "network namespaces need Linux"
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return "unshare or ip is not installed"
    if os.geteuid() != 0:
        return "unshare -n needs root here"
    probe = subprocess.run(
        ["unshare", "-n", "sh", "-c", "ip link set lo up"], capture_output=True, timeout=10
    )
    if probe.returncode != 0:
        return f"unshare -n refused: {probe.stderr.decode(errors='replace').strip()}"
    return None


def main() -> int:
    reason = why_no_netns()
    if reason:
        print(f"SKIPPED: the fault campaign needs a network namespace ({reason})", flush=True)
        return 0
    args = [sys.executable, str(HERE / "campaign.py"), "--in-netns", *sys.argv[1:]]
    return subprocess.call(["unshare", "-n", *args], cwd=HERE.parents[1])


if __name__ == "__main__":
    sys.exit(main())
