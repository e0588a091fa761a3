SELECT fingerprint, nonce, ciphertext, created_at
FROM master_key_check
WHERE id
