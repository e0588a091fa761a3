SELECT application, count(*) AS n FROM deliveries GROUP BY application
