"""Event filters, pure: CESQL 1.0, the CloudEvents Subscriptions API dialects and Hookdeck's
JSON match syntax, compiled once from a ``filters`` array and evaluated per event
(DESIGN.md section 16). No I/O here: the API, planning and the ledger call in."""
