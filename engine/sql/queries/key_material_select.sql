SELECT key_id, algorithm, nonce, ciphertext, created_at, destroyed_at
FROM key_material
WHERE key_id = $1
