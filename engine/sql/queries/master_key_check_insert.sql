-- The first key's check value; a concurrent first start with another key loses (and is refused
-- when it reads the winner's row back).
INSERT INTO master_key_check (fingerprint, nonce, ciphertext)
VALUES ($1, $2, $3)
ON CONFLICT (id) DO NOTHING
