-- Replace a tenant's portal branding whole.
INSERT INTO portal_branding (tenant_id, display_name, logo_url, accent_colour, frame_ancestors, updated_at)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (tenant_id) DO UPDATE SET
    display_name = EXCLUDED.display_name,
    logo_url = EXCLUDED.logo_url,
    accent_colour = EXCLUDED.accent_colour,
    frame_ancestors = EXCLUDED.frame_ancestors,
    updated_at = EXCLUDED.updated_at
