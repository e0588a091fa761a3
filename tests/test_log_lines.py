"""The daemon's log lines: one JSON object per line, whatever the values logged."""

from __future__ import annotations

import io
import json
import logging
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
import structlog

from hookproof.engine.observe.logging import configure_logging


@pytest.fixture
def daemon_logging() -> Iterator[io.StringIO]:
    """The daemon's configuration, its lines written to a buffer instead of stderr."""
    configure_logging(logging.INFO)
    out = io.StringIO()
    structlog.configure(logger_factory=structlog.WriteLoggerFactory(file=out))
    try:
        yield out
    finally:
        structlog.reset_defaults()


class _Opaque:
    def __repr__(self) -> str:
        return "<opaque>"


def test_a_line_is_one_json_object_with_its_fields(daemon_logging: io.StringIO) -> None:
    log = structlog.get_logger("hookproof.test")
    structlog.contextvars.bind_contextvars(worker=1)
    try:
        log.info("attempt_recorded", attempt=2, status=None, ms=1.5, thing=_Opaque())
        log.debug("not_shown")
        log.warning("with_values", at=datetime(2026, 1, 2, tzinfo=UTC), id=uuid.UUID(int=1))
    finally:
        structlog.contextvars.clear_contextvars()
    lines = daemon_logging.getvalue().splitlines()
    assert len(lines) == 2
    first, second = (json.loads(line) for line in lines)
    assert first["event"] == "attempt_recorded" and first["level"] == "info"
    assert (first["attempt"], first["status"], first["ms"], first["worker"]) == (2, None, 1.5, 1)
    assert first["thing"] == "<opaque>"  # what JSON cannot hold: its repr
    assert datetime.fromisoformat(first["timestamp"].replace("Z", "+00:00")).tzinfo is not None
    assert second["event"] == "with_values" and second["level"] == "warning"
    assert second["at"].startswith("2026-01-02T00:00:00")
    assert second["id"] == str(uuid.UUID(int=1))
