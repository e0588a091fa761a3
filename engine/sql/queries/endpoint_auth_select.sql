SELECT nonce, ciphertext
FROM endpoint_auth_material
WHERE material_id = $1 AND subscription_id = $2
