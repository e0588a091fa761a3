SELECT * FROM {table} WHERE delivery_id = ANY($1::text[])
