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

__all__ = [
    "READ_SERVER_SETTINGS",
    "DatabaseTarget",
    "connect_one",
    "connect_pool",
    "redact_url",
    "resolve_database",
]

SERVER_SETTINGS = {
    "application_name": "hookproof",
    # An abandoned transaction must not hold back every reader of the log (pg_snapshot_xmin).
    "idle_in_transaction_session_timeout": "60000",
}
#: the read pool's sessions (``HOOKPROOF_READ_DATABASE_URL``): named apart, and read-only even
#: when the URL names a primary
READ_SERVER_SETTINGS = {
    **SERVER_SETTINGS,
    "application_name": "hookproof-read",
    "default_transaction_read_only": "on",
}
#: seconds a read pool waits for a connection to a standby before the primary answers instead
READ_CONNECT_TIMEOUT_S = 2.0


@dataclass
class DatabaseTarget:
    """The URL in use and whether it is the embedded server (kept alive by ``handle``)."""

    url: str
    embedded: bool
    data_dir: Path | None = None
    handle: Any = None
    #: the embedded server's directory was made by this command (a first run, or the wrong
    #: directory: another ``serve`` would be using another database)
    created: bool = False

    def describe(self) -> str:
        if self.embedded:
            made = " (new: created by this command)" if self.created else ""
            return f"embedded Postgres (pgserver) in {self.data_dir}{made}"
        return f"external Postgres at {redact_url(self.url)} (HOOKPROOF_DATABASE_URL)"

    def close(self) -> None:
        if self.handle is not None:
            with contextlib.suppress(Exception):
                self.handle.cleanup()
            self.handle = None


def redact_url(url: str) -> str:
    """A libpq URL fit to show: any password (in the authority or the query) replaced by
    ``***``; a string that is not a URL is not shown at all (a keyword DSN may hold one)."""
    if "://" not in url:
        return "(a value that is not a postgresql:// URL)"
    scheme, rest = url.split("://", 1)
    rest, sep, query = rest.partition("?")
    if "@" in rest:
        creds, host = rest.rsplit("@", 1)
        user = creds.split(":", 1)[0]
        rest = f"{user}:***@{host}" if ":" in creds else f"{user}@{host}"
    if sep:
        params = [
            f"{k}=***" if k.lower() in ("password", "passfile", "sslpassword") else f"{k}={v}"
            for k, _, v in (p.partition("=") for p in query.split("&") if p)
        ]
        rest += "?" + "&".join(params)
    return f"{scheme}://{rest}"


def resolve_database(settings: Settings) -> DatabaseTarget:
    """The configured server, or start (or join) the embedded one."""
    if settings.database_url:
        return DatabaseTarget(url=settings.database_url, embedded=False)
    pgdir = (settings.data_dir / "pg").resolve()
    created = not pgdir.is_dir() or not any(pgdir.iterdir())
    pgdir.mkdir(parents=True, exist_ok=True)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # platformdirs: no XDG_RUNTIME_DIR on servers
            import pgserver

        server = pgserver.get_server(str(pgdir), cleanup_mode="stop")  # type: ignore[attr-defined]
        url = server.get_uri()
    except Exception as exc:  # pgserver raises plain exceptions from its subprocesses
        raise StoreError(
            f"could not start the embedded Postgres in {pgdir} ({type(exc).__name__}: {exc});"
            " set HOOKPROOF_DATA_DIR to another directory, or HOOKPROOF_DATABASE_URL to a"
            " running Postgres",
            code="embedded_postgres_failed",
        ) from exc
    (settings.data_dir / "embedded.json").write_text(json.dumps({"url": url}))
    return DatabaseTarget(url=url, embedded=True, data_dir=pgdir, handle=server, created=created)


async def _reset_on_release(conn: asyncpg.Connection) -> None:
    """asyncpg resets every released connection with a round trip (``RESET ALL``, ``UNLISTEN
    *``, ...). hookproof sets no session state: settings are transaction-local, session-level
    advisory locks are unlocked by their holders, listeners are removed by theirs. So only a
    connection left inside a transaction (an error path) is reset."""
    if conn.is_in_transaction():
        await conn.reset()


async def connect_pool(
    url: str, *, min_size: int = 1, max_size: int = 10, read_only: bool = False
) -> asyncpg.Pool:
    """An asyncpg pool with hookproof's session settings; errors become StoreError.

    ``read_only``: a pool of :data:`READ_SERVER_SETTINGS` sessions with a short connect
    timeout (a hot standby's: ``HOOKPROOF_READ_DATABASE_URL``)."""
    import asyncpg  # here, not at the top: the supervisor of ``serve --workers N`` resolves
    # the database with this module and never talks to it

    try:
        pool = await asyncpg.create_pool(
            url,
            min_size=min_size,
            max_size=max_size,
            server_settings=READ_SERVER_SETTINGS if read_only else SERVER_SETTINGS,
            reset=_reset_on_release,
            **({"timeout": READ_CONNECT_TIMEOUT_S} if read_only else {}),
        )
    except (OSError, ValueError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise _unreachable(url, exc) from exc
    assert pool is not None
    return pool


async def connect_one(url: str) -> asyncpg.Connection:
    """One connection with hookproof's session settings; errors become one clear StoreError."""
    import asyncpg

    try:
        return await asyncpg.connect(url, server_settings=SERVER_SETTINGS)
    except (OSError, ValueError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        raise _unreachable(url, exc) from exc


def _unreachable(url: str, exc: BaseException) -> StoreError:
    """One line: which database, what went wrong, which setting to look at (no password:
    the URL is redacted, and the driver's messages do not carry it)."""
    reason = str(exc).splitlines()[0] if str(exc) else ""
    what = f"{type(exc).__name__}: {reason}" if reason else type(exc).__name__
    return StoreError(
        f"cannot connect to Postgres at {redact_url(url)} ({what}); check that it is running"
        " and that HOOKPROOF_DATABASE_URL is right (unset: an embedded Postgres in"
        " HOOKPROOF_DATA_DIR)",
        code="database_unavailable",
    )
