SELECT * FROM deliveries WHERE delivery_id = $1
