-- The newest engine signing key's sealed material (what signing needs first).
SELECT key_id AS sealed_id, nonce, ciphertext
FROM key_material
WHERE destroyed_at IS NULL AND algorithm = 'ed25519'
ORDER BY created_at DESC, key_id DESC
LIMIT 1
