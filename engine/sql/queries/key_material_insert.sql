INSERT INTO key_material (key_id, algorithm, nonce, ciphertext, created_at)
VALUES ($1, $2, $3, $4, $5)
