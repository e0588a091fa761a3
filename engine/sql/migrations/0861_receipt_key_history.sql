-- Every receipt key a subscription registered, kept beside the log so that POST /v1/receipts
-- (no bearer token: anyone may send one) costs one bounded read of the subscription's current
-- state (its projection row and its newest receipt keys), never a read and fold of its stream.
-- Filled by a trigger in the transaction that appends the subscription's event; the rows of
-- events already in the log are copied below. Evidence stays in the log: this is an index.
CREATE TABLE IF NOT EXISTS receipt_key_history (
    subscription_id text NOT NULL,
    stream_version bigint NOT NULL,
    receipt_key jsonb NOT NULL,
    PRIMARY KEY (subscription_id, stream_version)
);

CREATE OR REPLACE FUNCTION hookproof_receipt_key_of(p_data bytea) RETURNS jsonb
LANGUAGE sql IMMUTABLE AS $$
    SELECT nullif(convert_from(p_data, 'UTF8')::jsonb -> 'config' -> 'receipt_key', 'null'::jsonb)
$$;

CREATE OR REPLACE FUNCTION hookproof_receipt_key_history() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    k jsonb := hookproof_receipt_key_of(NEW.data);
BEGIN
    IF k IS NOT NULL THEN
        INSERT INTO receipt_key_history (subscription_id, stream_version, receipt_key)
        VALUES (substr(NEW.stream_id, 14), NEW.stream_version, k)
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS events_receipt_key_history ON events;
CREATE TRIGGER events_receipt_key_history AFTER INSERT ON events
    FOR EACH ROW
    WHEN (NEW.type IN ('subscription.registered', 'subscription.updated'))
    EXECUTE FUNCTION hookproof_receipt_key_history();

INSERT INTO receipt_key_history (subscription_id, stream_version, receipt_key)
SELECT substr(e.stream_id, 14), e.stream_version, hookproof_receipt_key_of(e.data)
FROM events AS e
WHERE e.type IN ('subscription.registered', 'subscription.updated')
  AND hookproof_receipt_key_of(e.data) IS NOT NULL
ON CONFLICT DO NOTHING;
