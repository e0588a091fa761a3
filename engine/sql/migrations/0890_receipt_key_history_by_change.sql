-- receipt_key_history by change (issue 32, point 5). 0861's trigger added a row for every
-- subscription.updated that carried a key, changed or not, and the receipt check reads the
-- newest 32 rows: 32 ordinary PATCHes after a rotation pushed the superseded key out, and a
-- receipt signed with it answered unknown_key instead of revoked_receipt_key.
--
-- From here on the index holds one row per distinct key (key id and public key) of a
-- subscription, at the version of the newest event that set it: an event adds a row only when
-- its key differs from the subscription's newest row (a new key, or the same key at a new
-- generation), and that row replaces the key's older one. So the newest 32 rows are the newest
-- 32 distinct keys (receipt_subscription_get.sql), read with one bounded index range.

-- the rows 0861 kept: the newest of each distinct key stays, its repeats go
DELETE FROM receipt_key_history AS h
USING (
    SELECT subscription_id, stream_version,
           row_number() OVER (
               PARTITION BY subscription_id,
                            receipt_key ->> 'key_id',
                            receipt_key -> 'public_key_jwk' ->> 'x'
               ORDER BY stream_version DESC
           ) AS nth
    FROM receipt_key_history
) AS d
WHERE d.nth > 1
  AND h.subscription_id = d.subscription_id
  AND h.stream_version = d.stream_version;

CREATE UNIQUE INDEX IF NOT EXISTS receipt_key_history_distinct_key
    ON receipt_key_history (
        subscription_id,
        (receipt_key ->> 'key_id'),
        (receipt_key -> 'public_key_jwk' ->> 'x')
    );

CREATE OR REPLACE FUNCTION hookproof_receipt_key_history() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    k jsonb := hookproof_receipt_key_of(NEW.data);
    sid text := substr(NEW.stream_id, 14);
    newest jsonb;
BEGIN
    IF k IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT h.receipt_key INTO newest
    FROM receipt_key_history AS h
    WHERE h.subscription_id = sid
    ORDER BY h.stream_version DESC
    LIMIT 1;
    IF newest IS NOT DISTINCT FROM k THEN
        RETURN NULL;  -- the key did not change (an ordinary update)
    END IF;
    DELETE FROM receipt_key_history AS h
    WHERE h.subscription_id = sid
      AND h.receipt_key ->> 'key_id' = k ->> 'key_id'
      AND h.receipt_key -> 'public_key_jwk' ->> 'x' = k -> 'public_key_jwk' ->> 'x';
    INSERT INTO receipt_key_history (subscription_id, stream_version, receipt_key)
    VALUES (sid, NEW.stream_version, k)
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;
