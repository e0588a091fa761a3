"""The README's main job: ``hookproof demo`` as a real process, from this checkout."""

from __future__ import annotations

import os
import re
from pathlib import Path

import psutil

from ..daemon import run_cli


def test_demo_runs_end_to_end_and_leaves_nothing_running() -> None:
    before = {p.pid for p in psutil.process_iter()}
    env = {k: v for k, v in os.environ.items() if not k.startswith("HOOKPROOF_")}
    r = run_cli(["demo", "--events", "4"], env, timeout=120)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    out = r.stdout
    assert "-> ACTIVE (challenge over HTTPS)" in out
    assert "rotated the engine key" in out and "suspended: 0" in out
    assert "APPLICATION_CONFIRMED" in out and "UNOBSERVABLE" in out
    assert "no gate failed" in out and "nothing left running" in out
    # one screen: the engine's JSON log lines go to the file the report names, not into it;
    # the ladder is a line per subscriber and outcome; a ratio of rates reads as a percentage
    assert not [line for line in out.splitlines() if line.lstrip().startswith("{")]
    assert len(out.splitlines()) <= 60, len(out.splitlines())
    log = re.search(r"^\[demo\] the engine's log \(kept\): (\S+)$", out, re.M)
    assert log and '"event":"egress_allowance_configured"' in Path(log.group(1)).read_text()
    Path(log.group(1)).unlink()
    gate = re.search(r"^  PASS +rotation_acceptance +(\d+\.\d)% +\(needs >= 99\.95%\)$", out, re.M)
    assert gate, out[-2500:]
    assert re.search(r"^ +accepted during key rotation \d+\.\d%, outside it \d+\.\d%$", out, re.M)
    assert re.search(
        r"^  ledger +\d+ +APPLICATION_CONFIRMED +ENDPOINT_ACCEPTED +CONFIRMED ", out, re.M
    )
    # the rollout: the mailer moves from Standard Webhooks to hookproof.sig.v1, stage by stage
    assert "== rollout: mailer from standard-webhooks.v1 to hookproof.sig.v1 ==" in out
    assert "SHADOW     checked 4, mismatches 0" in out
    for stage, verified in [
        ("SHADOW", "standard-webhooks.v1"),
        ("INTERNAL", "hookproof.sig.v1+standard-webhooks.v1"),
        (r"CUTOVER 100% \(dual window\)", "hookproof.sig.v1+standard-webhooks.v1"),
        (r"CUTOVER 100% \(window over\)", "hookproof.sig.v1"),
        ("COMPLETE", "hookproof.sig.v1"),
    ]:
        assert re.search(rf"^  {stage}\s+{re.escape(verified)}$", out, re.M), (stage, out[-2500:])
    assert "PASS         rollout:ro_" in out
    # two consumers, each receiving only its own events
    assert "== sending to your customers: two consumers ==" in out
    for name in ("acme-corp", "globex"):
        own = ", ".join(f"inv-{name}-{i}" for i in range(3))
        assert f"[demo] consumer {name} received {own} (only its own)" in out, out[-2500:]
    assert "inv-nobody" not in out.split("== sending to your customers")[1].split("==")[0]
    assert "/console#portal=hpp_" in out
    # the last part: a NATS JetStream destination (embedded nats-server from the package)
    assert "-> ACTIVE (challenge read from nats://" in out, out[-2500:]
    seqs = re.findall(r"ENDPOINT_ACCEPTED  stream DEMO_ORDERS seq (\d+)  \(verified", out)
    assert len(seqs) == 3 and len(set(seqs)) == 3, out[-2500:]
    leftovers = [
        p
        for p in psutil.process_iter(["pid", "name", "status"])
        if p.pid not in before
        and "postgres" in (p.info["name"] or "")
        and p.info["status"] != psutil.STATUS_ZOMBIE  # exited, awaiting its reaper
        and _of_the_demo(p)
    ]
    assert leftovers == []


def _of_the_demo(p: psutil.Process) -> bool:
    """The demo's own Postgres (its data folder is named hookproof-demo-*), not another
    program's server that happened to start meanwhile on a shared machine."""
    try:
        chain = [p, *p.parents()]
        return any("hookproof-demo-" in " ".join(q.cmdline()) for q in chain)
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        return False
