"""Amazon SQS served by moto in server mode, started by the tests on loopback (an embedded test
service, as the NATS tests start ``nats-server``), and a botocore client that reads what the
queue holds (the consumer's side; the engine's side never uses botocore's HTTP stack)."""

from __future__ import annotations

import os
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


def moto_server(env: dict[str, str] | None = None) -> Iterator[int]:
    """A moto server on 127.0.0.1:<port> until the generator is closed."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=None if env is None else {**os.environ, **env},
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
def moto_port() -> Iterator[int]:
    """moto without authentication (any key is accepted)."""
    yield from moto_server()


@pytest.fixture(scope="module")
def moto_auth() -> Iterator[tuple[int, str, str]]:
    """moto checking SigV4 signatures: (port, access key id, secret) of an IAM user made
    while its first four actions are unauthenticated."""
    import botocore.session

    for port in moto_server({"INITIAL_NO_AUTH_ACTION_COUNT": "4"}):
        session = botocore.session.get_session()
        iam = session.create_client(
            "iam",
            region_name=REGION,
            endpoint_url=f"http://127.0.0.1:{port}",
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
        )
        iam.create_user(UserName="hookproof")
        iam.put_user_policy(
            UserName="hookproof",
            PolicyName="all",
            PolicyDocument='{"Version":"2012-10-17","Statement":'
            '[{"Effect":"Allow","Action":"*","Resource":"*"}]}',
        )
        key = iam.create_access_key(UserName="hookproof")["AccessKey"]
        yield port, key["AccessKeyId"], key["SecretAccessKey"]


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
