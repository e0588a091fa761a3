INSERT INTO {table} (stream_id, tenant_id, consumer_id, name, metadata, disabled,
                     stream_version, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
ON CONFLICT (stream_id) DO UPDATE SET
    name = EXCLUDED.name, metadata = EXCLUDED.metadata, disabled = EXCLUDED.disabled,
    stream_version = EXCLUDED.stream_version, updated_at = EXCLUDED.updated_at
