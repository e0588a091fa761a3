SELECT material_id AS sealed_id, nonce, ciphertext
FROM endpoint_auth_material
ORDER BY created_at DESC, material_id DESC
LIMIT 1
