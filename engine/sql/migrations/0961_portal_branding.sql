-- A tenant's portal branding (PUT /v1/portal/branding; issue 39): the name, logo and accent
-- colour its customers see in the portal, and the origins allowed to frame the portal
-- (the CSP frame-ancestors of GET /portal/{tenantId}; none by default). One row per tenant,
-- replaced whole; values are checked before they are stored (engine/portal/branding.py).
CREATE TABLE IF NOT EXISTS portal_branding (
    tenant_id text PRIMARY KEY,
    display_name text,
    logo_url text,
    accent_colour text,
    frame_ancestors text[] NOT NULL DEFAULT '{}',
    updated_at timestamptz NOT NULL
);
