-- The first of the given streams that is archived (NULL when none is).
SELECT min(a.stream_id) FROM archived_streams AS a WHERE a.stream_id = ANY($1::text[])
