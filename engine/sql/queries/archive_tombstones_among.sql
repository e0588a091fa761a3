SELECT stream_id FROM archived_streams WHERE stream_id = ANY($1::text[])
