SELECT * FROM {table} WHERE subscription_id = ANY($1::text[])
