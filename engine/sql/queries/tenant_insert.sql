INSERT INTO tenants (tenant_id, name) VALUES ($1, $2)
