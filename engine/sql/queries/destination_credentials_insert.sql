INSERT INTO destination_credentials (credentials_id, subscription_id, nonce, ciphertext)
VALUES ($1, $2, $3, $4)
