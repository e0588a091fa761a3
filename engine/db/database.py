"""Which Postgres we talk to: ``HOOKPROOF_DATABASE_URL``, or an embedded one under the data dir."""

from __future__ import annotations

import contextlib
import json
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hookproof.config import Settings
from hookproof.errors import StoreError

if TYPE_CHECKING:
    import asyncpg

__all__ = ["DatabaseTarget", "connect_pool", "resolve_database"]

SERVER_SETTINGS = {
    "application_name": "hookproof",
    # An abandoned transaction must not hold back every reader of the log (pg_snapshot_xmin).
    "idle_in_transaction_session_timeout": "60000",
}


@dataclass
class DatabaseTarget:
    """The URL in use and whether it is the embedded server (kept alive by ``handle``)."""

    url: str
    embedded: bool
    data_dir: Path | None = None
    handle: Any = None

    def describe(self) -> str:
        if self.embedded:
            return f"embedded Postgres (pgserver) in {self.data_dir}"
        return f"external Postgres at {_redact(self.url)}"

    def close(self) -> None:
        if self.handle is not None:
            with contextlib.suppress(Exception):
                self.handle.cleanup()
            self.handle = None


def _redact(url: str) -> str:
    """Drop any password from a libpq URL before showing it."""
    if "://" not in url or "@" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}" if ":" in creds else f"{scheme}://{user}@{host}"


def resolve_database(settings: Settings) -> DatabaseTarget:
    """The configured server, or start (or join) the embedded one."""
    if settings.database_url:
        return DatabaseTarget(url=settings.database_url, embedded=False)
    pgdir = (settings.data_dir / "pg").resolve()
    pgdir.mkdir(parents=True, exist_ok=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs: no XDG_RUNTIME_DIR on servers
            import pgserver

        server = pgserver.get_server(str(pgdir), cleanup_mode="stop")  # type: ignore[attr-defined]
        url = server.get_uri()
    except Exception as exc:  # pgserver raises plain exceptions from its subprocesses
        raise StoreError(
            f"could not start the embedded Postgres in {pgdir}", code="embedded_postgres_failed"
        ) from exc
    (settings.data_dir / "embedded.json").write_text(json.dumps({"url": url}))
    return DatabaseTarget(url=url, embedded=True, data_dir=pgdir, handle=server)


async def _reset_on_release(conn: asyncpg.Connection) -> None:
    """asyncpg resets every released connection with a round trip (``RESET ALL``, ``UNLISTEN
    *``, ...). hookproof sets no session state: settings are transaction-local, session-level
    advisory locks are unlocked by their holders, listeners are removed by theirs. So only a
    connection left inside a transaction (an error path) is reset."""
    if conn.is_in_transaction():
        await conn.reset()


async def connect_pool(url: str, *, min_size: int = 1, max_size: int = 10) -> asyncpg.Pool:
    """An asyncpg pool with hookproof's session settings; errors become StoreError."""
    import asyncpg  # here, not at the top: the supervisor of ``serve --workers N`` resolves
    # the database with this module and never talks to it

    try:
        pool = await asyncpg.create_pool(
            url,
            min_size=min_size,
            max_size=max_size,
            server_settings=SERVER_SETTINGS,
            reset=_reset_on_release,
        )
    except (OSError, asyncpg.PostgresError) as exc:
        raise StoreError(
            f"cannot connect to Postgres: {type(exc).__name__}", code="database_unavailable"
        ) from exc
    assert pool is not None
    return pool
