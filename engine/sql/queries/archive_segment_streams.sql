SELECT stream_id, category FROM archived_streams WHERE segment_id = $1 ORDER BY stream_id
