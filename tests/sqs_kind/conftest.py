"""Amazon SQS served by moto in server mode, started by the tests on loopback (an embedded test
service, as the NATS tests start ``nats-server``), and a botocore client that reads what the
queue holds (the consumer's side; the engine's side never uses botocore's HTTP stack)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

REGION = "us-east-1"
#: moto's credentials: anything is accepted; the secret is distinctive so scans can find it
ACCESS_KEY = "AKIAHOOKPROOFTEST0001"
SECRET_KEY = "hookproof-test-secret-7f3c9a0e1b2d4c5e6f708192a3b4c5d6"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def moto_port() -> Iterator[int]:
    """A moto server on 127.0.0.1:<port>, stopped after the module."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("moto server did not start")
                time.sleep(0.2)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def sqs(moto_port: int) -> Any:
    """A botocore SQS client against the moto server (the consumer's side)."""
    import botocore.session

    session = botocore.session.get_session()
    return session.create_client(
        "sqs",
        region_name=REGION,
        endpoint_url=f"http://127.0.0.1:{moto_port}",
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
    )
