-- deliveries_insert_planned for a few rows: the same rows from 32 parallel arrays in one
-- statement (no staging round trips). Also the ledger's incremental write of the rows an
-- append folded (engine/recording/inline.py: admissions, outcomes): one upsert for all of
-- them, never two rows of one delivery.
INSERT INTO deliveries (
-- include: hookproof.projections:deliveries_columns
)
SELECT * FROM unnest(
    $1::text[],
    $2::text[],
    $3::text[],
    $4::text[],
    $5::integer[],
    $6::text[],
    $7::text[],
    $8::text[],
    $9::text[],
    $10::text[],
    $11::boolean[],
    $12::integer[],
    $13::text[],
    $14::integer[],
    $15::timestamptz[],
    $16::text[],
    $17::timestamptz[],
    $18::text[],
    $19::integer[],
    $20::text[],
    $21::text[],
    $22::text[],
    $23::timestamptz[],
    $24::timestamptz[],
    $25::timestamptz[],
    $26::bigint[],
    $27::timestamptz[],
    $28::timestamptz[],
    $29::text[],
    $30::bigint[],
    $31::double precision[],
    $32::boolean[]
)
-- include: hookproof.projections:deliveries_upsert_set
