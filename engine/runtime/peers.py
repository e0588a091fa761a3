"""``serve`` processes sharing one embedded database (the same ``HOOKPROOF_DATA_DIR``).

pgserver lets a second process join a Postgres already running on a data directory (it keeps
the server while any of them lives), so a second ``serve`` on another port silently joined the
first one's database, maybe with other egress settings: two daemons claiming from one queue,
one allowed to reach an address the other refuses. Each ``serve`` on an embedded database now
leaves a record in ``<data dir>/daemons/<pid>.json`` (its listen address and egress settings,
none of them secret) while it runs. A ``serve`` that finds a live one says which daemon it
joined, and refuses to start when its egress settings differ (one line naming the settings;
:class:`ConfigurationError`, exit 78). ``differences`` is pure; the rest is file I/O.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hookproof.config import Settings
from hookproof.errors import ConfigurationError

__all__ = ["DaemonRecord", "differences", "egress_of", "join_embedded"]

FOLDER = "daemons"


@dataclass(frozen=True, slots=True)
class DaemonRecord:
    pid: int
    listen: str
    egress: dict[str, str]


def egress_of(settings: Settings) -> dict[str, str]:
    """The settings that decide where a daemon may send, as the operator writes them."""
    pairs = sorted(settings.egress_allow)
    return {
        "HOOKPROOF_EGRESS_ALLOW": ",".join(
            f"[{h}]:{p}" if ":" in h else f"{h}:{p}" for h, p in pairs
        ),
        "HOOKPROOF_EGRESS_CA_FILE": settings.egress_ca_file or "",
        "HOOKPROOF_EGRESS_PORTS": ",".join(str(p) for p in sorted(settings.egress_ports)),
        "HOOKPROOF_EGRESS_PROXY": settings.egress_proxy or "",
    }


def differences(mine: dict[str, str], theirs: dict[str, str]) -> list[str]:
    """``NAME: 'this' here, 'that' there`` for each setting that differs (pure)."""
    out = []
    for name in sorted(set(mine) | set(theirs)):
        here, there = mine.get(name, ""), theirs.get(name, "")
        if here != there:
            out.append(f"{name}: {here or 'unset'!r} here, {there or 'unset'!r} there")
    return out


def _alive(pid: int) -> bool:
    """A live ``hookproof`` process (a record left by a killed daemon, its pid reused by
    another program, does not count)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    with contextlib.suppress(OSError):
        return b"hookproof" in Path(f"/proc/{pid}/cmdline").read_bytes()
    return True


def _records(folder: Path) -> list[DaemonRecord]:
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            doc: dict[str, Any] = json.loads(path.read_text())
            record = DaemonRecord(int(doc["pid"]), str(doc["listen"]), dict(doc["egress"]))
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if _alive(record.pid):
            found.append(record)
        else:
            with contextlib.suppress(OSError):
                path.unlink()  # its daemon is gone
    return found


def join_embedded(settings: Settings, log: Callable[..., Any]) -> Callable[[], None]:
    """Before ``serve`` starts on the embedded database: say which running daemon it joins,
    refuse differing egress settings, leave this daemon's record. Returns what removes it."""
    folder = settings.data_dir.resolve() / FOLDER
    mine = egress_of(settings)
    here = f"{settings.listen_host}:{settings.listen_port}"
    for peer in _records(folder) if folder.is_dir() else []:
        diff = differences(mine, peer.egress)
        if diff:
            raise ConfigurationError(
                f"another hookproof serve (pid {peer.pid}, on {peer.listen}) already runs on the"
                f" embedded database in {settings.data_dir.resolve()} with other egress settings"
                f" ({'; '.join(diff)}): start this one with the same settings, or give it"
                " another HOOKPROOF_DATA_DIR",
                code="embedded_egress_differs",
                field="HOOKPROOF_EGRESS_ALLOW",
            )
        log(
            "daemon_joined",
            peer_pid=peer.pid,
            peer_listen=peer.listen,
            data_dir=str(settings.data_dir.resolve()),
            egress="shared",
        )
        print(
            f"hookproof: joined the embedded database of the daemon pid {peer.pid} on"
            f" {peer.listen}; both use the same egress settings",
            flush=True,
            file=sys.stderr,
        )
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{os.getpid()}.json"
    path.write_text(json.dumps({"pid": os.getpid(), "listen": here, "egress": mine}))

    def leave() -> None:
        with contextlib.suppress(OSError):
            path.unlink()

    return leave
