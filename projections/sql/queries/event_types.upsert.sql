INSERT INTO {table} (stream_id, tenant_id, topic, stream_version, majors, deprecated, digest,
                     definition, created_at, updated_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (stream_id) DO UPDATE SET
    stream_version = EXCLUDED.stream_version, majors = EXCLUDED.majors,
    deprecated = EXCLUDED.deprecated, digest = EXCLUDED.digest,
    definition = EXCLUDED.definition, updated_at = EXCLUDED.updated_at
