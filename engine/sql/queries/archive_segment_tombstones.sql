SELECT stream_id, final_version, final_hash FROM archived_streams WHERE segment_id = $1
