INSERT INTO archived_streams (stream_id, segment_id, category, final_version, final_hash, events,
                              member_offset, member_length, last_recorded_at)
SELECT s.stream_id, $1, s.category, s.final_version, s.final_hash, s.events, s.member_offset,
       s.member_length, s.last_recorded_at
FROM unnest($2::text[], $3::text[], $4::bigint[], $5::bytea[], $6::integer[], $7::bigint[],
            $8::bigint[], $9::timestamptz[])
    AS s(stream_id, category, final_version, final_hash, events, member_offset, member_length,
         last_recorded_at)
