"""Logs, spans and metrics: how the engine is watched."""
