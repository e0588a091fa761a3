"""Key ring fixtures: settings with a throw-away master key, a controllable clock, the ring."""

from __future__ import annotations

import base64
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import pytest

from hookproof.config import Settings
from hookproof.engine.keys import KeyRing

T0 = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)


@dataclass
class Clock:
    now: datetime = field(default=T0)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now

    @property
    def epoch(self) -> int:
        return int(self.now.timestamp())


@pytest.fixture
def master_b64() -> str:
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()


@pytest.fixture
def settings(tmp_path: Path, master_b64: str) -> Settings:
    return Settings(
        master_key_b64=master_b64,
        data_dir=tmp_path,
        max_queue_delay_s=600.0,
        max_retry_window_s=3000.0,
        clock_skew_s=120.0,
    )


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def ring(pool: asyncpg.Pool, settings: Settings, clock: Clock) -> KeyRing:
    return KeyRing(pool, settings, clock=clock)
