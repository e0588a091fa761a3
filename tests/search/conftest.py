"""An in-process engine on a loopback API server, a real HTTPS subscriber, a fresh database
(the consumers' fixtures): a tenant with two consumers and real deliveries to search."""

from __future__ import annotations

from tests.consumers.conftest import base, ca, engine, http, settings, subscriber

__all__ = ["base", "ca", "engine", "http", "settings", "subscriber"]
