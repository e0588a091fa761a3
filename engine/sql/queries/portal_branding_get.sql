-- A tenant's portal branding (no row: none set).
SELECT display_name, logo_url, accent_colour, frame_ancestors, updated_at
FROM portal_branding WHERE tenant_id = $1
