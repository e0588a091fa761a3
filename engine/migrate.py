"""Ordered, idempotent SQL migrations gathered from every layer's ``sql/migrations``."""

from __future__ import annotations

import asyncpg

from hookproof.events.sqlfiles import migration_files

__all__ = ["MIGRATION_PACKAGES", "applied_migrations", "migrate", "pending_migrations"]

MIGRATION_PACKAGES = ("hookproof.events", "hookproof.projections", "hookproof.engine")

_LEDGER = """
CREATE TABLE IF NOT EXISTS hookproof_migrations (
    number integer PRIMARY KEY,
    name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)
"""
_LOCK_KEY = 0x686F6F6B  # "hook"


def all_migrations() -> list[tuple[int, str, str]]:
    found: dict[int, tuple[int, str, str]] = {}
    for package in MIGRATION_PACKAGES:
        for number, name, sql in migration_files(package):
            if number in found:
                raise RuntimeError(f"migration number {number} used twice ({name})")
            found[number] = (number, name, sql)
    return [found[n] for n in sorted(found)]


async def applied_migrations(conn: asyncpg.Connection) -> set[int]:
    exists = await conn.fetchval("SELECT to_regclass('hookproof_migrations') IS NOT NULL")
    if not exists:
        return set()
    return {r["number"] for r in await conn.fetch("SELECT number FROM hookproof_migrations")}


async def pending_migrations(conn: asyncpg.Connection) -> list[tuple[int, str]]:
    done = await applied_migrations(conn)
    return [(n, name) for n, name, _ in all_migrations() if n not in done]


async def migrate(conn: asyncpg.Connection) -> list[tuple[int, str]]:
    """Apply what is missing, each migration in its own transaction, under an advisory lock."""
    applied: list[tuple[int, str]] = []
    await conn.execute("SELECT pg_advisory_lock($1)", _LOCK_KEY)
    try:
        await conn.execute(_LEDGER)
        done = await applied_migrations(conn)
        for number, name, sql in all_migrations():
            if number in done:
                continue
            async with conn.transaction():
                await conn.execute(sql)
                await conn.execute(
                    "INSERT INTO hookproof_migrations (number, name) VALUES ($1, $2)", number, name
                )
            applied.append((number, name))
    finally:
        await conn.execute("SELECT pg_advisory_unlock($1)", _LOCK_KEY)
    return applied
