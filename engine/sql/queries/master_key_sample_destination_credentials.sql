SELECT credentials_id AS sealed_id, nonce, ciphertext
FROM destination_credentials
ORDER BY created_at DESC, credentials_id DESC
LIMIT 1
