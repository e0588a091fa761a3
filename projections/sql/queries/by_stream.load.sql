SELECT * FROM {table} WHERE stream_id = ANY($1::text[])
