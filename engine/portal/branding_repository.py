"""The ``portal_branding`` table: a tenant's checked portal branding (:mod:`.branding`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from ..db.queries import ENGINE_QUERIES
from ..db.repository import PoolRepository

__all__ = ["BrandingRepository"]

SQL = ENGINE_QUERIES.named("portal_branding_get", "portal_branding_put")


class BrandingRepository(PoolRepository):
    async def get(self, tenant_id: str) -> dict[str, Any] | None:
        row = await self.pool.fetchrow(SQL["portal_branding_get"], tenant_id)
        if row is None:
            return None
        return {
            "displayName": row["display_name"],
            "logoUrl": row["logo_url"],
            "accentColour": row["accent_colour"],
            "frameAncestors": list(row["frame_ancestors"]),
        }

    async def put(self, tenant_id: str, branding: dict[str, Any]) -> None:
        await self.pool.execute(
            SQL["portal_branding_put"],
            tenant_id,
            branding["displayName"],
            branding["logoUrl"],
            branding["accentColour"],
            branding["frameAncestors"],
            datetime.now(UTC),
        )
