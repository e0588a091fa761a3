"""Ordered, idempotent SQL migrations gathered from every layer's ``sql/migrations``."""

from __future__ import annotations

import asyncpg

from hookproof.events.sqlfiles import migration_files

from .queries import ENGINE_QUERIES

__all__ = ["MIGRATION_PACKAGES", "applied_migrations", "migrate", "pending_migrations"]

MIGRATION_PACKAGES = ("hookproof.events", "hookproof.projections", "hookproof.engine")

SQL = ENGINE_QUERIES.named(
    "migrations_ledger",
    "migrations_ledger_exists",
    "migrations_applied",
    "migration_record",
    "migrations_lock",
    "advisory_unlock",
)
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
    if not await conn.fetchval(SQL["migrations_ledger_exists"]):
        return set()
    return {r["number"] for r in await conn.fetch(SQL["migrations_applied"])}


async def pending_migrations(conn: asyncpg.Connection) -> list[tuple[int, str]]:
    done = await applied_migrations(conn)
    return [(n, name) for n, name, _ in all_migrations() if n not in done]


async def migrate(conn: asyncpg.Connection) -> list[tuple[int, str]]:
    """Apply what is missing, each migration in its own transaction, under an advisory lock."""
    applied: list[tuple[int, str]] = []
    await conn.execute(SQL["migrations_lock"], _LOCK_KEY)
    try:
        await conn.execute(SQL["migrations_ledger"])
        done = await applied_migrations(conn)
        for number, name, sql in all_migrations():
            if number in done:
                continue
            async with conn.transaction():
                await conn.execute(sql)
                await conn.execute(SQL["migration_record"], number, name)
            applied.append((number, name))
    finally:
        await conn.execute(SQL["advisory_unlock"], _LOCK_KEY)
    return applied
