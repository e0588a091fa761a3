"""A registration's challenge, run in the background (the API's ``on_registered``)."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any, Protocol

import structlog

from hookproof.projections.subscriptions import SubscriptionState

from .service import Challenger

__all__ = ["BackgroundChallenges", "Spawner"]

log = structlog.get_logger("hookproof.challenge")


class Spawner(Protocol):
    """Runs a job on the side, owned by the engine (``engine/runtime/jobs.py``)."""

    def spawn(self, coro: Coroutine[Any, Any, Any], name: str) -> Any: ...


class BackgroundChallenges:
    """After a registration, regeneration or resume: challenge the subscription without
    holding the request; a failed job is logged (``challenge_job_failed``)."""

    __slots__ = ("challenger", "jobs")

    def __init__(self, challenger: Challenger, jobs: Spawner) -> None:
        self.challenger = challenger
        self.jobs = jobs

    async def __call__(self, state: SubscriptionState) -> None:
        self.jobs.spawn(self._run(state.subscription_id), f"challenge-{state.subscription_id}")

    async def _run(self, subscription_id: str) -> None:
        try:
            await self.challenger.run(subscription_id, actor="system:challenger")
        except Exception as exc:
            log.warning(
                "challenge_job_failed", subscription_id=subscription_id, error=type(exc).__name__
            )
