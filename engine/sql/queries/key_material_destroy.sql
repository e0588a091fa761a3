UPDATE key_material
SET nonce = NULL, ciphertext = NULL, destroyed_at = $2
WHERE key_id = $1 AND destroyed_at IS NULL
RETURNING key_id
