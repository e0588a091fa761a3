"""Ingest (``POST /v1/events``): canonicalise once, plan one delivery per eligible
subscription, commit in groups."""
