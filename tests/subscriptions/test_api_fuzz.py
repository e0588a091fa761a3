"""Fuzz every route the running daemon documents (its own ``/openapi.json``, fetched live, so
routes added later are covered too) against a daemon process: 0 responses >= 500.

Two layers, both seeded (``derandomize``) and bounded so the run stays short:

- schemathesis, positive and negative generation (bodies, query, path parameters, headers);
- a raw-socket pass that puts arbitrary bytes where no HTTP client library would: path
  parameters (percent-encoded bytes, NUL, lone surrogates), ``Authorization``, ``If-Match``
  and ``Content-Type`` values with non-UTF-8 bytes, and arbitrary bodies.
"""

from __future__ import annotations

import json
import re
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote_from_bytes, urlsplit

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis.checks import not_a_server_error
from schemathesis.generation import GenerationMode

from ..daemon import Daemon, run_cli, start_daemon

_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))
_BUDGET = 450  # schemathesis cases per generation mode, over all operations
_SETTINGS = settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)


@pytest.fixture(scope="module")
def daemon(
    module_db_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Daemon, str]]:
    folder: Path = tmp_path_factory.mktemp("fuzz")
    env = {"HOOKPROOF_DATABASE_URL": module_db_url, "HOOKPROOF_DATA_DIR": str(folder)}
    created = run_cli(["tenant", "create", "fuzz", "--json"], env)
    token = json.loads(created.stdout.strip().splitlines()[-1])["token"]
    d = start_daemon(env, folder)
    try:
        yield d, token
    finally:
        d.stop()
        log = d.log()
        assert "api_unhandled" not in log, log[-4000:]


@pytest.fixture(scope="module")
def live_document(daemon: tuple[Daemon, str]) -> dict[str, Any]:
    with _OPENER.open(daemon[0].base_url + "/openapi.json", timeout=10) as r:
        doc: dict[str, Any] = json.loads(r.read())
    return doc


def test_no_server_errors(daemon: tuple[Daemon, str], live_document: dict[str, Any]) -> None:
    """Each documented operation: positive and negative cases, seeded, none answered >= 500."""
    d, token = daemon
    schema = schemathesis.openapi.from_dict(live_document)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == len(_operations(live_document))
    # a bounded budget whatever the number of routes: the run stays short in CI
    per_operation = max(5, min(25, _BUDGET // max(1, len(operations))))
    for operation in operations:
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @given(case=operation.as_strategy(generation_mode=mode))
            @settings(_SETTINGS, max_examples=per_operation)
            def run(case: Any) -> None:
                case.call_and_validate(
                    base_url=d.base_url,
                    headers={"Authorization": f"Bearer {token}"},
                    checks=[not_a_server_error],
                    timeout=15,
                )

            try:
                run()
            except Unsatisfiable:  # nothing to negate: no parameters, headers or body
                assert mode is GenerationMode.NEGATIVE, operation.label


def _operations(doc: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted((m.upper(), p) for p, ops in doc["paths"].items() for m in ops)


def _send(base_url: str, request: bytes) -> int:
    url = urlsplit(base_url)
    with socket.create_connection((url.hostname, url.port), timeout=15) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1])


_HEADER_BYTES = st.binary(max_size=120).map(lambda b: b.replace(b"\r", b"").replace(b"\n", b""))
_ODD_IDS = st.one_of(
    st.binary(min_size=1, max_size=300).map(lambda b: quote_from_bytes(b, safe="")),
    st.sampled_from(["%00", "%ED%A0%80", "%C0%80", "%FF%FE", "x" * 5000, "sub_%00", "%2e%2e"]),
    st.text(max_size=50).map(lambda t: quote_from_bytes(t.encode("utf-8", "surrogatepass"))),
)


def test_raw_bytes_in_paths_and_headers(
    daemon: tuple[Daemon, str], live_document: dict[str, Any]
) -> None:
    d, token = daemon
    operations = _operations(live_document)
    assert len(operations) >= 20, operations
    bearer = f"Bearer {token}".encode()

    @given(
        op=st.sampled_from(operations),
        ident=_ODD_IDS,
        auth=st.one_of(st.just(bearer), _HEADER_BYTES, _HEADER_BYTES.map(lambda b: bearer + b)),
        if_match=_HEADER_BYTES,
        content_type=st.one_of(st.just(b"application/json"), _HEADER_BYTES),
        body=st.one_of(st.binary(max_size=300), st.just(b"{}"), st.just(b"[" * 3000)),
    )
    @settings(_SETTINGS, max_examples=400)
    def probe(
        op: tuple[str, str],
        ident: str,
        auth: bytes,
        if_match: bytes,
        content_type: bytes,
        body: bytes,
    ) -> None:
        method, template = op
        path = re.sub(r"\{[^}]+\}", ident, template).encode()
        head = [
            method.encode() + b" " + path + b" HTTP/1.1",
            b"Host: 127.0.0.1",
            b"Connection: close",
            b"Authorization: " + auth,
            b"If-Match: " + if_match,
            b"Content-Type: " + content_type,
            b"Content-Length: " + str(len(body)).encode(),
        ]
        status = _send(d.base_url, b"\r\n".join(head) + b"\r\n\r\n" + body)
        assert status < 500, (method, path, auth, if_match, content_type, body[:80], status)

    probe()
