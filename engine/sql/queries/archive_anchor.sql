SELECT hookproof_archive_anchor($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12,
                                $13::text[], $14::text[], $15::bigint[], $16::bytea[],
                                $17::integer[], $18::bigint[], $19::bigint[], $20::timestamptz[])
