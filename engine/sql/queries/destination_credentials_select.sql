SELECT nonce, ciphertext
FROM destination_credentials
WHERE credentials_id = $1
