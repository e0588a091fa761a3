INSERT INTO endpoint_auth_material (material_id, subscription_id, auth_type, nonce, ciphertext)
VALUES ($1, $2, $3, $4, $5)
