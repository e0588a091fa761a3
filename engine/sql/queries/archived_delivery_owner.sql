-- The tenant an archived delivery belongs to (none: not archived, or archived before 0862).
SELECT tenant_id FROM archived_delivery_owners WHERE delivery_id = $1
