"""Test layers: a loopback-only socket guard, a real Postgres, a fresh database per test.

Postgres is ``HOOKPROOF_TEST_DATABASE_URL`` when set, else an embedded server (pgserver) for the
session. Migrations run once into a template database; each test gets a copy of it. Under
pytest-xdist every worker is a session of its own (its embedded server, its template database);
which tests share a worker is tests/parallel.py's.
"""

from __future__ import annotations

import asyncio
import errno
import ipaddress
import os
import shutil
import socket
import tempfile
import urllib.parse
import uuid
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest

from hookproof.engine.db.migrate import migrate
from tests.parallel import pytest_collection_modifyitems

__all__ = ["pytest_collection_modifyitems"]

# No test may ever ask a real resolver: c-ares opens its own sockets, below the guard. Every
# process started by the tests inherits this loopback address, where nothing answers.
SAFE_DNS = "127.0.0.1:9"
os.environ.setdefault("HOOKPROOF_DNS_SERVERS", SAFE_DNS)

# -- the socket guard ------------------------------------------------------------------------

_VIOLATIONS: list[object] = []
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_real_sendto = socket.socket.sendto


def _is_loopback(address: object) -> bool:
    if isinstance(address, str | bytes):  # AF_UNIX path
        return True
    if isinstance(address, tuple) and address:
        host = address[0]
        try:
            ip = ipaddress.ip_address(str(host).split("%")[0])
        except ValueError:
            return False
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        return ip.is_loopback
    return False


def _guarded(real):  # type: ignore[no-untyped-def]
    def connect(self, address, *args):  # type: ignore[no-untyped-def]
        if not _is_loopback(address) and not os.environ.get("HOOKPROOF_TEST_IN_NETNS"):
            _VIOLATIONS.append(address)
            raise OSError(errno.ENETUNREACH, f"test socket guard: {address!r} is not loopback")
        return real(self, address, *args)

    return connect


socket.socket.connect = _guarded(_real_connect)  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded(_real_connect_ex)  # type: ignore[method-assign]


@pytest.fixture(autouse=True)
def _no_packet_leaves() -> Iterator[None]:
    """Fail any test that tried to connect outside loopback (the guard already refused it)."""
    before = len(_VIOLATIONS)
    yield
    leaked = _VIOLATIONS[before:]
    assert not leaked, f"connect attempted outside loopback: {leaked!r}"


# -- Postgres -------------------------------------------------------------------------------


def _with_database(url: str, dbname: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit(parts._replace(path="/" + dbname))


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """An admin URL of the Postgres server used by the whole session."""
    external = os.environ.get("HOOKPROOF_TEST_DATABASE_URL")
    if external:
        yield external
        return
    import pgserver

    folder = tempfile.mkdtemp(prefix="hp-pg-")
    server = pgserver.get_server(folder, cleanup_mode="delete")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def template_db(pg_server_url: str) -> Iterator[str]:
    """A migrated template database, created once per session (per xdist worker), dropped after."""
    name = f"hookproof_tpl_{os.getpid()}_{uuid.uuid4().hex[:6]}"

    async def build() -> None:
        admin = await asyncpg.connect(pg_server_url)
        try:
            await admin.execute(f'CREATE DATABASE "{name}"')
        finally:
            await admin.close()
        conn = await asyncpg.connect(_with_database(pg_server_url, name))
        try:
            await migrate(conn)
        finally:
            await conn.close()

    asyncio.run(build())
    yield name
    asyncio.run(_drop(pg_server_url, name))


async def _drop(pg_server_url: str, name: str) -> None:
    admin = await asyncpg.connect(pg_server_url)
    try:
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        await admin.close()


@pytest.fixture
async def db_url(pg_server_url: str, template_db: str) -> AsyncIterator[str]:
    """A fresh, migrated database for one test, dropped afterwards (before the next test: a
    drop holds a transaction id, and the store's tail reads only below the server's oldest
    running one, so a drop in the background would hide the next test's fresh events)."""
    name = f"hookproof_t_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(pg_server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template_db}"')
    finally:
        await admin.close()
    yield _with_database(pg_server_url, name)
    await _drop(pg_server_url, name)


@pytest.fixture
async def pool(db_url: str) -> AsyncIterator[asyncpg.Pool]:
    from hookproof.engine.db.database import connect_pool

    p = await connect_pool(db_url, min_size=1, max_size=8)
    try:
        yield p
    finally:
        await p.close()


async def create_database(pg_server_url: str, template: str) -> str:
    """A new database copied from the migrated template; returns its URL."""
    name = f"hookproof_t_{uuid.uuid4().hex[:12]}"
    admin = await asyncpg.connect(pg_server_url)
    try:
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    finally:
        await admin.close()
    return _with_database(pg_server_url, name)


@pytest.fixture(scope="module")
def module_db_url(pg_server_url: str, template_db: str) -> str:
    """A fresh database shared by one test module (for slow, process-level tests)."""
    return asyncio.run(create_database(pg_server_url, template_db))


@pytest.fixture
def db_url_sync(pg_server_url: str, template_db: str) -> Iterator[str]:
    """A fresh database for a synchronous (process-level) test."""
    url = asyncio.run(create_database(pg_server_url, template_db))
    yield url
    asyncio.run(_drop(pg_server_url, urllib.parse.urlsplit(url).path.lstrip("/")))
