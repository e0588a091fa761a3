CREATE INDEX ON pg_temp.events (stream_id, stream_version);
CREATE INDEX ON pg_temp.events (category, type);
ANALYZE pg_temp.events
