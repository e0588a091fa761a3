-- Key material at rest: private keys and shared secrets, AES-GCM under the master key
-- (associated data = key id). Referenced from the key-<id> event streams by key id only.
-- Destroying (crypto-shredding) erases nonce and ciphertext and keeps the row as a tombstone;
-- the event log is never touched.
CREATE TABLE IF NOT EXISTS key_material (
    key_id text PRIMARY KEY,
    algorithm text NOT NULL CHECK (algorithm IN ('ed25519', 'hmac-sha256')),
    nonce bytea,
    ciphertext bytea,
    created_at timestamptz NOT NULL DEFAULT now(),
    destroyed_at timestamptz,
    CHECK ((destroyed_at IS NULL) = (ciphertext IS NOT NULL AND nonce IS NOT NULL))
);

-- The only update allowed is the one-way erase; material is never replaced or restored.
CREATE OR REPLACE FUNCTION hookproof_key_material_guard() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'key_material rows are kept as tombstones; destroy erases them'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    IF NEW.key_id IS DISTINCT FROM OLD.key_id
       OR NEW.algorithm IS DISTINCT FROM OLD.algorithm
       OR NEW.created_at IS DISTINCT FROM OLD.created_at
       OR OLD.destroyed_at IS NOT NULL
       OR NEW.ciphertext IS NOT NULL OR NEW.nonce IS NOT NULL OR NEW.destroyed_at IS NULL THEN
        RAISE EXCEPTION 'key_material may only be erased, once'
            USING ERRCODE = 'insufficient_privilege';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS key_material_guard ON key_material;
CREATE TRIGGER key_material_guard
    BEFORE UPDATE OR DELETE ON key_material
    FOR EACH ROW EXECUTE FUNCTION hookproof_key_material_guard();
