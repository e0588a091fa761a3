"""The rollout service's reads and its projection row (the ``rollouts`` projection, the figures
from the log): the one place the service reaches the database besides the event store (its
commands run under the stream's lock, ``events.command``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, cast

import asyncpg

from hookproof.engine.db.queries import ENGINE_QUERIES
from hookproof.engine.db.repository import PoolRepository, Record

if TYPE_CHECKING:
    from .machine import RolloutView

__all__ = ["RolloutRepository"]

SQL = ENGINE_QUERIES.named(
    "rollouts_list",
    "rollouts_page",
    "rollouts_live",
    "rollout_upsert",
    "rollout_subscriptions_exist",
    "rollout_figures",
    "rollout_candidates",
)


class RolloutRepository(PoolRepository):
    async def all(self) -> list[Record]:
        """Every rollout's ``view`` (JSON) from the projection."""
        return cast(list[Record], await self.pool.fetch(SQL["rollouts_list"]))

    async def page(self, after: tuple[datetime, str] | None, limit: int) -> list[Record]:
        """At most ``limit`` rollouts (``view``, ``created_at``), oldest first, after ``after``
        (the ``(created_at, rollout_id)`` of the last one of the previous page)."""
        at, last = after if after is not None else (None, None)
        return cast(list[Record], await self.pool.fetch(SQL["rollouts_page"], at, last, limit))

    async def live(self, conn: asyncpg.Connection) -> list[Record]:
        """The views of rollouts that decide signing, locked FOR SHARE in ``conn``'s
        transaction."""
        return cast(list[Record], await conn.fetch(SQL["rollouts_live"]))

    async def save(self, conn: asyncpg.Connection, view: RolloutView, view_json: str) -> None:
        """Upsert the projection row of ``view`` (``view_json``: its serialised form)."""
        await conn.execute(
            SQL["rollout_upsert"],
            view.rollout_id,
            view.state,
            view.stage,
            view.percent,
            view.version,
            view_json,
            datetime.fromisoformat(view.created_at),
            datetime.fromisoformat(view.updated_at),
        )

    async def existing_subscriptions(self, subscription_ids: Sequence[str]) -> set[str]:
        """The ids among ``subscription_ids`` that name a subscription."""
        rows = await self.pool.fetch(SQL["rollout_subscriptions_exist"], list(subscription_ids))
        return {r["subscription_id"] for r in rows}

    async def figures(self, rollout_id: str, since: datetime) -> list[Record]:
        """Admitted attempts of the rollout by stage and signing mode (``rollout_figures``)."""
        return cast(list[Record], await self.pool.fetch(SQL["rollout_figures"], rollout_id, since))

    async def candidates(self, subscription_ids: Sequence[str] | None) -> list[Record]:
        """Live subscriptions (id, profile, algorithm), among ``subscription_ids`` if given."""
        ids = list(subscription_ids) if subscription_ids is not None else None
        return cast(list[Record], await self.pool.fetch(SQL["rollout_candidates"], ids))
