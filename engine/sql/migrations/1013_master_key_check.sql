-- The master key's check value (issue 48): the fingerprint of the first master key that used
-- this database and a constant sealed under it (AES-GCM, associated data =
-- 'master_key_check'). `serve`, `migrate` and every command that opens sealed material open it
-- first and refuse another key (exit non-zero, nothing written); `/readyz` is not ready while
-- it does not open. One row, written once by the first key, never updated or removed.
CREATE TABLE IF NOT EXISTS master_key_check (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    fingerprint text NOT NULL,
    nonce bytea NOT NULL,
    ciphertext bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE OR REPLACE FUNCTION hookproof_master_key_check_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the master key check value is written once and kept'
        USING ERRCODE = 'insufficient_privilege';
END;
$$;

DROP TRIGGER IF EXISTS master_key_check_guard ON master_key_check;
CREATE TRIGGER master_key_check_guard
    BEFORE UPDATE OR DELETE ON master_key_check
    FOR EACH ROW EXECUTE FUNCTION hookproof_master_key_check_guard();
