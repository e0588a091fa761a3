-- How many event types a tenant has (the catalogue's per-tenant bound).
SELECT count(*) FROM event_types WHERE tenant_id = $1
