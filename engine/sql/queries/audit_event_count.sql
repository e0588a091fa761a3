SELECT count(*) FROM events
